import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectFloat, ConnectInt, JavaHashMap } from './connect-value';
import { readJson, writeJson } from './json-data';
import { javaDoubleToString, javaFloatToString } from './java-number-format';

/** What Connect's JsonConverter (schemas.enable=false, Kafka 4.3.1, JDK 17) writes back for what it read. */
const roundTrip = (json: string): string | null => writeJson(readJson(Buffer.from(json)))?.toString('utf8') ?? null;

describe('JsonConverter without schemas', () => {
  it('writes what it read as Connect does: HashMap field order, Java numbers, Jackson escapes', () => {
    assert.equal(
      roundTrip(
        '{"b":1,"a":2.50,"c":[1,2.0,"x"],"d":null,"e":1e20,"f":123456789012345678901234,"g":"\\u0001\\u001f/é\\ud83d\\ude00","h":true,"aa":0.001,"ab":1e7,"ac":-0.0,"ad":9999999.0}',
      ),
      '{"aa":0.001,"a":2.5,"ab":1.0E7,"b":1,"ac":0.0,"c":[1,2.0,"x"],"ad":9999999.0,"d":null,"e":1.0E20,"f":-7269072992350064654,"g":"\\u0001\\u001F/é\\uD83D\\uDE00","h":true}',
    );
    assert.equal(
      roundTrip('{"z":1,"y":2,"x":3,"w":4,"v":5,"u":6,"t":7,"s":8,"r":9,"q":10,"p":11,"o":12}'),
      '{"p":11,"q":10,"r":9,"s":8,"t":7,"u":6,"v":5,"w":4,"x":3,"y":2,"z":1,"o":12}',
    );
  });

  it('reads null, empty bytes and JSON null as a null value, written as no bytes (a tombstone)', () => {
    assert.equal(readJson(null), null);
    assert.equal(readJson(Buffer.alloc(0)), null);
    assert.equal(readJson(Buffer.from('null')), null);
    assert.equal(writeJson(null), null);
    assert.equal(roundTrip('""'), '""');
  });

  it('reads integral numbers as int64 and others as float64', () => {
    assert.deepEqual(readJson(Buffer.from('7')), new ConnectInt('int64', 7n));
    assert.deepEqual(readJson(Buffer.from('7.0')), new ConnectFloat('float64', 7));
    assert.deepEqual(readJson(Buffer.from('-7e0')), new ConnectFloat('float64', -7));
  });

  it('keeps a repeated field at its first place with its last value', () => {
    const map = readJson(Buffer.from('{"a":1,"b":2,"a":3}')) as JavaHashMap;
    assert.deepEqual(
      [...map],
      [
        ['a', new ConnectInt('int64', 3n)],
        ['b', new ConnectInt('int64', 2n)],
      ],
    );
  });

  it('refuses what is not JSON, naming where, never quoting it', () => {
    assert.throws(() => readJson(Buffer.from('{"a":secret}')), /not JSON \(unexpected character at character 6\)/);
    assert.throws(() => readJson(Buffer.from('{"a":01}')), /not JSON \(bad number at character 6\)/);
    assert.throws(() => readJson(Buffer.from([0x7b, 0xff])), /not UTF-8/);
  });
});

describe("Java's Double.toString and Float.toString", () => {
  it('writes plain decimals from 10^-3 to 10^7, scientific notation outside', () => {
    const cases: [number, string][] = [
      [2.5, '2.5'],
      [100, '100.0'],
      [0.001, '0.001'],
      [0.0001, '1.0E-4'],
      [1e7, '1.0E7'],
      [9999999, '9999999.0'],
      [1.2345e-7, '1.2345E-7'],
      [-0, '-0.0'],
      [0, '0.0'],
      [Number.MAX_VALUE, '1.7976931348623157E308'],
      [NaN, 'NaN'],
      [-Infinity, '-Infinity'],
    ];
    for (const [value, text] of cases) assert.equal(javaDoubleToString(value), text, String(value));
  });

  it('writes a float with the fewest digits that read back as that float', () => {
    assert.equal(javaFloatToString(Math.fround(0.1)), '0.1');
    assert.equal(javaFloatToString(Math.fround(16777217)), '1.6777216E7');
    assert.equal(javaFloatToString(Math.fround(1000)), '1000.0');
  });
});
