import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiamondWindow, DiamondWindows } from './diamond-window';

describe('DiamondWindow', () => {
  it('gives each origin offset to the flow that delivers it first, and drops the other copies', () => {
    const window = new DiamondWindow();
    const b = window.claimer('b->d', 100);
    const c = window.claimer('c->d', 100);
    const key = window.claims('a|orders|0>orders');
    assert.deepEqual(
      [0, 1, 2, 5].map((o) => b.claim(key, o)),
      ['first', 'first', 'first', 'first'],
    );
    // c is behind: what b delivered is dropped, what it did not yet deliver is c's.
    assert.deepEqual(
      [0, 2, 5, 6, 7].map((o) => c.claim(key, o)),
      ['duplicate', 'duplicate', 'duplicate', 'first', 'first'],
    );
    assert.deepEqual(
      [6, 7, 8].map((o) => b.claim(key, o)),
      ['duplicate', 'duplicate', 'first'],
    );
    // A flow that reads its own records again writes them again (at least once).
    assert.deepEqual(
      [1, 5, 8].map((o) => b.claim(key, o)),
      ['own', 'own', 'own'],
    );
    assert.equal(c.claim(key, 8), 'duplicate');
  });

  it('keeps origin partitions and target topics apart', () => {
    const window = new DiamondWindow();
    const b = window.claimer('b->d', 100);
    const c = window.claimer('c->d', 100);
    b.claim(window.claims('a|orders|0>orders'), 7);
    assert.equal(c.claim(window.claims('a|orders|1>orders'), 7), 'first');
    assert.equal(c.claim(window.claims('e|orders|0>orders'), 7), 'first');
    assert.equal(c.claim(window.claims('a|orders|0>renamed'), 7), 'first');
    assert.equal(c.claim(window.claims('a|orders|0>orders'), 7), 'duplicate');
  });

  it('holds one range per flow while it alone delivers a partition in order', () => {
    const window = new DiamondWindow();
    const b = window.claimer('b->d', 10);
    const key = window.claims('a|t|0>t');
    for (let offset = 0; offset < 100_000; offset += 2) assert.equal(b.claim(key, offset), 'first');
    assert.equal(b.ranges, 1);
    assert.equal(window.claimer('c->d', 10).claim(key, 77_777), 'duplicate');
  });

  it('forgets the oldest ranges past its bound, and says which copies it can no longer check', () => {
    const window = new DiamondWindow();
    const b = window.claimer('b->d', 3);
    const c = window.claimer('c->d', 3);
    const key = window.claims('a|t|0>t');
    // The paths take turns: each turn starts a range.
    for (let turn = 0; turn < 6; turn++) {
      const claimer = turn % 2 === 0 ? b : c;
      for (let i = 0; i < 10; i++) assert.equal(claimer.claim(key, turn * 10 + i), 'first');
    }
    assert.equal(b.ranges, 3);
    assert.equal(c.ranges, 3);
    // Nothing forgotten yet; b's fourth range goes past its bound and forgets its first.
    assert.equal(c.claim(key, 5), 'duplicate');
    assert.equal(b.claim(key, 60), 'first');
    assert.equal(c.claim(key, 60), 'duplicate');
    assert.equal(b.ranges, 3);
    assert.equal(c.claim(key, 5), 'outside');
    assert.equal(c.claim(key, 15), 'own');
    assert.equal(c.claim(key, 25), 'duplicate');
  });

  it('forgets the range it used least recently', () => {
    const window = new DiamondWindow();
    const b = window.claimer('b->d', 2);
    const busy = window.claims('a|t|0>t');
    b.claim(busy, 0);
    b.claim(window.claims('a|t|1>t'), 0);
    b.claim(busy, 1);
    // A third partition: busy was used after the idle one, so the idle one goes.
    b.claim(window.claims('a|t|2>t'), 0);
    assert.equal(window.claimer('c->d', 2).claim(busy, 0), 'duplicate');
    assert.equal(window.claimer('c->d', 2).claim(window.claims('a|t|1>t'), 0), 'outside');
  });

  it('is one per target cluster, with one claimer per flow', () => {
    const windows = new DiamondWindows();
    assert.equal(windows.of('d'), windows.of('d'));
    assert.notEqual(windows.of('d'), windows.of('e'));
    assert.equal(windows.of('d').claimer('b->d', 5), windows.of('d').claimer('b->d', 9));
    assert.equal(windows.of('d').claimer('b->d', 9).maxRanges, 9);
  });
});
