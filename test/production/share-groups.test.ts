/**
 * Share groups (KIP-932) synced between three-broker clusters, whose share groups are coordinated
 * by different nodes: mirrorflow describes the target's groups with one ShareGroupDescribe per
 * coordinator, and reads and sets each group's start offsets at its own coordinator.
 *
 * - Kafka's Java producer writes the source topic; Kafka's KafkaShareConsumer
 *   (test/interop/java/ShareGroupConsumer.java) accepts part of it in each of ten share groups
 *   and stops. `kafka-share-groups --describe --state` says which node coordinates each group:
 *   on each cluster at least two nodes do, or the test would prove nothing of sending each group
 *   to its own coordinator.
 * - mirrorflow runs with `sync_group_offsets` on: every group is `synced` in /status, and each
 *   one's start offsets on the target are those Kafka reports on the source, translated.
 * - After the failover (mirrorflow stopped), two groups whose coordinators on the target differ
 *   start there exactly at their synced start offsets: each is delivered exactly the records from
 *   its source start offset to the end.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { StatusDocument } from '../../src/telemetry';
import { JavaShareConsumers, type ShareConsumerRun } from '../interop/share-group-consumer';
import { uniqueName, waitFor } from '../support/clusters';
import { exited } from '../support/fault-load';
import { shareGroupCoordinators, shareGroupStartOffsets } from '../support/kafka-admin-tools';
import { ownClusters } from '../support/own-clusters';
import { httpAddress, spawnPipeline } from '../support/pipeline-harness';
import { PRODUCTION_BROKERS, PRODUCTION_CLUSTERS, productionPipeline, seconds, startNumberedProducer } from '../support/production-load';

const clusters = ownClusters(['src', 'dst'], PRODUCTION_CLUSTERS);
const PARTITIONS = 3;
const RECORDS = 300;
/** Enough groups that, hashed over `__consumer_offsets`, their coordinators land on more than one node. */
const GROUPS = 10;
/** Java share consumers run at once (a JVM each, on top of six brokers). */
const CONSUMERS_AT_ONCE = 3;

let java: JavaShareConsumers;
before(async () => {
  java = await JavaShareConsumers.compile();
});
after(() => java?.dispose());

type GroupRow = NonNullable<StatusDocument['flows'][number]['checkpoints']['groupStates']>[number];

/** `fn` of every item, at most `atOnce` at a time; results in the items' order. */
async function inTurns<T, R>(items: readonly T[], atOnce: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return results;
}

/** The nodes coordinating `groups`, with how many each. */
function nodesOf(coordinators: ReadonlyMap<string, number>, groups: readonly string[]): Map<number, number> {
  const nodes = new Map<number, number>();
  for (const g of groups) {
    const node = coordinators.get(g);
    assert.ok(node !== undefined, `kafka-share-groups names a coordinator of ${g}: ${JSON.stringify([...coordinators])}`);
    nodes.set(node, (nodes.get(node) ?? 0) + 1);
  }
  return nodes;
}

test('share groups coordinated by different nodes are synced to a three-broker target and resume there after a failover', async (t) => {
  const began = Date.now();
  const phases: string[] = [];
  const mark = (what: string): void => void phases.push(`${what} ${seconds(Date.now() - began)}`);
  const bootstrap = clusters.bootstrapServers();
  const p = uniqueName('share');
  const topic = `${p}-jobs`;
  const remote = `src.${topic}`;
  const groups = Array.from({ length: GROUPS }, (_, i) => `${p}-g${i}`);
  await clusters.kit('src').createTopic(topic, PARTITIONS);

  const producer = await startNumberedProducer({ bootstrap: bootstrap.src, topic, partitions: PARTITIONS, rate: 300 });
  await producer.writes(RECORDS);
  const produced = await producer.stop();
  assert.equal(produced.failed, 0, 'the Java producer wrote every record');
  const ends = await clusters.kit('src').endOffsets(topic);

  // The applications on the source: each group accepts a different number of records from the
  // beginning, releases the rest of its last poll, and stops.
  const firstRuns = await inTurns(groups, CONSUMERS_AT_ONCE, (group) =>
    java.consume({ bootstrap: bootstrap.src, group, topics: [topic], reset: 'earliest', max: 12 + 9 * groups.indexOf(group) }),
  );
  for (const [i, run] of firstRuns.entries()) {
    assert.equal(run.records.length, 12 + 9 * i, `${groups[i]} accepted what it was told to`);
    // From the beginning, in order: the start offset Kafka reports is right after what it accepted there.
    assert.deepEqual(
      Array.from({ length: PARTITIONS }, (_, partition) => run.startOffsets[`${topic}-${partition}`]),
      Array.from({ length: PARTITIONS }, (_, partition) => run.partitions[`${topic}-${partition}`]?.count ?? 0),
      `${groups[i]}'s start offsets on the source: ${JSON.stringify(run.startOffsets)}, accepted: ${JSON.stringify(run.partitions)}`,
    );
  }

  mark('source groups done');
  // The precondition: the groups' coordinators on the source are not all one node.
  const sourceCoordinators = await shareGroupCoordinators(bootstrap.src);
  const sourceNodes = nodesOf(sourceCoordinators, groups);
  t.diagnostic(`source coordinators (node: groups): ${JSON.stringify([...sourceNodes])}`);
  assert.ok(sourceNodes.size >= 2, `the source's share groups have coordinators on several nodes: ${JSON.stringify([...sourceNodes])}`);

  const { file } = await productionPipeline(bootstrap, topic, {
    // A sync per record: translation is exact wherever a group sits.
    batching: { max_records: 500, forward_batches: false },
    offset_syncs: { lag_max: 0 },
    checkpoints: {
      replication_factor: PRODUCTION_BROKERS,
      interval_ms: 500,
      refresh_groups_interval_ms: 1000,
      groups: [`${p}-.*`],
      sync_group_offsets: { enabled: true, interval_ms: 500 },
    },
  });
  const mirrorflow = spawnPipeline(file);
  let stopped = false;
  t.after(() => {
    if (!stopped) mirrorflow.kill('SIGKILL');
  });
  const address = await httpAddress(mirrorflow, 90_000);
  mark('mirrorflow up');
  const states = async (): Promise<Map<string, GroupRow>> => {
    const doc = (await (await fetch(`${address}/status`)).json()) as StatusDocument;
    return new Map((doc.flows[0]?.checkpoints.groupStates ?? []).map((g) => [g.group, g]));
  };
  const until = async <T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 90_000): Promise<T> => {
    try {
      // waitFor takes a throw for "not yet": mirrorflow's end ends the wait, and fails it after.
      const found = await waitFor(async () => (exited(mirrorflow) ? { ended: true as const } : ((await check()) ?? undefined)), {
        what,
        timeoutMs,
        intervalMs: 500,
      });
      if (typeof found === 'object' && 'ended' in found) throw new Error(`mirrorflow ended while waiting for ${what}`);
      return found as T;
    } catch (error) {
      throw new Error(`${(error as Error).message}\nmirrorflow stderr:\n${mirrorflow.stderr().slice(-4000)}`, { cause: error });
    }
  };
  const allSynced = async (): Promise<Map<string, GroupRow> | undefined> => {
    const s = await states();
    // Synced with every partition translated: while the records are being copied, some are not yet.
    return groups.every((g) => s.get(g)?.state === 'synced' && s.get(g)?.partitions === PARTITIONS && s.get(g)?.translated === PARTITIONS) ? s : undefined;
  };
  /** Each group's start offsets on the target, named as on the source. */
  const onTarget = async (of: readonly string[] = groups): Promise<Map<string, Map<string, number>>> => {
    const read = await shareGroupStartOffsets(bootstrap.dst, of);
    return new Map(of.map((g) => [g, new Map([...(read.get(g) ?? new Map<string, number>())].map(([tp, o]) => [tp.replace(remote, topic), o]))]));
  };
  const onSource = async (): Promise<Map<string, Map<string, number>>> => {
    const read = await shareGroupStartOffsets(bootstrap.src, groups);
    return new Map(groups.map((g) => [g, read.get(g) ?? new Map<string, number>()]));
  };
  const sorted = (offsets: ReadonlyMap<string, number> | undefined): [string, number][] => [...(offsets ?? [])].sort();

  await until(allSynced, `all ${GROUPS} share groups synced, on every partition`);
  const [firstSource, firstTarget] = [await onSource(), await onTarget()];
  for (const [i, g] of groups.entries()) {
    // kafka-share-groups reads what the Java consumer was told at its end.
    assert.deepEqual(sorted(firstSource.get(g)), Object.entries(firstRuns[i]!.startOffsets).sort(), `${g}'s start offsets on the source`);
    assert.deepEqual(sorted(firstTarget.get(g)), sorted(firstSource.get(g)), `${g}: the target holds the source's start offsets, translated`);
  }

  mark('synced, compared');
  // The same precondition on the target, whose groups the sync created.
  const targetCoordinators = await shareGroupCoordinators(bootstrap.dst);
  const targetNodes = nodesOf(targetCoordinators, groups);
  t.diagnostic(`target coordinators (node: groups): ${JSON.stringify([...targetNodes])}`);
  assert.ok(targetNodes.size >= 2, `the target's share groups have coordinators on several nodes: ${JSON.stringify([...targetNodes])}`);

  stopped = true;
  mirrorflow.kill('SIGTERM');
  const end = await mirrorflow.exited;
  assert.equal(end.code, 0, `a SIGTERM ends mirrorflow cleanly; stderr:\n${end.stderr.slice(-2000)}`);

  // The failover: two groups whose coordinators on the target differ start there exactly at
  // their synced start offsets, the source's.
  const resuming = [groups[0]!, groups.find((g) => targetCoordinators.get(g) !== targetCoordinators.get(groups[0]!))!];
  const resumed: ShareConsumerRun[] = await Promise.all(
    resuming.map((group) => java.consume({ bootstrap: bootstrap.dst, group, topics: [remote], toEnd: true, timeoutMs: 90_000 })),
  );
  for (const [i, group] of resuming.entries()) {
    for (const [partition, endOffset] of ends.entries()) {
      const start = firstSource.get(group)!.get(`${topic}-${partition}`)!;
      const delivered = resumed[i]!.records.filter((r) => r.partition === partition)
        .map((r) => r.offset)
        .sort((a, b) => a - b);
      assert.deepEqual(
        delivered,
        Array.from({ length: endOffset - start }, (_, n) => start + n),
        `${group} (coordinator ${targetCoordinators.get(group)}) on the target, partition ${partition}: from its synced start offset ${start} to the end ${endOffset}, once each`,
      );
    }
  }
  mark('failover checked');
  t.diagnostic(`phases: ${phases.join(', ')}`);
});
