import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('keeps at most its capacity, forgetting the least recently used entry', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1); // a is now the most recently used
    cache.set('c', 3);
    assert.equal(cache.size, 2);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.get('c'), 3);
  });

  it('replaces the value of a key set again, which counts as a use', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], [10, undefined, 3]);
  });

  it('refuses a capacity below one', () => {
    assert.throws(() => new LruCache(0), /at least one entry, not 0/);
  });
});
