import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runFieldChain } from '../connect/field-chain-support';
import { optionIssues } from '../test-support';
import { replaceField } from './replace-field';

describe('replace_field (ReplaceField$Value, schemaless)', () => {
  it('keeps included fields, drops excluded ones, renames (Connect vectors)', () => {
    assert.equal(runFieldChain([['replace_field', { include: ['b', 'a'] }]], '{"a":1}'), '{"a":1}');
    assert.equal(runFieldChain([['replace_field', { include: ['c', 'a'], renames: ['a:x', 'c:y'] }]], '{"a":1,"b":2,"c":3}'), '{"x":1,"y":3}');
    assert.equal(runFieldChain([['replace_field', { exclude: ['b'], include: ['b'] }]], '{"a":1,"b":2,"c":3}'), '{}');
  });

  it('passes a null value unchanged', () => {
    assert.equal(runFieldChain([['replace_field', { exclude: ['a'] }]], null), null);
  });

  it('refuses a rename without a colon', () => {
    assert.deepEqual(optionIssues(replaceField, { renames: ['o'] }), ['renames.0: a rename is old:new']);
  });
});
