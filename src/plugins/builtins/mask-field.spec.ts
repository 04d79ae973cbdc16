import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runFieldChain } from '../connect/field-chain-support';

describe('mask_field (MaskField$Value, schemaless)', () => {
  it('replaces fields by the empty value of their type (Connect vectors)', () => {
    assert.equal(
      runFieldChain([['mask_field', { fields: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }]], '{"a":1,"b":"s","c":1.5,"d":true,"e":[1],"f":{"x":1},"g":null}'),
      '{"a":0,"b":"","c":0.0,"d":false,"e":[],"f":{},"g":null}',
    );
    assert.equal(runFieldChain([['mask_field', { fields: ['x'] }]], '{"a":1.5,"b":"s"}'), '{"x":null,"a":1.5,"b":"s"}');
  });

  it('puts the replacement in string and number fields', () => {
    assert.equal(runFieldChain([['mask_field', { fields: ['b'], replacement: 'XX' }]], '{"a":1,"b":"s"}'), '{"a":1,"b":"XX"}');
    assert.equal(runFieldChain([['mask_field', { fields: ['a'], replacement: '7' }]], '{"a":1,"b":"s"}'), '{"a":7,"b":"s"}');
    assert.equal(runFieldChain([['mask_field', { fields: ['a'], replacement: '7' }]], '{"a":1.5,"b":"s"}'), '{"a":7.0,"b":"s"}');
    assert.match(runFieldChain([['mask_field', { fields: ['a'], replacement: 'XX' }]], '{"a":1}')!, /replacement is not a whole number/);
  });

  it('fails a null value, as Connect does', () => {
    assert.match(runFieldChain([['mask_field', { fields: ['a'] }]], null)!, /Only Map objects supported in absence of schema for \[mask fields\], found: null/);
  });
});
