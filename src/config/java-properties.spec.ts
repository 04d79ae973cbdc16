import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseJavaProperties } from './java-properties';

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
    assert.deepEqual(
      Object.fromEntries(parseJavaProperties(text)),
      {
        a: '1',
        b: 'two words ',
        c: 'three',
        d: 'indented',
        e: '',
        f: '',
        'path with spaces': 'x\tyA\\',
        'key=with:seps': 'v',
        colon: 'in:value',
      },
    );
  });

  it('joins continued lines and drops the next line\'s leading blanks', () => {
    const text = 'list = a,\\\n       b,\\\n       c\nafter=1\neven=x\\\\\nnext=2\n';
    assert.deepEqual(Object.fromEntries(parseJavaProperties(text)), { list: 'a,b,c', after: '1', even: 'x\\', next: '2' });
  });

  it('lets a later key win', () => {
    assert.equal(parseJavaProperties('k=1\nk=2').get('k'), '2');
  });
});
