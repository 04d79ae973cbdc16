import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runFieldChain } from '../connect/field-chain-support';

describe('hoist_field and extract_field (HoistField$Value, ExtractField$Value, schemaless)', () => {
  it('wraps a value, null included (Connect vectors)', () => {
    assert.equal(runFieldChain([['hoist_field', { field: 'wrapped' }]], '5'), '{"wrapped":5}');
    assert.equal(runFieldChain([['hoist_field', { field: 'a' }]], null), '{"a":null}');
  });

  it('extracts a field; a missing one is null, a null value passes', () => {
    assert.equal(runFieldChain([['extract_field', { field: 'a' }]], '{"a":{"b":1},"c":2}'), '{"b":1}');
    assert.equal(runFieldChain([['extract_field', { field: 'a' }]], '{"c":2}'), null);
    assert.equal(runFieldChain([['extract_field', { field: 'a' }]], null), null);
    assert.match(runFieldChain([['extract_field', { field: 'a' }]], '"x"')!, /\[field extraction\], found: java\.lang\.String/);
  });

  it('undoes each other', () => {
    assert.equal(
      runFieldChain(
        [
          ['hoist_field', { field: 'a' }],
          ['extract_field', { field: 'a' }],
        ],
        '{"a":"x"}',
      ),
      '{"a":"x"}',
    );
  });
});
