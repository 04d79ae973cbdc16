import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultTopicFilter, IdentityReplicationPolicy } from '../../policy';
import { OffsetSyncStore } from './offset-sync-store';
import { checkpointTranslation, translateOffsets } from './checkpoint-translation';

/** A store read to its end holding `syncs` ([upstream, downstream]) of orders-0, oldest first. */
function store(syncs: readonly [number, number][]): OffsetSyncStore {
  const s = new OffsetSyncStore({ initializationMustReadToEnd: false });
  s.markReadToEnd();
  for (const [upstreamOffset, downstreamOffset] of syncs) s.handle({ topicPartition: { topic: 'orders', partition: 0 }, upstreamOffset, downstreamOffset });
  return s;
}

describe('checkpoint translation, active-active with names kept', () => {
  const of = {
    source: 'a',
    target: 'b',
    policy: new IdentityReplicationPolicy({ sourceAlias: 'a' }),
    topicFilter: new DefaultTopicFilter({ include: ['.*'] }),
  };
  // a's orders-0 → b's orders-0: a's own records at a-offsets 10 and 30 are at b-offsets 5 and 20.
  const forward = store([
    [10, 5],
    [30, 20],
  ]);
  const translated = (offset: number, reverse?: OffsetSyncStore): number | undefined =>
    translateOffsets('g', [{ topic: 'orders', partition: 0, offset, metadata: '' }], checkpointTranslation(of, forward, new Map(), reverse))[0]
      ?.downstreamOffset;

  it('translates through the forward syncs alone, onto the same topic, without the flow the other way', () => {
    const [checkpoint] = translateOffsets('g', [{ topic: 'orders', partition: 0, offset: 31, metadata: 'm' }], checkpointTranslation(of, forward, new Map()));
    assert.deepEqual(checkpoint, {
      consumerGroupId: 'g',
      topicPartition: { topic: 'orders', partition: 0 },
      upstreamOffset: 31,
      downstreamOffset: 21,
      metadata: 'm',
    });
  });

  it("holds a checkpoint back to the first of the target's own records the group may not have read on the source", () => {
    // b's own records at b-offsets 3 and 12 were copied to a's offsets 8 and 28.
    const reverse = store([
      [3, 8],
      [12, 28],
    ]);
    // Read up to a-offset 31: every copy of b's records up to b-offset 12 was read; after it, maybe not.
    assert.equal(translated(31, reverse), 13);
    // Read up to a-offset 11: a's own records take it to b-offset 6, but of b's own only those up to 3 were read.
    assert.equal(translated(11, reverse), 4);
    // Behind every reverse sync: none of the target's records was read; from the first one copied.
    assert.equal(translated(31, store([[12, 40]])), 12);
    assert.equal(translated(31, store([[40, 60]])), 21);
    // Further along than the target's records: the forward syncs decide.
    assert.equal(translated(31, store([[0, 1]])), 1);
    assert.equal(translated(31, store([[100, 1]])), 21);
  });
});
