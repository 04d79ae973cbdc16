import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { javaSplitLiteral } from './java-split';

describe('javaSplitLiteral (Java Pattern.split with a quoted separator, limit 0)', () => {
  it('drops trailing empty strings and keeps a leading one, as Java does', () => {
    assert.deepEqual(javaSplitLiteral('a.', '.'), ['a']);
    assert.deepEqual(javaSplitLiteral('.x', '.'), ['', 'x']);
    assert.deepEqual(javaSplitLiteral('a..b', '.'), ['a', '', 'b']);
    assert.deepEqual(javaSplitLiteral('.', '.'), []);
    assert.deepEqual(javaSplitLiteral('..', '.'), []);
    assert.deepEqual(javaSplitLiteral('a..', '.'), ['a']);
  });

  it('returns the whole input when the separator is absent', () => {
    assert.deepEqual(javaSplitLiteral('', '.'), ['']);
    assert.deepEqual(javaSplitLiteral('abc', '.'), ['abc']);
  });

  it('treats the separator literally and matches left to right without overlap', () => {
    assert.deepEqual(javaSplitLiteral('a|b', '|'), ['a', 'b']);
    assert.deepEqual(javaSplitLiteral('___x', '__'), ['', '_x']);
    assert.deepEqual(javaSplitLiteral('a___b', '__'), ['a', '_b']);
  });

  it('splits between characters for an empty separator, without a leading empty string', () => {
    assert.deepEqual(javaSplitLiteral('abc', ''), ['a', 'b', 'c']);
    assert.deepEqual(javaSplitLiteral('', ''), ['']);
  });
});
