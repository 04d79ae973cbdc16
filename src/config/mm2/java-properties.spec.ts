import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseJavaProperties, readPropertyEntries } from './java-properties';

describe('parseJavaProperties', () => {
  it('reads the three separators, comments, blanks and escapes as java.util.Properties does', () => {
    const text = [
      '# comment',
      '  ! another comment \\',
      'a=1',
      'b : two words ',
      'c three',
      '   d=indented',
      'e',
      'f=',
      'path\\ with\\ spaces=x\\ty\\u0041\\\\',
      'key\\=with\\:seps=v',
      'colon:in:value',
    ].join('\r\n');
    assert.deepEqual(Object.fromEntries(parseJavaProperties(text)), {
      a: '1',
      b: 'two words ',
      c: 'three',
      d: 'indented',
      e: '',
      f: '',
      'path with spaces': 'x\tyA\\',
      'key=with:seps': 'v',
      colon: 'in:value',
    });
  });

  it("joins continued lines and drops the next line's leading blanks", () => {
    const text = 'list = a,\\\n       b,\\\n       c\nafter=1\neven=x\\\\\nnext=2\n';
    assert.deepEqual(Object.fromEntries(parseJavaProperties(text)), { list: 'a,b,c', after: '1', even: 'x\\', next: '2' });
  });

  it('lets a later key win', () => {
    assert.equal(parseJavaProperties('k=1\nk=2').get('k'), '2');
  });
});

describe('readPropertyEntries', () => {
  it('keeps every entry in order with the line and column of its key and value', () => {
    const text = ['# c', 'a = 1', '  b:2', 'list = x,\\', '   y', 'a=3', 'empty ='].join('\n');
    assert.deepEqual(
      readPropertyEntries(text).map((e) => [e.key, e.value, e.line, e.column, e.valueLine, e.valueColumn]),
      [
        ['a', '1', 2, 1, 2, 5],
        ['b', '2', 3, 3, 3, 5],
        ['list', 'x,y', 4, 1, 4, 8],
        ['a', '3', 6, 1, 6, 3],
        ['empty', '', 7, 1, 7, 8],
      ],
    );
  });

  it('places a value that starts on a continuation line there', () => {
    const [entry] = readPropertyEntries('key = \\\n    value');
    assert.deepEqual([entry!.valueLine, entry!.valueColumn, entry!.value], [2, 5, 'value']);
  });
});
