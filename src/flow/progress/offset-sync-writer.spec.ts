import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OffsetSync } from '../../formats';
import { DEFAULT_OFFSET_LAG_MAX, OffsetSyncWriter, PartitionSyncState } from './offset-sync-writer';

type Sync = readonly [topic: string, partition: number, upstream: number, downstream: number];
const plain = (syncs: readonly OffsetSync[]): Sync[] =>
  syncs.map((s) => [s.topicPartition.topic, s.topicPartition.partition, s.upstreamOffset, s.downstreamOffset]);

describe('PartitionSyncState (MirrorSourceTaskTest.testOffsetSync / testZeroOffsetSync)', () => {
  it('syncs on the first record, upstream skips and rewinds, downstream truncation and lag (offset.lag.max 50)', () => {
    const s = new PartitionSyncState(50);
    assert.equal(s.update(0, 100), true, 'always emit offset sync on first update');
    assert.equal(s.shouldSyncOffsets, true);
    s.reset();
    assert.equal(s.shouldSyncOffsets, false);
    const steps: readonly [number, number, boolean, string][] = [
      [2, 102, true, 'upstream offset skipped -> resync'],
      [3, 152, false, 'no sync'],
      [4, 153, true, 'one past target offset: 153 - (102 + 1) >= 50'],
      [5, 154, false, 'no sync'],
      [6, 203, false, 'no sync'],
      [7, 204, true, 'one past target offset'],
      [2, 206, true, 'upstream reset'],
      [3, 207, false, 'no sync'],
      [4, 3, true, 'downstream reset'],
    ];
    for (const [up, down, want, why] of steps) {
      assert.equal(s.update(up, down), want, why);
      s.reset();
    }
    assert.equal(s.update(5, 4), false, 'no sync');
    // No reset in between: the flag is sticky.
    assert.equal(s.update(7, 6), true);
    assert.equal(s.update(7, 6), true);
    assert.equal(s.update(8, 7), true);
    assert.equal(s.update(10, 57), true);
    s.reset();
    assert.equal(s.update(11, 58), false);
    assert.equal(s.shouldSyncOffsets, false);
  });

  it('syncs on every record with offset.lag.max 0', () => {
    const s = new PartitionSyncState(0);
    const steps: readonly [number, number][] = [
      [0, 100],
      [2, 102],
      [3, 153],
      [4, 154],
      [5, 155],
      [6, 207],
      [2, 208],
      [3, 209],
      [4, 3],
    ];
    for (const [up, down] of steps) {
      assert.equal(s.update(up, down), true, `${up}->${down}`);
      s.reset();
    }
    for (const [up, down] of [
      [5, 4],
      [7, 6],
      [7, 6],
      [8, 7],
      [10, 57],
    ] as const)
      assert.equal(s.update(up, down), true);
    s.reset();
    assert.equal(s.update(11, 58), true);
  });
});

describe('OffsetSyncWriter', () => {
  const tp = { topic: 'topic', partition: 0 };

  it('defaults offset.lag.max to 100', () => {
    assert.equal(new OffsetSyncWriter().offsetLagMax, DEFAULT_OFFSET_LAG_MAX);
    assert.equal(DEFAULT_OFFSET_LAG_MAX, 100);
    assert.throws(() => new OffsetSyncWriter({ offsetLagMax: 1.5 }), RangeError);
  });

  it('queues the first sync as pending and the next as delayed (testMaybeQueueOffsetSyncs)', () => {
    const w = new OffsetSyncWriter({ offsetLagMax: 2 });
    assert.equal(w.update(tp, 0, 1), true);
    assert.deepEqual(plain(w.snapshot().pending), [['topic', 0, 0, 1]]);
    assert.deepEqual(w.snapshot().delayed, []);
    assert.equal(w.update(tp, 1, 2), false);
    assert.deepEqual(plain(w.snapshot().delayed), [['topic', 0, 1, 2]]);
  });

  it('hands out at most `limit` syncs, keeping the rest (testFirePendingOffsetSyncs, semaphore of 1)', () => {
    const w = new OffsetSyncWriter({ offsetLagMax: 1 });
    const other = { topic: 'other', partition: 3 };
    w.update(tp, 0, 100);
    w.update(other, 7, 1);
    assert.deepEqual(plain(w.takePending(1)), [['topic', 0, 0, 100]]);
    assert.equal(w.pendingCount, 1);
    assert.deepEqual(plain(w.takePending(0)), []);
    assert.deepEqual(plain(w.takePending()), [['other', 3, 7, 1]]);
    assert.deepEqual(w.takePending(), []);
  });

  it('moves delayed syncs to pending on promote (testPromoteDelayedOffsetSyncs)', () => {
    const w = new OffsetSyncWriter({ offsetLagMax: 50 });
    w.update(tp, 0, 100);
    w.update(tp, 1, 101);
    w.promoteDelayed();
    assert.equal(w.delayedCount, 0);
    assert.deepEqual(plain(w.takePending()), [['topic', 0, 1, 101]]);
  });

  it('keeps one pending sync per partition, the latest, in its first place', () => {
    const w = new OffsetSyncWriter({ offsetLagMax: 0 });
    w.update({ topic: 'a', partition: 0 }, 0, 0);
    w.update({ topic: 'b', partition: 0 }, 0, 0);
    w.update({ topic: 'a', partition: 0 }, 1, 1);
    assert.deepEqual(plain(w.takePending()), [
      ['a', 0, 1, 1],
      ['b', 0, 0, 0],
    ]);
  });

  it("does not keep the caller's topic-partition object", () => {
    const w = new OffsetSyncWriter();
    const batchLike = { topic: 't', partition: 1, records: [1, 2, 3] };
    w.update(batchLike, 0, 0);
    assert.deepEqual(w.takePending()[0]!.topicPartition, { topic: 't', partition: 1 });
  });

  it('forgets a removed partition, its queued syncs included', () => {
    const w = new OffsetSyncWriter({ offsetLagMax: 10 });
    w.update(tp, 0, 0);
    w.update(tp, 1, 1);
    w.removePartition(tp);
    assert.equal(w.pendingCount, 0);
    assert.equal(w.delayedCount, 0);
    w.removePartition(tp);
    // Back again: its first record syncs, as for a new task in MM2.
    assert.equal(w.update(tp, 2, 2), true);
  });

  // A scripted run through Kafka 4.3.1's own OffsetSyncWriter (offset.lag.max 3; "take" drains the
  // pending map as firePendingOffsetSyncs would with free permits): the pending and delayed maps,
  // in iteration order, after every step.
  type Step =
    | { step: readonly [string, number, number, number]; pending: readonly Sync[]; delayed: readonly Sync[] }
    | { step: 'take'; taken: readonly Sync[] }
    | { step: 'promote'; pending: readonly Sync[]; delayed: readonly Sync[] };
  const JAVA_TRACE: readonly Step[] = [
    { step: ['a', 0, 0, 10], pending: [['a', 0, 0, 10]], delayed: [] },
    {
      step: ['b', 1, 5, 0],
      pending: [
        ['a', 0, 0, 10],
        ['b', 1, 5, 0],
      ],
      delayed: [],
    },
    {
      step: ['a', 0, 1, 11],
      pending: [
        ['a', 0, 0, 10],
        ['b', 1, 5, 0],
      ],
      delayed: [['a', 0, 1, 11]],
    },
    {
      step: ['a', 1, 0, 0],
      pending: [
        ['a', 0, 0, 10],
        ['b', 1, 5, 0],
        ['a', 1, 0, 0],
      ],
      delayed: [['a', 0, 1, 11]],
    },
    {
      step: ['a', 0, 2, 12],
      pending: [
        ['a', 0, 0, 10],
        ['b', 1, 5, 0],
        ['a', 1, 0, 0],
      ],
      delayed: [['a', 0, 2, 12]],
    },
    {
      step: ['b', 1, 6, 1],
      pending: [
        ['a', 0, 0, 10],
        ['b', 1, 5, 0],
        ['a', 1, 0, 0],
      ],
      delayed: [
        ['a', 0, 2, 12],
        ['b', 1, 6, 1],
      ],
    },
    {
      step: 'take',
      taken: [
        ['a', 0, 0, 10],
        ['b', 1, 5, 0],
        ['a', 1, 0, 0],
      ],
    },
    {
      step: ['a', 0, 3, 13],
      pending: [],
      delayed: [
        ['a', 0, 3, 13],
        ['b', 1, 6, 1],
      ],
    },
    {
      step: ['b', 1, 7, 2],
      pending: [],
      delayed: [
        ['a', 0, 3, 13],
        ['b', 1, 7, 2],
      ],
    },
    { step: ['a', 0, 4, 14], pending: [['a', 0, 4, 14]], delayed: [['b', 1, 7, 2]] },
    {
      step: ['a', 1, 1, 1],
      pending: [['a', 0, 4, 14]],
      delayed: [
        ['b', 1, 7, 2],
        ['a', 1, 1, 1],
      ],
    },
    {
      step: 'promote',
      pending: [
        ['a', 0, 4, 14],
        ['b', 1, 7, 2],
        ['a', 1, 1, 1],
      ],
      delayed: [],
    },
    {
      step: ['a', 0, 5, 15],
      pending: [
        ['a', 0, 4, 14],
        ['b', 1, 7, 2],
        ['a', 1, 1, 1],
      ],
      delayed: [['a', 0, 5, 15]],
    },
    {
      step: ['a', 0, 6, 16],
      pending: [
        ['a', 0, 4, 14],
        ['b', 1, 7, 2],
        ['a', 1, 1, 1],
      ],
      delayed: [['a', 0, 6, 16]],
    },
    {
      step: ['b', 1, 8, 3],
      pending: [
        ['a', 0, 4, 14],
        ['b', 1, 7, 2],
        ['a', 1, 1, 1],
      ],
      delayed: [
        ['a', 0, 6, 16],
        ['b', 1, 8, 3],
      ],
    },
    {
      step: ['a', 0, 7, 17],
      pending: [
        ['a', 0, 4, 14],
        ['b', 1, 7, 2],
        ['a', 1, 1, 1],
      ],
      delayed: [
        ['a', 0, 7, 17],
        ['b', 1, 8, 3],
      ],
    },
    {
      step: 'take',
      taken: [
        ['a', 0, 4, 14],
        ['b', 1, 7, 2],
        ['a', 1, 1, 1],
      ],
    },
    {
      step: ['a', 1, 2, 2],
      pending: [],
      delayed: [
        ['a', 0, 7, 17],
        ['b', 1, 8, 3],
        ['a', 1, 2, 2],
      ],
    },
    {
      step: ['a', 1, 3, 3],
      pending: [],
      delayed: [
        ['a', 0, 7, 17],
        ['b', 1, 8, 3],
        ['a', 1, 3, 3],
      ],
    },
    {
      step: ['a', 1, 4, 4],
      pending: [['a', 1, 4, 4]],
      delayed: [
        ['a', 0, 7, 17],
        ['b', 1, 8, 3],
      ],
    },
    {
      step: ['b', 1, 9, 4],
      pending: [
        ['a', 1, 4, 4],
        ['b', 1, 9, 4],
      ],
      delayed: [['a', 0, 7, 17]],
    },
    {
      step: 'promote',
      pending: [
        ['a', 1, 4, 4],
        ['b', 1, 9, 4],
        ['a', 0, 7, 17],
      ],
      delayed: [],
    },
    {
      step: ['a', 0, 8, 18],
      pending: [
        ['a', 1, 4, 4],
        ['b', 1, 9, 4],
        ['a', 0, 8, 18],
      ],
      delayed: [],
    },
    {
      step: 'take',
      taken: [
        ['a', 1, 4, 4],
        ['b', 1, 9, 4],
        ['a', 0, 8, 18],
      ],
    },
    { step: ['a', 0, 20, 19], pending: [['a', 0, 20, 19]], delayed: [] },
    {
      step: ['b', 1, 10, 100],
      pending: [
        ['a', 0, 20, 19],
        ['b', 1, 10, 100],
      ],
      delayed: [],
    },
    {
      step: ['a', 0, 21, 5],
      pending: [
        ['a', 0, 21, 5],
        ['b', 1, 10, 100],
      ],
      delayed: [],
    },
    {
      step: 'take',
      taken: [
        ['a', 0, 21, 5],
        ['b', 1, 10, 100],
      ],
    },
    { step: 'promote', pending: [], delayed: [] },
    { step: 'take', taken: [] },
  ];

  it('matches Kafka 4.3.1 step by step across partitions, promotes and takes', () => {
    const w = new OffsetSyncWriter({ offsetLagMax: 3 });
    JAVA_TRACE.forEach((s, i) => {
      if (s.step === 'take') {
        assert.deepEqual(plain(w.takePending()), s.taken, `step ${i} take`);
        return;
      }
      if (s.step === 'promote') w.promoteDelayed();
      else w.update({ topic: s.step[0], partition: s.step[1] }, s.step[2], s.step[3]);
      const snap = w.snapshot();
      assert.deepEqual(plain(snap.pending), s.pending, `step ${i} pending`);
      assert.deepEqual(plain(snap.delayed), s.delayed, `step ${i} delayed`);
    });
  });
});
