import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runFieldChain } from '../connect/field-chain-support';
import { optionIssues } from '../test-support';
import { cast } from './cast';

const casting = (spec: string[], json: string | null) => runFieldChain([['cast', { spec }]], json);

describe('cast (Cast$Value, schemaless)', () => {
  it('converts as Java does (Connect vectors)', () => {
    assert.equal(
      casting(
        ['a:int32', 'b:int8', 'c:int64', 'd:boolean', 'f:int8', 'g:float32', 'h:float32', 'i:boolean', 'j:boolean', 'k:boolean', 'l:boolean', 'm:int16'],
        '{"a":"12","b":2.7,"c":true,"d":"true","f":300,"g":"1e3","h":0.1,"i":1,"j":0,"k":"yes","l":"TRUE","m":-2.7,"n":"  5","o":"5.0"}',
      ),
      '{"a":12,"b":2,"c":1,"d":true,"f":44,"g":1000.0,"h":0.1,"i":true,"j":false,"k":false,"l":true,"m":-2,"n":"  5","o":"5.0"}',
    );
    assert.equal(casting(['o:float64'], '{"o":"1.5"}'), '{"o":1.5}');
    assert.equal(casting(['o:float32'], '{"o":16777217}'), '{"o":1.6777216E7}');
    assert.equal(casting(['o:float32'], '{"o":1e40}'), '{"o":"Infinity"}');
    assert.equal(casting(['o:float64'], '{"o":"NaN"}'), '{"o":"NaN"}');
    assert.equal(casting(['o:int32'], '{"o":3000000000}'), '{"o":-1294967296}');
    assert.equal(casting(['o:int64'], '{"o":1.0E10}'), '{"o":10000000000}');
    assert.equal(casting(['o:float64'], '{"o":true}'), '{"o":1.0}');
    assert.equal(casting(['a:string', 'b:string', 'c:string'], '{"a":1.5,"b":1,"c":true,"d":[1]}'), '{"a":"1.5","b":"1","c":"true","d":[1]}');
    assert.equal(casting(['int64'], '12.5'), '12');
  });

  it('sets a field the record lacks to null, and keeps null', () => {
    assert.equal(casting(['o:int32'], '{"p":1}'), '{"p":1,"o":null}');
    assert.equal(casting(['o:string', 'p:string'], '{"o":1}'), '{"p":null,"o":"1"}');
    assert.equal(casting(['o:int32'], '{"o":null}'), '{"o":null}');
    assert.equal(casting(['int32'], null), null);
  });

  it('fails strings that are not numbers without quoting them', () => {
    for (const [spec, json] of [
      ['o:int32', '{"o":" 5"}'],
      ['o:int64', '{"o":"5.0"}'],
      ['o:int64', '{"o":"9223372036854775808"}'],
      ['o:int32', '{"o":"0x10"}'],
      ['o:float64', '{"o":"abc"}'],
    ] as const) {
      const out = casting([spec], json)!;
      assert.match(out, /^ERR .*the string in field "o" is not a (whole number within int\d+|number), so it cannot be cast to/, spec);
      assert.doesNotMatch(out, /0x10|abc|5\.0|9223372036854775808/);
    }
  });

  it("fails casts from maps and lists with Connect's message", () => {
    assert.match(casting(['a:string'], '{"a":{"b":1}}')!, /Cast transformation does not support casting from MAP/);
    assert.match(casting(['int32'], '{"o":1}')!, /Cast transformation does not support casting from MAP/);
  });

  it('refuses bad specs', () => {
    assert.match(optionIssues(cast, { spec: ['o:int33'] })[0]!, /Invalid cast "o:int33"/);
    assert.match(optionIssues(cast, { spec: ['o:bytes'] })[0]!, /Invalid cast "o:bytes"/);
    assert.match(optionIssues(cast, { spec: ['o:int32', 'int32'] })[0]!, /must be the only entry/);
  });
});
