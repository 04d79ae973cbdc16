/**
 * Checkpoints and offset translation against two real clusters (issue #3; as MM2's
 * `MirrorConnectorsIntegrationBaseTest`): checkpoints for every partition; a consumer moved to
 * the target at the translated offsets resumes at 0 < position <= end and misses no record;
 * failback; nothing for topics with nothing mirrored; offset syncs on the target; sources
 * written by a transactional producer; an empty partition.
 *
 * Record values are unique (`<partition>:<n>`), so a record read on the target can be matched to
 * its source record. Every topic and group carries the test's unique name (the clusters are shared).
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

/** A flow of test `p` with checkpoints every 500 ms for its own groups. */
/**
 * Records travel in the record batches they were fetched in (the default for flows without
 * transforms), so the offset syncs the translations rest on come from forwarded batches;
 * group-sync.test.ts covers the syncs of re-encoded records.
 */
function checkpointFlow(p: string, extra: Record<string, unknown> = {}): TestFlow {
  return {
    topics: [`${p}-.*`],
    batching: { forward_batches: true },
    offset_syncs: { lag_max: LAG_MAX },
    checkpoints: { interval_ms: 500, refresh_groups_interval_ms: 1000, groups: [`${p}-.*`] },
    ...extra,
  };
}

/** `count` records on each of `partitions`, valued `<partition>:<offset>` from offset `from`. */
function records(partitions: readonly number[], from: number, count: number): TestRecord[] {
  return partitions.flatMap((partition) =>
    Array.from({ length: count }, (_, i) => ({ partition, key: null, value: Buffer.from(`${partition}:${from + i}`), headers: [], timestamp: Date.now() })),
  );
}

async function waitForCheckpoints(
  run: RunningPipeline,
  kit: GroupKit,
  topic: string,
  group: string,
  expect: (cps: ReadonlyMap<string, Checkpoint>) => boolean,
  what: string,
): Promise<ReadonlyMap<string, Checkpoint>> {
  let last: ReadonlyMap<string, Checkpoint> = new Map();
  try {
    return await run.until(
      async () => {
        last = await kit.checkpoints(topic, group);
        return expect(last) ? last : undefined;
      },
      { what, timeoutMs: 60_000, intervalMs: 500 },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\nlast checkpoints: ${JSON.stringify([...last.values()])}`, { cause: error });
  }
}

describe('checkpoints and failover', () => {
  test('every partition gets a checkpoint; a consumer moved to the target resumes at 0 < position <= end and misses no record', async () => {
    const p = uniqueName('ckpt-failover');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    const group = `${p}-app`;
    const partitions = [0, 1, 2, 3];
    await source.createTopic(topic, partitions.length);
    await source.produce(topic, records(partitions, 0, 100));
    // The test producer is not idempotent and may write a record twice under load: count what is there.
    const ends = await sourceGroups.endOffsets(topic);
    // The application consumes everything on the source with a real consumer (kafkajs commits as it goes).
    await sourceGroups.consume(
      group,
      [topic],
      ends.reduce((a, b) => a + b, 0),
    );

    const { file } = await writePipeline({ flows: [checkpointFlow(p)] });
    const run = await startPipeline(file);
    const first = await waitForCheckpoints(
      run,
      targetGroups,
      'primary.checkpoints.internal',
      group,
      (cps) => partitions.every((n) => cps.get(`${remote}-${n}`)?.upstreamOffset === ends[n]),
      `checkpoints at the source's end for every partition of ${remote}`,
    );
    const targetEnds = await targetGroups.endOffsets(remote);
    for (const n of partitions) {
      const cp = first.get(`${remote}-${n}`)!;
      assert.ok(cp.downstreamOffset > 0 && cp.downstreamOffset <= targetEnds[n]!, `partition ${n}: 0 < ${cp.downstreamOffset} <= ${targetEnds[n]}`);
    }

    // The source keeps going; the application has processed 20 more records per partition when it fails over.
    await source.produce(topic, records(partitions, 100, 40));
    const positions = ends.map((e) => e + 20);
    await sourceGroups.commit(
      group,
      partitions.map((partition) => ({ topic, partition, offset: positions[partition]! })),
    );
    const sourceRecords = await source.readAll(topic);
    const total = [...sourceRecords.values()].reduce((a, list) => a + list.length, 0);
    await run.until(async () => (await target.count(remote)) >= total, { what: `${total} records in ${remote}` });
    // A new checkpoint is written only when the translation moves downstream (MM2's rule), which
    // depends on where offset syncs fell; so wait for passes, not for a particular checkpoint.
    const passes = run.statuses()[0]!.checkpoints.passes;
    await run.until(() => run.statuses()[0]!.checkpoints.passes >= passes + 3, { what: 'three checkpoint passes after the commit' });
    await run.stop();
    const translated = await targetGroups.checkpoints('primary.checkpoints.internal', group);

    // Failover: commit the translated offsets on the target (what `mirrorflow failover` or group sync does) and resume there.
    await targetGroups.commit(
      group,
      partitions.map((partition) => ({ topic: remote, partition, offset: translated.get(`${remote}-${partition}`)!.downstreamOffset })),
    );
    const endsAfter = await targetGroups.endOffsets(remote);
    const session = targetGroups.join(group, [remote]);
    try {
      await session.until(
        (seen) => partitions.every((n) => seen.some((r) => r.partition === n && r.value === `${n}:139`)),
        60_000,
        'the consumer on the target to reach the last record of every partition',
      );
    } finally {
      await session.leave();
    }
    const seen = session.records();
    const targetRecords = await target.readAll(remote);
    for (const n of partitions) {
      const mine = seen.filter((r) => r.partition === n);
      const position = Math.min(...mine.map((r) => r.offset));
      assert.equal(position, translated.get(`${remote}-${n}`)!.downstreamOffset, `partition ${n} resumed at the translated offset`);
      assert.ok(position > 0 && position <= endsAfter[n]!, `partition ${n}: 0 < ${position} <= ${endsAfter[n]}`);
      const got = new Set(mine.map((r) => r.value));
      const owed = sourceRecords
        .get(n)!
        .filter((r) => r.offset >= positions[n]!)
        .map((r) => r.value!.toString());
      assert.deepEqual(
        owed.filter((v) => !got.has(v)),
        [],
        `partition ${n}: no record at or after the source position is missed`,
      );
      // Re-read records (before the one holding the source position's record): allowed, and reported.
      const resumeValue = sourceRecords
        .get(n)!
        .find((r) => r.offset === positions[n])!
        .value!.toString();
      const exact = targetRecords.get(n)!.find((r) => r.value?.toString() === resumeValue)!.offset;
      assert.ok(exact >= position, `partition ${n}: resumed at ${position}, not after the record the source position holds (${exact})`);
    }
    assert.equal(assertMonotonic(await targetGroups.checkpointLog('primary.checkpoints.internal', group)), undefined);
  });

  test('failback: with flows both ways, groups on either cluster are checkpointed to the other', async () => {
    const p = uniqueName('ckpt-failback');
    const topic = `${p}-events`;
    const group = `${p}-app`;
    await source.createTopic(topic, 2);
    await target.createTopic(topic, 2);
    await source.produce(topic, records([0, 1], 0, 50));
    await target.produce(topic, records([0, 1], 0, 50));
    // The same application consumes its local topic on each cluster.
    await sourceGroups.commit(
      group,
      [0, 1].map((partition) => ({ topic, partition, offset: 50 })),
    );
    await targetGroups.commit(
      group,
      [0, 1].map((partition) => ({ topic, partition, offset: 50 })),
    );

    const { file } = await writePipeline({
      flows: [checkpointFlow(p), checkpointFlow(p, { source: 'backup', target: 'primary' })],
    });
    const run = await startPipeline(file);
    const onBackup = await waitForCheckpoints(
      run,
      targetGroups,
      'primary.checkpoints.internal',
      group,
      (cps) => cps.size === 2,
      `checkpoints of primary.${topic} on backup`,
    );
    const onPrimary = await waitForCheckpoints(
      run,
      sourceGroups,
      'backup.checkpoints.internal',
      group,
      (cps) => cps.size === 2,
      `checkpoints of backup.${topic} on primary`,
    );
    await run.stop();

    const backupEnds = await targetGroups.endOffsets(`primary.${topic}`);
    const primaryEnds = await sourceGroups.endOffsets(`backup.${topic}`);
    for (const n of [0, 1]) {
      const failover = onBackup.get(`primary.${topic}-${n}`)!;
      assert.ok(failover.downstreamOffset > 0 && failover.downstreamOffset <= backupEnds[n]!, `failover position of partition ${n}`);
      const failback = onPrimary.get(`backup.${topic}-${n}`)!;
      assert.ok(failback.downstreamOffset > 0 && failback.downstreamOffset <= primaryEnds[n]!, `failback position of partition ${n}`);
    }
  });

  test('no checkpoint for a topic with nothing mirrored, until records are', async () => {
    const p = uniqueName('ckpt-nothing');
    const data = `${p}-data`;
    const empty = `${p}-empty`;
    const group = `${p}-app`;
    await source.createTopic(data, 1);
    await source.createTopic(empty, 1);
    await source.produce(data, records([0], 0, 10));
    await sourceGroups.commit(group, [
      { topic: data, partition: 0, offset: 10 },
      { topic: empty, partition: 0, offset: 0 },
    ]);

    const { file } = await writePipeline({ flows: [checkpointFlow(p)] });
    const run = await startPipeline(file);
    await waitForCheckpoints(
      run,
      targetGroups,
      'primary.checkpoints.internal',
      group,
      (cps) => cps.has(`primary.${data}-0`),
      `a checkpoint for primary.${data}`,
    );
    // A few more passes, to be sure the empty topic is not just late.
    const status = () => run.statuses()[0]!.checkpoints;
    const passes = status().passes;
    await run.until(() => status().passes >= passes + 3, { what: 'three more checkpoint passes' });
    assert.equal((await targetGroups.checkpoints('primary.checkpoints.internal', group)).has(`primary.${empty}-0`), false);

    await source.produce(empty, records([0], 0, 5));
    await sourceGroups.commit(group, [{ topic: empty, partition: 0, offset: 5 }]);
    const cps = await waitForCheckpoints(
      run,
      targetGroups,
      'primary.checkpoints.internal',
      group,
      (c) => c.has(`primary.${empty}-0`),
      `a checkpoint for primary.${empty}`,
    );
    await run.stop();
    assert.equal(cps.get(`primary.${empty}-0`)!.upstreamOffset, 5);
  });

  test('offset syncs on the target: the syncs topic is made there and checkpoints still translate', async () => {
    const p = uniqueName('ckpt-synctarget');
    const topic = `${p}-t`;
    const group = `${p}-app`;
    await source.createTopic(topic, 2);
    await source.produce(topic, records([0, 1], 0, 30));
    await sourceGroups.commit(
      group,
      [0, 1].map((partition) => ({ topic, partition, offset: 30 })),
    );

    const { file } = await writePipeline({ flows: [checkpointFlow(p, { offset_syncs: { lag_max: LAG_MAX, location: 'target' } })] });
    const run = await startPipeline(file);
    const cps = await waitForCheckpoints(run, targetGroups, 'primary.checkpoints.internal', group, (c) => c.size === 2, `checkpoints for primary.${topic}`);
    await run.stop();
    assert.ok(await targetGroups.topicExists('mm2-offset-syncs.primary.internal'), 'mm2-offset-syncs.primary.internal is on the target');
    assert.equal(await targetGroups.partitions('mm2-offset-syncs.primary.internal'), 1);
    assert.equal(await targetGroups.topicConfig('mm2-offset-syncs.primary.internal', 'cleanup.policy'), 'compact');
    // This flow's syncs went to the target's topic, not to the source's.
    const onTarget = await target.readAll('mm2-offset-syncs.primary.internal');
    assert.ok(
      [...(onTarget.get(0) ?? [])].some((r) => r.key?.includes(Buffer.from(topic))),
      'syncs for the topic on the target',
    );
    if (await sourceGroups.topicExists('mm2-offset-syncs.backup.internal')) {
      const onSource = await source.readAll('mm2-offset-syncs.backup.internal');
      assert.ok(![...(onSource.get(0) ?? [])].some((r) => r.key?.includes(Buffer.from(topic))), 'no syncs for the topic on the source');
    }
    const ends = await targetGroups.endOffsets(`primary.${topic}`);
    for (const n of [0, 1]) assert.ok(cps.get(`primary.${topic}-${n}`)!.downstreamOffset <= ends[n]!);
    assert.equal(assertMonotonic(await targetGroups.checkpointLog('primary.checkpoints.internal', group)), undefined);
  });

  test('a source written by a transactional producer (offset gaps from markers and aborts) translates without skipping', async () => {
    const p = uniqueName('ckpt-tx');
    const topic = `${p}-tx`;
    const remote = `primary.${topic}`;
    const group = `${p}-app`;
    await source.createTopic(topic, 2);
    const tx = (n: number, commit: boolean) => ({
      commit,
      records: [0, 1].flatMap((partition) =>
        Array.from({ length: 7 }, (_, i) => ({
          partition,
          key: null,
          value: Buffer.from(`${commit ? 'c' : 'a'}${n}-${partition}-${i}`),
          headers: [],
          timestamp: Date.now(),
        })),
      ),
    });
    await source.produceTransactional(topic, [tx(1, true), tx(2, false), tx(3, true)]);
    // The application read everything committed: its position is the end, past the last marker.
    const ends = await sourceGroups.endOffsets(topic);
    await sourceGroups.commit(
      group,
      [0, 1].map((partition) => ({ topic, partition, offset: ends[partition]! })),
    );

    const { file } = await writePipeline({ flows: [checkpointFlow(p)] });
    const run = await startPipeline(file);
    const cps = await waitForCheckpoints(
      run,
      targetGroups,
      'primary.checkpoints.internal',
      group,
      (c) => [0, 1].every((n) => c.get(`${remote}-${n}`)?.upstreamOffset === ends[n]),
      `checkpoints at the source's end for both partitions of ${remote}`,
    );
    const targetEnds = await targetGroups.endOffsets(remote);
    for (const n of [0, 1]) {
      const cp = cps.get(`${remote}-${n}`)!;
      assert.ok(
        cp.downstreamOffset > 0 && cp.downstreamOffset <= targetEnds[n]!,
        `partition ${n}: 0 < ${cp.downstreamOffset} <= ${targetEnds[n]} (source end ${ends[n]})`,
      );
    }

    // More transactions after the application's position; it fails over and must see every committed one.
    await source.produceTransactional(topic, [tx(4, false), tx(5, true)]);
    await run.until(async () => (await target.count(remote)) >= targetEnds[0]! + targetEnds[1]! + 14, { what: `transaction 5 in ${remote}` });
    await run.stop();
    await targetGroups.commit(
      group,
      [0, 1].map((partition) => ({ topic: remote, partition, offset: cps.get(`${remote}-${partition}`)!.downstreamOffset })),
    );
    const seen = await targetGroups.consume(group, [remote], 14);
    const values = new Set(seen.map((r) => r.value));
    const owed = [0, 1].flatMap((partition) => Array.from({ length: 7 }, (_, i) => `c5-${partition}-${i}`));
    assert.deepEqual(
      owed.filter((v) => !values.has(v)),
      [],
      'every committed record after the position is read on the target',
    );
    assert.ok(![...values].some((v) => v.startsWith('a')), 'no aborted record was replicated');
  });

  test('an empty partition gets no checkpoint, and the target group keeps offset 0 for it through group syncs', async () => {
    const p = uniqueName('ckpt-emptypart');
    const topic = `${p}-t`;
    const remote = `primary.${topic}`;
    const group = `${p}-app`;
    await source.createTopic(topic, 4);
    await source.produce(topic, records([0, 1, 2], 0, 20));
    // Committed as a Java consumer does after reading everything: the empty partition at 0.
    await sourceGroups.commit(
      group,
      [0, 1, 2, 3].map((partition) => ({ topic, partition, offset: partition === 3 ? 0 : 20 })),
    );

    const { file } = await writePipeline({
      flows: [
        checkpointFlow(p, {
          checkpoints: { interval_ms: 500, refresh_groups_interval_ms: 1000, groups: [`${p}-.*`], sync_group_offsets: { enabled: true, interval_ms: 500 } },
        }),
      ],
    });
    const run = await startPipeline(file);
    await run.until(
      async () => {
        const synced = await targetGroups.committed(group);
        return [0, 1, 2].every((n) => synced.has(`${remote}-${n}`));
      },
      { what: `the group's offsets synced to ${remote}` },
    );
    // The application moves to the target; its (Java) consumer commits position 0 for the empty partition.
    await targetGroups.commit(group, [{ topic: remote, partition: 3, offset: 0 }]);
    const passes = run.statuses()[0]!.checkpoints.groupSync.passes;
    await run.until(() => run.statuses()[0]!.checkpoints.groupSync.passes >= passes + 2, { what: 'two more group syncs' });
    await run.stop();

    const cps = await targetGroups.checkpoints('primary.checkpoints.internal', group);
    assert.deepEqual(
      [...cps.keys()].sort(),
      [0, 1, 2].map((n) => `${remote}-${n}`),
    );
    const offsets = await targetGroups.committed(group);
    assert.equal(offsets.get(`${remote}-3`)?.offset, 0, 'offset of the empty partition is 0');
    for (const n of [0, 1, 2]) assert.equal(offsets.get(`${remote}-${n}`)?.offset, cps.get(`${remote}-${n}`)!.downstreamOffset);
  });
});
