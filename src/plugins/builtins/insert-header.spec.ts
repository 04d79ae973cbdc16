import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { frozen, header, instantiate, mirrorRecord, optionIssues } from '../test-support';
import { insertHeader } from './insert-header';

describe('insert_header', () => {
  it('appends the header after existing ones, repeated keys included', () => {
    const t = instantiate(insertHeader, { header: 'origin', value: 'primary' });
    const input = frozen(mirrorRecord({ headers: [header('origin', 'elsewhere'), header('trace', null)] }));
    const out = t.apply(input)!;
    assert.deepEqual(out.headers, [header('origin', 'elsewhere'), header('trace', null), header('origin', 'primary')]);
    assert.equal(input.headers.length, 2, 'the input record is unchanged');
  });

  it('writes the value as UTF-8', () => {
    const t = instantiate(insertHeader, { header: 'h', value: 'grüße' });
    assert.deepEqual(t.apply(mirrorRecord())!.headers[0]!.value, Buffer.from('grüße', 'utf8'));
  });

  it('writes binary values from base64, and an empty value as an empty buffer', () => {
    const bin = instantiate(insertHeader, { header: 'h', value_base64: Buffer.from([0, 255, 1]).toString('base64') });
    assert.deepEqual(bin.apply(mirrorRecord())!.headers[0]!.value, Buffer.from([0, 255, 1]));
    const empty = instantiate(insertHeader, { header: 'h', value: '' });
    assert.deepEqual(empty.apply(mirrorRecord())!.headers[0]!.value, Buffer.alloc(0));
  });

  it('writes a null header value when value is null (not an empty one)', () => {
    const t = instantiate(insertHeader, { header: 'h', value: null });
    assert.equal(t.apply(mirrorRecord())!.headers[0]!.value, null);
  });

  it('keeps key, value, tombstones and everything else as they were', () => {
    const t = instantiate(insertHeader, { header: 'h', value: 'x' });
    const input = mirrorRecord({ key: null, value: null });
    const out = t.apply(input)!;
    assert.deepEqual({ ...out, headers: [] }, { ...input, headers: [] });
    assert.equal(out.value, null);
    const empty = t.apply(mirrorRecord({ key: Buffer.alloc(0), value: Buffer.alloc(0) }))!;
    assert.deepEqual([empty.key, empty.value], [Buffer.alloc(0), Buffer.alloc(0)]);
  });

  it('needs exactly one of value and value_base64, a header key, and no unknown options', () => {
    assert.deepEqual(optionIssues(insertHeader, { header: 'h' }), ['value: Give exactly one of value and value_base64']);
    assert.deepEqual(optionIssues(insertHeader, { header: 'h', value: 'a', value_base64: 'YQ==' }), ['value: Give exactly one of value and value_base64']);
    assert.equal(optionIssues(insertHeader, { header: '', value: 'a' }).length, 1);
    assert.equal(optionIssues(insertHeader, { header: 'h', value_base64: 'not base64!' }).length, 1);
    assert.deepEqual(optionIssues(insertHeader, { header: 'h', value: 'a', value_literal: 'b' }), [': Unrecognized key: "value_literal"']);
  });
});
