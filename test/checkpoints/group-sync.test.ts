/**
 * Consumer-group offset sync into the target (issue #3; as MM2's integration test
 * `testOneWayReplicationWithAutoOffsetSync`): a group that consumed everything on the source is
 * synced to within `offset_syncs.lag_max` of the end on the target and re-reads fewer than that;
 * new topics are added; a group with members on the target is left alone and reported; an idle
 * group's offsets never move backwards.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline, type TestFlow } from '../support/pipeline-harness';
import { GroupKit, assertMonotonic, openCheckpointKits } from './checkpoint-kit';
import { useKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
let sourceGroups: GroupKit;
let targetGroups: GroupKit;
useKits(openCheckpointKits, (kits) => ({ source, target, sourceGroups, targetGroups } = kits));

const LAG_MAX = 10;

/**
 * Records are re-encoded here (record batch forwarding off), so the offset syncs behind these
 * translations are the per-record ones; translation.test.ts replicates through forwarded batches.
 */
function syncingFlow(p: string): TestFlow {
  return {
    topics: [`${p}-.*`],
    batching: { forward_batches: false },
    offset_syncs: { lag_max: LAG_MAX },
    checkpoints: {
      interval_ms: 500,
      refresh_groups_interval_ms: 1000,
      groups: [`${p}-.*`],
      sync_group_offsets: { enabled: true, interval_ms: 500 },
    },
  };
}

function records(partitions: readonly number[], label: string, count: number): TestRecord[] {
  return partitions.flatMap((partition) =>
    Array.from({ length: count }, (_, i) => ({ partition, key: null, value: Buffer.from(`${label}:${partition}:${i}`), headers: [], timestamp: Date.now() })),
  );
}

/** MM2's waitForConsumerGroupFullSync: every partition of `topics` synced to (last offset - lag, end]. */
async function waitForFullSync(run: RunningPipeline, group: string, topics: readonly string[], partitions: number): Promise<void> {
  let problem = '';
  try {
    await run.until(
      async () => {
        const offsets = await targetGroups.committed(group);
        for (const topic of topics) {
          const ends = await targetGroups.endOffsets(topic);
          for (let n = 0; n < partitions; n++) {
            const synced = offsets.get(`${topic}-${n}`);
            const lastOffset = ends[n]! - 1;
            if (synced === undefined) return !(problem = `${topic}-${n} has no synced offset`);
            if (!(synced.offset > lastOffset - LAG_MAX)) return !(problem = `${topic}-${n}: ${synced.offset} is not above ${lastOffset} - ${LAG_MAX}`);
            assert.ok(synced.offset <= ends[n]!, `${topic}-${n}: synced offset ${synced.offset} is beyond the log end ${ends[n]}`);
          }
        }
        return true;
      },
      { what: `group ${group} fully synced on ${topics.join(', ')}`, timeoutMs: 60_000, intervalMs: 500 },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\nlast problem: ${problem}`, { cause: error });
  }
}

describe('consumer group offset sync', () => {
  test('a group synced after a full read re-reads fewer than lag_max records on the target; new topics are added', async () => {
    const p = uniqueName('gsync-auto');
    const topic1 = `${p}-one`;
    const group = `${p}-app`;
    await source.createTopic(topic1, 3);
    await source.produce(topic1, records([0, 1, 2], 'one', 100));
    const ends1 = await sourceGroups.endOffsets(topic1);
    await sourceGroups.consume(
      group,
      [topic1],
      ends1.reduce((a, b) => a + b, 0),
    );

    const { file } = await writePipeline({ flows: [syncingFlow(p)] });
    const run = await startPipeline(file);
    await waitForFullSync(run, group, [`primary.${topic1}`], 3);

    // The application moves to the target; one sentinel per partition arrives afterwards.
    const session = targetGroups.join(group, [`primary.${topic1}`]);
    try {
      await run.until(() => session.joined(), { what: 'the target consumer to join' });
      await source.produce(topic1, records([0, 1, 2], 'sentinel', 1));
      await session.until((seen) => [0, 1, 2].every((n) => seen.some((r) => r.partition === n && r.value.startsWith('sentinel'))), 60_000, 'the sentinels');
      // While the consumer is in the group, the sync leaves the group alone and says so.
      const before = run.statuses()[0]!.checkpoints.groupSync.skippedActive;
      await run.until(() => run.statuses()[0]!.checkpoints.groupSync.skippedActive > before, { what: 'the sync to skip the active group' });
      assert.ok(run.statuses()[0]!.checkpoints.groupSync.activeGroups.includes(group));
      assert.ok(
        run.logs.some(
          (l) =>
            l.level === 'warn' &&
            l.message === 'Consumer groups with active members on the target were not synced.' &&
            (l.meta['groups'] as string[]).includes(group),
        ),
      );
    } finally {
      await session.leave();
    }
    for (const n of [0, 1, 2]) {
      const reread = session.records().filter((r) => r.partition === n && !r.value.startsWith('sentinel')).length;
      assert.ok(reread < LAG_MAX, `partition ${n}: the target consumer re-read ${reread} records, fewer than lag_max ${LAG_MAX} expected`);
    }

    // A new topic: the application consumes it on the source; the idle target group gets its partitions added.
    const topic2 = `${p}-two`;
    await source.createTopic(topic2, 3);
    await source.produce(topic2, records([0, 1, 2], 'two', 50));
    const ends2 = await sourceGroups.endOffsets(topic2);
    await sourceGroups.consume(
      group,
      [topic2],
      ends2.reduce((a, b) => a + b, 0),
    );
    await waitForFullSync(run, group, [`primary.${topic1}`, `primary.${topic2}`], 3);
    await run.stop();
    assert.equal(assertMonotonic(await targetGroups.checkpointLog('primary.checkpoints.internal', group)), undefined);
    assert.equal(await sourceGroups.topicExists(`backup.${topic1}`), false, 'one-way: nothing flows back');
  });

  test('an idle target group never moves backwards, while checkpoints follow a rewind on the source', async () => {
    const p = uniqueName('gsync-forward');
    const topic = `${p}-t`;
    const remote = `primary.${topic}`;
    const group = `${p}-app`;
    await source.createTopic(topic, 2);
    const { file } = await writePipeline({ flows: [syncingFlow(p)] });
    const run = await startPipeline(file);
    // Two rounds, each replicated before the group moves on: the offset syncs of the first round stay known.
    const firstEnds: number[] = [];
    for (const round of ['first', 'second']) {
      await source.produce(topic, records([0, 1], round, 40));
      const ends = await sourceGroups.endOffsets(topic);
      if (firstEnds.length === 0) firstEnds.push(...ends);
      await run.until(async () => (await target.count(remote)) >= ends[0]! + ends[1]!, { what: `the ${round} round in ${remote}` });
      await sourceGroups.commit(
        group,
        [0, 1].map((partition) => ({ topic, partition, offset: ends[partition]! })),
      );
      await waitForFullSync(run, group, [remote], 2);
    }
    // On the target the application got further on partition 0 than the source ever saw.
    const synced = await targetGroups.committed(group);
    const ahead = synced.get(`${remote}-0`)!.offset + 5;
    await targetGroups.commit(group, [{ topic: remote, partition: 0, offset: ahead }]);
    // The source group rewinds into the first round: checkpoints follow it back, the idle target group does not.
    const rewound = firstEnds.map((e) => e + 5);
    const before = await targetGroups.checkpoints('primary.checkpoints.internal', group);
    await sourceGroups.commit(
      group,
      [0, 1].map((partition) => ({ topic, partition, offset: rewound[partition]! })),
    );
    const after = await run.until(
      async () => {
        const cps = await targetGroups.checkpoints('primary.checkpoints.internal', group);
        return [0, 1].every((n) => cps.get(`${remote}-${n}`)?.upstreamOffset === rewound[n]) ? cps : undefined;
      },
      { what: 'the checkpoints to follow the rewind', intervalMs: 500 },
    );
    for (const n of [0, 1]) {
      assert.ok(after.get(`${remote}-${n}`)!.downstreamOffset < before.get(`${remote}-${n}`)!.downstreamOffset, `partition ${n}: the checkpoint rewound`);
    }
    const passes = run.statuses()[0]!.checkpoints.groupSync.passes;
    await run.until(() => run.statuses()[0]!.checkpoints.groupSync.passes >= passes + 2, { what: 'two more group syncs' });
    await run.stop();
    const offsets = await targetGroups.committed(group);
    assert.equal(offsets.get(`${remote}-0`)!.offset, ahead, 'partition 0 keeps the offset the target consumer committed');
    // Syncs may still move it forward (a later offset sync can translate the same position more
    // precisely), never back to the rewound checkpoint.
    assert.ok(offsets.get(`${remote}-1`)!.offset >= synced.get(`${remote}-1`)!.offset, 'partition 1 is not rewound');
    assert.ok(offsets.get(`${remote}-1`)!.offset > after.get(`${remote}-1`)!.downstreamOffset, 'partition 1 did not follow the rewound checkpoint');
  });
});
