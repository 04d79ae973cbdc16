/**
 * Checkpoints across restarts and rewinds (issue #3; as MM2's integration tests
 * `testRestartReplication`, `testOffsetTranslationBehindReplicationFlow`): a restarted pipeline
 * loads the checkpoints it wrote and never writes one behind them; checkpoints advance when the
 * source group advances and follow it back when it rewinds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline, type TestFlow } from '../support/pipeline-harness';
import { GroupKit, assertMonotonic, openCheckpointKits } from './checkpoint-kit';
import type { Checkpoint } from '../../src/formats';
import { useKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
let sourceGroups: GroupKit;
let targetGroups: GroupKit;
useKits(openCheckpointKits, (kits) => ({ source, target, sourceGroups, targetGroups } = kits));

const LAG_MAX = 10;
const CHECKPOINTS = 'primary.checkpoints.internal';

function flow(p: string, syncGroups: boolean): TestFlow {
  return {
    topics: [`${p}-.*`],
    offset_syncs: { lag_max: LAG_MAX },
    checkpoints: { interval_ms: 500, refresh_groups_interval_ms: 1000, groups: [`${p}-.*`], sync_group_offsets: { enabled: syncGroups, interval_ms: 500 } },
  };
}

function records(partitions: readonly number[], label: string, count: number): TestRecord[] {
  return partitions.flatMap((partition) =>
    Array.from({ length: count }, (_, i) => ({ partition, key: null, value: Buffer.from(`${label}:${partition}:${i}`), headers: [], timestamp: Date.now() })),
  );
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** Checkpoints of `group` that satisfy `check` for every partition of `remote`. */
async function waitForCheckpoints(
  run: RunningPipeline,
  group: string,
  remote: string,
  partitions: number,
  check: (cp: Checkpoint, partition: number) => boolean,
  what: string,
): Promise<Map<number, Checkpoint>> {
  return run.until(
    async () => {
      const cps = await targetGroups.checkpoints(CHECKPOINTS, group);
      const out = new Map<number, Checkpoint>();
      for (let n = 0; n < partitions; n++) {
        const cp = cps.get(`${remote}-${n}`);
        if (cp === undefined || !check(cp, n)) return undefined;
        out.set(n, cp);
      }
      return out;
    },
    { what, timeoutMs: 60_000, intervalMs: 500 },
  );
}

describe('checkpoints across restarts and rewinds', () => {
  test('a restarted pipeline keeps checkpoints monotonic and syncs the group to the new end', async () => {
    const p = uniqueName('ckpt-restart');
    const topic = `${p}-t`;
    const remote = `primary.${topic}`;
    const group = `${p}-app`;
    await source.createTopic(topic, 3);
    await source.produce(topic, records([0, 1, 2], 'first', 100));
    const firstEnds = await sourceGroups.endOffsets(topic);
    await sourceGroups.consume(group, [topic], sum(firstEnds));

    const { file } = await writePipeline({ flows: [flow(p, true)] });
    const first = await startPipeline(file);
    const before = await waitForCheckpoints(first, group, remote, 3, (cp, n) => cp.upstreamOffset === firstEnds[n], 'checkpoints at the first end');
    await first.stop();

    // While stopped, more records; then a restart.
    await source.produce(topic, records([0, 1, 2], 'second', 100));
    const ends = await sourceGroups.endOffsets(topic);
    const second = await startPipeline(file);
    await second.until(async () => (await target.count(remote)) >= sum(ends), { what: `${sum(ends)} records in ${remote}` });
    await sourceGroups.consume(group, [topic], sum(ends) - sum(firstEnds));
    const afterRestart = await waitForCheckpoints(second, group, remote, 3, (cp, n) => cp.upstreamOffset === ends[n], 'checkpoints at the new end');
    await second.until(
      async () => {
        const synced = await targetGroups.committed(group);
        const targetEnds = await targetGroups.endOffsets(remote);
        return [0, 1, 2].every((n) => {
          const o = synced.get(`${remote}-${n}`)?.offset;
          return o !== undefined && o > targetEnds[n]! - 1 - LAG_MAX && o <= targetEnds[n]!;
        });
      },
      { what: 'the target group synced to the new end', intervalMs: 500 },
    );
    await second.stop();
    const loaded = second.logs.find((l) => l.message === 'Checkpoints loaded.');
    assert.ok(loaded !== undefined && (loaded.meta['groups'] as number) >= 1, 'the restarted flow loaded the checkpoints it had written');

    for (const n of [0, 1, 2]) assert.ok(afterRestart.get(n)!.downstreamOffset > before.get(n)!.downstreamOffset);
    const log = await targetGroups.checkpointLog(CHECKPOINTS, group);
    assert.equal(assertMonotonic(log), undefined);
    // Nothing behind the last checkpoint before the restart was written after it (MM2 asserts plain monotonicity here).
    const last = new Map<string, number>();
    for (const cp of log) {
      const key = `${cp.topicPartition.topic}-${cp.topicPartition.partition}`;
      assert.ok(cp.downstreamOffset >= (last.get(key) ?? 0), `${key}: ${cp.downstreamOffset} after ${last.get(key)}`);
      last.set(key, cp.downstreamOffset);
    }
  });

  test('checkpoints advance with the source group and follow it back when it rewinds (testOffsetTranslationBehindReplicationFlow)', async () => {
    const p = uniqueName('ckpt-behind');
    const topic = `${p}-t`;
    const remote = `primary.${topic}`;
    const group = `${p}-app`;
    await source.createTopic(topic, 3);
    const { file } = await writePipeline({ flows: [flow(p, true)] });
    const run = await startPipeline(file);

    // An initial checkpoint.
    await source.produce(topic, records([0, 1, 2], 'initial', 50));
    const initialEnds = await sourceGroups.endOffsets(topic);
    await sourceGroups.commit(
      group,
      [0, 1, 2].map((partition) => ({ topic, partition, offset: initialEnds[partition]! })),
    );
    const initial = await waitForCheckpoints(run, group, remote, 3, (cp, n) => cp.upstreamOffset === initialEnds[n], 'the initial checkpoints');

    // Many more records, all replicated in this lifetime.
    for (let i = 1; i < 20; i++) await source.produce(topic, records([0, 1, 2], `more${i}`, 50));
    const ends = await sourceGroups.endOffsets(topic);
    await run.until(async () => (await target.count(remote)) >= sum(ends), { what: `${sum(ends)} records in ${remote}` });

    const at = (fraction: number) => ends.map((e) => Math.floor(e * fraction));
    const ninety = at(0.9);
    await sourceGroups.commit(
      group,
      [0, 1, 2].map((partition) => ({ topic, partition, offset: ninety[partition]! })),
    );
    const partial = await waitForCheckpoints(run, group, remote, 3, (cp, n) => cp.upstreamOffset === ninety[n], 'checkpoints at 90%');
    for (const n of [0, 1, 2]) assert.ok(initial.get(n)!.downstreamOffset < partial.get(n)!.downstreamOffset, 'checkpoints advance with the group');

    const ten = at(0.1);
    await sourceGroups.commit(
      group,
      [0, 1, 2].map((partition) => ({ topic, partition, offset: ten[partition]! })),
    );
    const rewound = await waitForCheckpoints(run, group, remote, 3, (cp, n) => cp.upstreamOffset === ten[n], 'checkpoints at 10%');
    await run.stop();
    for (const n of [0, 1, 2]) {
      assert.ok(rewound.get(n)!.downstreamOffset < partial.get(n)!.downstreamOffset, `partition ${n}: checkpoints rewind when the group rewinds`);
      assert.ok(rewound.get(n)!.downstreamOffset <= ten[n]!, `partition ${n}: the rewound checkpoint is not ahead of the group`);
    }
  });
});
