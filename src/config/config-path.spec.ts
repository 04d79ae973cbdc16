import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatPath, isPathPrefix, parsePath, valueAtPath } from './config-path';

describe('config paths', () => {
  it('formats paths the way messages show them', () => {
    assert.equal(formatPath(['flows', 0, 'batching', 'max_records']), 'flows[0].batching.max_records');
    assert.equal(formatPath(['clusters', 'a.b', 'bootstrap_servers', 1]), 'clusters["a.b"].bootstrap_servers[1]');
    assert.equal(formatPath([]), '');
  });

  it('reads dotted and bracketed paths, and round-trips formatted ones', () => {
    assert.deepEqual(parsePath('flows.0.batching.max_records'), ['flows', '0', 'batching', 'max_records']);
    assert.deepEqual(parsePath('flows[0].transforms[2].key'), ['flows', 0, 'transforms', 2, 'key']);
    assert.deepEqual(parsePath('clusters["a.b"].x'), ['clusters', 'a.b', 'x']);
    for (const bad of ['', 'a..b', '.a', 'a.', 'a[0', 'a[x]', 'a[0]b']) assert.equal(parsePath(bad), undefined, bad);
  });

  it('compares and follows paths', () => {
    assert.equal(isPathPrefix(['flows', '0'], ['flows', 0, 'x']), true);
    assert.equal(isPathPrefix(['flows', 1], ['flows', 0, 'x']), false);
    const data = { flows: [{ batching: { max_records: null } }] };
    assert.equal(valueAtPath(data, ['flows', 0, 'batching', 'max_records']), null);
    assert.equal(valueAtPath(data, ['flows', '0', 'batching']), data.flows[0]!.batching);
    assert.equal(valueAtPath(data, ['flows', 1, 'batching']), undefined);
  });
});
