/**
 * Active-active with kept topic names (docs/active-active.md), on three single-broker clusters of
 * this file's own: provenance headers let the identity policy run both ways (a link) and round a
 * ring of three without a record coming back, a diamond writes each record once, and a consumer
 * group fails over between the two sides of a link without missing a record; an mm2.properties
 * file with both directions runs the same with Confluent Replicator's `provenance.header.enable`.
 *
 * Kafka's Java producer writes numbered records on every cluster while the pipeline runs, and
 * mirrorflow's own writer adds records that test the edges (repeated header keys, null header
 * values, a producer's header of the provenance header's name, null keys, tombstones). The verdict
 * reads every cluster whole: each record produced anywhere is on every cluster exactly once, the
 * same as where it was produced (key, value, headers in order, timestamp, partition) but for the
 * provenance header at the end, whose path and origin offset are right; and the counts stay put
 * once the producers stop. Each test names the clusters with aliases of its own, so the
 * heartbeats and checkpoints topics of one test are not another's.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import type { KafkaRecord } from '../../src/core/record';
import { PROVENANCE_HEADER, decodeProvenance, lastProvenanceHeader } from '../../src/formats';
import { createKafkaClients, plaintextConnection } from '../../src/pipeline';
import { MirrorClient } from '../../src/pipeline/tools';
import { IdentityReplicationPolicy } from '../../src/policy';
import { silentLogger } from '../../src/core/ports/logger';
import { statusDocument } from '../../src/telemetry/status-document';
import { Metrics } from '../../src/telemetry/metrics';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { runCli, scratchDir, startPipeline, writePipeline, type RunningPipeline, type TestFlow, type TestLink } from '../support/pipeline-harness';
import { startNumberedProducer, type NumberedProducer } from '../support/production-load';
import { RemoteClusterUtilsProbe } from '../interop/remote-cluster-utils-probe';

type Physical = 'a' | 'b' | 'c';
const clusters = ownClusters<Physical>(['a', 'b', 'c']);

const PARTITIONS = 3;
/** Records each Java producer writes (at least): enough for many fetches, batches and offset syncs. */
const PER_PRODUCER = 900;
const T0 = 1_600_000_000_000;

let probe: RemoteClusterUtilsProbe;
before(async () => {
  probe = await RemoteClusterUtilsProbe.compile();
});
after(() => probe?.dispose());

/** Fast internal timers: heartbeats, checkpoints and group discovery every second or less. */
const FAST = {
  replication_policy: { type: 'identity' },
  heartbeats: { interval_ms: 500 },
  checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000 },
};

/** One cluster of a test: its alias there, the physical cluster and a kit on it. */
interface Side {
  readonly alias: string;
  readonly physical: Physical;
  readonly kit: KafkaKit;
}

function sides(...physical: Physical[]): Side[] {
  return physical.map((p) => ({ alias: uniqueName(p), physical: p, kit: clusters.kit(p) }));
}

function bootstraps(list: readonly Side[]): Record<string, string> {
  return Object.fromEntries(list.map((s) => [s.alias, clusters.bootstrap(s.physical)]));
}

/** Records that test the edges of byte fidelity, produced on one cluster by mirrorflow's writer. */
function edgeRecords(label: string): TestRecord[] {
  return [
    {
      partition: 0,
      key: Buffer.from(`${label}-dup`),
      value: Buffer.from('repeated header keys, a null and an empty value'),
      headers: [
        { key: 'h', value: Buffer.from('1') },
        { key: 'h', value: null },
        { key: 'h', value: Buffer.from('2') },
        { key: '', value: Buffer.alloc(0) },
      ],
      timestamp: T0,
    },
    // The producer's own header of the provenance header's name, not last: the producer's.
    {
      partition: 1,
      key: null,
      value: Buffer.alloc(0),
      headers: [
        { key: PROVENANCE_HEADER, value: Buffer.from('1|x>y|t|0|0') },
        { key: 'after', value: Buffer.from(label) },
      ],
      timestamp: T0 + 1,
    },
    { partition: 2, key: Buffer.from(`${label}-tombstone`), value: null, headers: [], timestamp: T0 + 2 },
  ];
}

/** A record on one cluster and where it was produced (its own place when it carries no provenance header). */
interface Held {
  readonly record: KafkaRecord;
  /** `cluster/partition/offset` of the record as produced. */
  readonly origin: string;
  /** Clusters the copy passed, origin first, this one last; just this one for a record produced here. */
  readonly path: readonly string[];
  readonly originTopic: string;
}

async function holdings(side: Side, topic: string): Promise<Held[]> {
  const records = await side.kit.readAllFlat(topic);
  return records.map((record) => {
    const header = lastProvenanceHeader(record.headers);
    const p = header === undefined ? undefined : decodeProvenance(header.value!);
    return p === undefined
      ? { record, origin: `${side.alias}/${record.partition}/${record.offset}`, path: [side.alias], originTopic: topic }
      : { record, origin: `${p.clusters[0]}/${p.partition}/${p.offset}`, path: p.clusters, originTopic: p.topic };
  });
}

/**
 * Every record produced on any side is on every side once, as produced but for the provenance
 * header at its end, whose path `pathOf(origin, holder)` allows. Returns the records produced per side.
 */
async function assertEverywhereOnce(
  all: readonly Side[],
  topic: string,
  pathOk: (path: readonly string[], holder: string) => boolean,
): Promise<Map<string, number>> {
  const held = new Map<string, Held[]>();
  for (const side of all) held.set(side.alias, await holdings(side, topic));
  const produced = new Map<string, KafkaRecord>();
  const perSide = new Map<string, number>();
  for (const [alias, list] of held) {
    const own = list.filter((h) => h.path.length === 1);
    perSide.set(alias, own.length);
    for (const h of own) produced.set(h.origin, h.record);
  }
  for (const [alias, list] of held) {
    const origins = list.map((h) => h.origin);
    const repeated = origins.filter((o, i) => origins.indexOf(o) !== i);
    assert.deepEqual(repeated.slice(0, 5), [], `${alias}: records held twice`);
    const missing = [...produced.keys()].filter((o) => !origins.includes(o));
    assert.deepEqual(missing.slice(0, 5), [], `${alias}: ${missing.length} records missing`);
    assert.equal(list.length, produced.size, `${alias}: every record produced anywhere, and nothing else`);
    for (const h of list) {
      if (h.path.length === 1) continue;
      const source = produced.get(h.origin)!;
      assert.ok(source, `${alias}: a copy of ${h.origin}, which was never produced`);
      assert.ok(pathOk(h.path, alias), `${alias}: ${h.origin} came by ${h.path.join('>')}`);
      assert.equal(h.path.at(-1), alias);
      assert.equal(h.originTopic, topic);
      const { record } = h;
      assert.deepEqual(
        { partition: record.partition, key: record.key, value: record.value, timestamp: record.timestamp, headers: record.headers.slice(0, -1) },
        { partition: source.partition, key: source.key, value: source.value, timestamp: source.timestamp, headers: source.headers },
        `${alias}: the copy of ${h.origin}`,
      );
      assert.equal(record.headers.at(-1)!.key, PROVENANCE_HEADER);
    }
  }
  return perSide;
}

/** Java producers on each side, with the edge records, until each has written PER_PRODUCER. */
async function produceEverywhere(all: readonly Side[], topic: string): Promise<void> {
  const producers: NumberedProducer[] = [];
  try {
    for (const side of all) {
      producers.push(
        await startNumberedProducer({ bootstrap: clusters.bootstrap(side.physical), topic, partitions: PARTITIONS, rate: 300, label: side.alias }),
      );
      await side.kit.produce(topic, edgeRecords(side.alias));
    }
    await Promise.all(producers.map((p) => p.writes(PER_PRODUCER)));
  } finally {
    const results = await Promise.allSettled(producers.map((p) => p.stop()));
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }
}

async function createEverywhere(all: readonly Side[], topic: string, partitions = PARTITIONS): Promise<void> {
  for (const side of all) await side.kit.createTopic(topic, partitions);
}

const ends = async (all: readonly Side[], topic: string): Promise<number[][]> => Promise.all(all.map((s) => s.kit.endOffsets(topic)));

/**
 * Waits until every side holds `total` records and every flow has read everything, then until
 * each flow wrote a few more heartbeats: the counts must not have moved meanwhile.
 */
async function settledAt(run: RunningPipeline, all: readonly Side[], topic: string, total: number): Promise<void> {
  await run.until(
    async () => {
      const counts = await Promise.all(all.map((s) => s.kit.count(topic)));
      return counts.every((n) => n === total) && run.statuses().every((s) => s.lag === 0);
    },
    { what: `${total} records of ${topic} on every cluster, every flow caught up`, timeoutMs: 120_000 },
  );
  const before = await ends(all, topic);
  const beats = run.statuses().map((s) => s.heartbeats.written);
  await run.until(() => run.statuses().every((s, i) => s.heartbeats.written >= beats[i]! + 4), { what: 'four more heartbeats per flow', timeoutMs: 30_000 });
  assert.deepEqual(await ends(all, topic), before, 'nothing is copied any more once everything was copied');
}

describe('active-active with kept topic names', () => {
  test('a link: both ways, every record on both once and as produced; heartbeats without loops; a group fails over without missing a record', async () => {
    const [west, east] = sides('a', 'b') as [Side, Side];
    const topic = uniqueName('aa-orders');
    const group = uniqueName('aa-app');
    await createEverywhere([west, east], topic);
    const link: TestLink = { clusters: [west.alias, east.alias], topics: [topic, 'heartbeats'], ...FAST };
    const { file } = await writePipeline({ sharedClusters: false, clusters: bootstraps([west, east]), flows: [], links: [link] });
    const run = await startPipeline(file);
    try {
      await produceEverywhere([west, east], topic);
      const natives = await Promise.all(
        [west, east].map(async (s) => (await s.kit.readAllFlat(topic)).filter((r) => lastProvenanceHeader(r.headers) === undefined).length),
      );
      await settledAt(run, [west, east], topic, natives[0]! + natives[1]!);
      const produced = await assertEverywhereOnce([west, east], topic, (path) => path.length === 2);
      assert.ok(produced.get(west.alias)! >= PER_PRODUCER && produced.get(east.alias)! >= PER_PRODUCER);

      // Each flow read every copy of the other side's records back and left it there.
      const [toEast, toWest] = run.statuses();
      assert.equal(toEast!.provenance!.loops, produced.get(east.alias));
      assert.equal(toWest!.provenance!.loops, produced.get(west.alias));
      assert.equal(toEast!.recordBatchesForwarded, 0, 'records carrying the header are encoded again');
      assert.equal(toEast!.recordsDropped, 0);

      // Heartbeats: each side's on the other, renamed as MM2 names them, never back again.
      const ours = async (side: Side) =>
        [...(await side.kit.topics()).keys()].filter((t) => t.endsWith('heartbeats') && (t.includes(west.alias) || t.includes(east.alias))).sort();
      await run.until(async () => (await ours(east)).includes(`${west.alias}.heartbeats`) && (await ours(west)).includes(`${east.alias}.heartbeats`), {
        what: 'the heartbeats topics copied',
        timeoutMs: 30_000,
      });

      // A group that read about half of each partition on west, and stopped there.
      const consumed = (await west.kit.endOffsets(topic)).map((end) => Math.floor(end / 2));
      const admin = createKafkaClients([plaintextConnection(west.alias, clusters.bootstrap('a'))], silentLogger, 'aa-test');
      try {
        await firstValueFrom(
          admin.admin(west.alias).commitGroupOffsets(
            group,
            consumed.map((offset, partition) => ({ topic, partition, offset, metadata: '' })),
          ),
        );
      } finally {
        await admin.close();
      }
      const east$ = createKafkaClients([plaintextConnection(east.alias, clusters.bootstrap('b'))], silentLogger, 'aa-test');
      try {
        const mirror = new MirrorClient({ admin: east$.admin(east.alias), reader: east$.reader(east.alias), policy: new IdentityReplicationPolicy() });
        await run.until(
          async () => {
            const offsets = await mirror.remoteConsumerOffsets(group, west.alias);
            return offsets.length === PARTITIONS && offsets.every((o) => o.upstreamOffset === consumed[o.partition]);
          },
          { what: `checkpoints of ${group} on ${east.alias}`, timeoutMs: 60_000 },
        );
      } finally {
        await east$.close();
      }
      await run.stop();
      assert.deepEqual(await ours(east), [`${west.alias}.heartbeats`]);
      assert.deepEqual(await ours(west), [`${east.alias}.heartbeats`]);

      // MM2's own client reads the heartbeats with the identity policy: one hop each way, no more.
      const onEast = await probe.ask({
        bootstrap: clusters.bootstrap('b'),
        remote: west.alias,
        groups: [group],
        hops: [west.alias, east.alias],
        policy: 'identity',
      });
      assert.deepEqual(onEast.replicationHops, { [west.alias]: 1, [east.alias]: -1 });
      const onWest = await probe.ask({ bootstrap: clusters.bootstrap('a'), remote: east.alias, hops: [west.alias, east.alias], policy: 'identity' });
      assert.deepEqual(onWest.replicationHops, { [west.alias]: -1, [east.alias]: 1 });
      // Translated onto the same topic name.
      const translated = onEast.translateOffsets[group];
      assert.ok(Array.isArray(translated) && translated.length === PARTITIONS, JSON.stringify(translated));
      assert.ok(translated.every((o) => o.topic === topic));

      // The failover, as an operator runs it; then the group reads east from there.
      const failover = await runCli(['failover', file, '--group', group, '--from', west.alias, '--to', east.alias, '--json']);
      assert.equal(failover.code, 0, failover.stderr);
      const plan = JSON.parse(failover.stdout) as { partitions: { topic: string; partition: number; translatedOffset: number; action: string }[] };
      assert.deepEqual(
        plan.partitions.map((p) => [p.topic, p.action]),
        Array.from({ length: PARTITIONS }, () => [topic, 'commit']),
      );
      const readOnWest = new Set((await holdings(west, topic)).filter((h) => h.record.offset < consumed[h.record.partition]!).map((h) => h.origin));
      const onEastHeld = await holdings(east, topic);
      const resumed = new Set(
        onEastHeld.filter((h) => h.record.offset >= plan.partitions.find((p) => p.partition === h.record.partition)!.translatedOffset).map((h) => h.origin),
      );
      const lost = onEastHeld.filter((h) => !readOnWest.has(h.origin) && !resumed.has(h.origin)).map((h) => h.origin);
      assert.deepEqual(lost, [], 'records the group read neither on west nor after its failover on east');
    } finally {
      await run.stop();
    }
  });

  test("a failover from one side of a link to the other never skips the other side's records the group had not read", async () => {
    const [west, east] = sides('a', 'b') as [Side, Side];
    const topic = uniqueName('aa-failover');
    const group = uniqueName('aa-app');
    await createEverywhere([west, east], topic, 1);
    const numbered = (label: string, from: number): TestRecord[] =>
      Array.from({ length: 100 }, (_, i) => ({
        partition: 0,
        key: Buffer.from(`${label}-${from + i}`),
        value: Buffer.from(`${label} #${from + i}`),
        headers: [],
        timestamp: T0 + from + i,
      }));
    const { file } = await writePipeline({
      sharedClusters: false,
      clusters: bootstraps([west, east]),
      flows: [],
      links: [{ clusters: [west.alias, east.alias], topics: [topic], ...FAST }],
    });
    const copied = async (total: number): Promise<void> => {
      const run = await startPipeline(file);
      try {
        await run.until(
          async () => (await west.kit.count(topic)) === total && (await east.kit.count(topic)) === total && run.statuses().every((st) => st.lag === 0),
          {
            what: `${total} records on both sides`,
            timeoutMs: 60_000,
          },
        );
      } finally {
        await run.stop();
      }
    };
    // Each side writes 100 while the link is down, then the link copies them: twice. Each side
    // then holds its own 100, the other's 100, its own next 100, the other's next 100.
    await east.kit.produce(topic, numbered('east', 0));
    await west.kit.produce(topic, numbered('west', 0));
    await copied(200);
    await east.kit.produce(topic, numbered('east', 100));
    await west.kit.produce(topic, numbered('west', 100));
    await copied(400);
    // The group read west up to the middle of east's second hundred (west offset 350): east's
    // records 150-199, at east offsets 250-299, are what it has not read. West's own records it
    // read all, and west's offset syncs alone would resume it at east's end.
    const admin = createKafkaClients([plaintextConnection(west.alias, clusters.bootstrap('a'))], silentLogger, 'aa-test');
    try {
      await firstValueFrom(admin.admin(west.alias).commitGroupOffsets(group, [{ topic, partition: 0, offset: 350, metadata: '' }]));
    } finally {
      await admin.close();
    }
    const run = await startPipeline(file);
    const east$ = createKafkaClients([plaintextConnection(east.alias, clusters.bootstrap('b'))], silentLogger, 'aa-test');
    try {
      const mirror = new MirrorClient({ admin: east$.admin(east.alias), reader: east$.reader(east.alias), policy: new IdentityReplicationPolicy() });
      await run.until(async () => (await mirror.remoteConsumerOffsets(group, west.alias)).some((o) => o.upstreamOffset === 350), {
        what: `the checkpoint of ${group} at 350`,
        timeoutMs: 60_000,
      });
    } finally {
      await east$.close();
      await run.stop();
    }
    const failover = await runCli(['failover', file, '--group', group, '--from', west.alias, '--to', east.alias, '--json']);
    assert.equal(failover.code, 0, failover.stderr);
    const [moved] = (JSON.parse(failover.stdout) as { partitions: { topic: string; translatedOffset: number; action: string }[] }).partitions;
    assert.deepEqual([moved!.topic, moved!.action], [topic, 'commit']);
    const values = (records: readonly KafkaRecord[]) => records.map((r) => r.value!.toString());
    const read = new Set([
      ...values((await west.kit.readAllFlat(topic)).slice(0, 350)),
      ...values((await east.kit.readAllFlat(topic)).slice(moved!.translatedOffset)),
    ]);
    const skipped = Array.from({ length: 100 }, (_, i) => `east #${100 + i}`).filter((v) => !read.has(v));
    assert.deepEqual(skipped, [], `resumed on ${east.alias} at ${moved!.translatedOffset}`);
    assert.ok(moved!.translatedOffset >= 200, `no further back than the syncs need (${moved!.translatedOffset})`);
  });

  test('a ring of three: every record on every cluster once, each copy by the ring, heartbeat hops as MM2 counts them', async () => {
    const ring = sides('a', 'b', 'c');
    const topic = uniqueName('aa-ring');
    await createEverywhere(ring, topic);
    const flows: TestFlow[] = ring.map((side, i) => ({
      source: side.alias,
      target: ring[(i + 1) % ring.length]!.alias,
      topics: [topic],
      // Every heartbeats topic, as MM2 copies them, so that they show two hops.
      replicate_heartbeats: true,
      provenance: { enabled: true },
      ...FAST,
    }));
    const { file } = await writePipeline({ sharedClusters: false, clusters: bootstraps(ring), flows });
    const run = await startPipeline(file);
    try {
      await produceEverywhere(ring, topic);
      const natives = await Promise.all(
        ring.map(async (s) => (await s.kit.readAllFlat(topic)).filter((r) => lastProvenanceHeader(r.headers) === undefined).length),
      );
      await settledAt(
        run,
        ring,
        topic,
        natives.reduce((a, b) => a + b, 0),
      );
      const order = ring.map((s) => s.alias);
      const byRing = (path: readonly string[]): boolean =>
        path.every((alias, i) => i === 0 || order.indexOf(alias) === (order.indexOf(path[i - 1]!) + 1) % order.length);
      await assertEverywhereOnce(ring, topic, (path) => path.length >= 2 && path.length <= 3 && byRing(path));
      // Each record went round once: the flow into its origin left every copy of it there.
      const loops = run.statuses().map((s) => s.provenance!.loops);
      assert.deepEqual(loops, [natives[1], natives[2], natives[0]]);
      await run.until(async () => (await clusters.kit('a').topics()).has(`${order[2]}.${order[1]}.heartbeats`), {
        what: 'heartbeats two hops away',
        timeoutMs: 30_000,
      });
    } finally {
      await run.stop();
    }
    const [a, b, c] = ring.map((s) => s.alias) as [string, string, string];
    const onA = await probe.ask({ bootstrap: clusters.bootstrap('a'), remote: c, hops: [a, b, c], policy: 'identity' });
    assert.deepEqual(onA.replicationHops, { [a]: -1, [b]: 2, [c]: 1 });
    // Heartbeats topics of the ring's clusters alone (earlier tests left others on the same brokers).
    const ofRing = (name: string): boolean =>
      name.endsWith('.heartbeats') &&
      name
        .split('.')
        .slice(0, -1)
        .every((alias) => [a, b, c].includes(alias));
    const topicsOnA = [...(await clusters.kit('a').topics()).keys()].filter(ofRing);
    assert.deepEqual(topicsOnA.sort(), [`${c}.${b}.heartbeats`, `${c}.heartbeats`].sort(), `no heartbeats come back to ${a}`);
  });

  test('a diamond: what reaches a cluster by two paths is written there once, counted in status and metrics', async () => {
    const [top, left, bottom] = sides('a', 'b', 'c') as [Side, Side, Side];
    const topic = uniqueName('aa-diamond');
    await createEverywhere([top, left, bottom], topic);
    const flow = (source: Side, target: Side): TestFlow => ({
      source: source.alias,
      target: target.alias,
      topics: [topic],
      provenance: { enabled: true },
      ...FAST,
    });
    const { file } = await writePipeline({
      sharedClusters: false,
      clusters: bootstraps([top, left, bottom]),
      flows: [flow(top, left), flow(left, bottom), flow(top, bottom)],
    });
    const run = await startPipeline(file);
    try {
      await produceEverywhere([top, left], topic);
      const [fromTop, fromLeft] = await Promise.all(
        [top, left].map(async (s) => (await s.kit.readAllFlat(topic)).filter((r) => lastProvenanceHeader(r.headers) === undefined).length),
      );
      // Nothing flows up: left holds top's and its own, bottom both sides'.
      const everything = fromTop! + fromLeft!;
      await run.until(
        async () => (await left.kit.count(topic)) === everything && (await bottom.kit.count(topic)) === everything && run.statuses().every((s) => s.lag === 0),
        { what: 'every record copied down the diamond', timeoutMs: 120_000 },
      );
      const before = await ends([top, left, bottom], topic);
      const beats = run.statuses().map((s) => s.heartbeats.written);
      await run.until(() => run.statuses().every((s, i) => s.heartbeats.written >= beats[i]! + 4), {
        what: 'four more heartbeats per flow',
        timeoutMs: 30_000,
      });
      assert.deepEqual(await ends([top, left, bottom], topic), before, 'nothing is copied any more');
      const held = await holdings(bottom, topic);
      const copies = held.filter((h) => h.path.length > 1);
      assert.equal(copies.length, fromTop! + fromLeft!, "top's and left's records on bottom, once each");
      assert.equal(new Set(copies.map((h) => h.origin)).size, copies.length);
      const [, leftToBottom, topToBottom] = run.statuses() as [
        unknown,
        { provenance: { duplicates: number; unchecked: number } },
        { provenance: { duplicates: number; unchecked: number } },
      ];
      // Every record of top arrived twice, once by each path; one of the two was dropped.
      assert.equal(leftToBottom.provenance.duplicates + topToBottom.provenance.duplicates, fromTop);
      assert.equal(leftToBottom.provenance.unchecked + topToBottom.provenance.unchecked, 0);
      for (const h of copies)
        assert.ok([`${top.alias}>${bottom.alias}`, `${top.alias}>${left.alias}>${bottom.alias}`, `${left.alias}>${bottom.alias}`].includes(h.path.join('>')));

      const snapshots = run.pipeline.snapshots();
      const document = statusDocument('diamond', snapshots);
      const duplicates = document.flows.reduce((n, f) => n + (f.provenance?.duplicates ?? 0), 0);
      assert.equal(duplicates, fromTop);
      const metrics = await new Metrics(() => snapshots).render();
      const skipped = [...metrics.matchAll(/^mirrorflow_records_skipped_total\{[^}]*reason="duplicate"[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
      assert.equal(skipped, fromTop);
    } finally {
      await run.stop();
    }
  });

  test("an mm2.properties file with both directions and identity naming: refused without Replicator's key, naming it; with it, both ways once; convert writes a link", async () => {
    const [west, east] = sides('a', 'b') as [Side, Side];
    const topic = uniqueName('aa-mm2');
    await createEverywhere([west, east], topic);
    const dir = scratchDir();
    const lines = [
      `clusters = ${west.alias}, ${east.alias}`,
      `${west.alias}.bootstrap.servers = ${clusters.bootstrap('a')}`,
      `${east.alias}.bootstrap.servers = ${clusters.bootstrap('b')}`,
      `${west.alias}->${east.alias}.enabled = true`,
      `${east.alias}->${west.alias}.enabled = true`,
      `topics = ${topic}`,
      'replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy',
      'sync.topic.acls.enabled = false',
      'replication.factor = 1',
      'offset-syncs.topic.replication.factor = 1',
      'offset.storage.replication.factor = 1',
      'checkpoints.topic.replication.factor = 1',
      'heartbeats.topic.replication.factor = 1',
    ];
    const without = join(dir, 'aa.properties');
    writeFileSync(without, lines.join('\n'));
    const refused = await runCli(['validate', without]);
    assert.equal(refused.code, 78, refused.stdout + refused.stderr);
    assert.match(refused.stdout + refused.stderr, new RegExp(`would copy topic "${topic}" around without end`));
    assert.match(refused.stdout + refused.stderr, /in mm2\.properties provenance\.header\.enable = true/);

    const file = join(dir, 'aa-on.properties');
    writeFileSync(file, [...lines, 'provenance.header.enable = true'].join('\n'));
    const run = await startPipeline(file);
    try {
      await produceEverywhere([west, east], topic);
      const natives = await Promise.all(
        [west, east].map(async (s) => (await s.kit.readAllFlat(topic)).filter((r) => lastProvenanceHeader(r.headers) === undefined).length),
      );
      await settledAt(run, [west, east], topic, natives[0]! + natives[1]!);
      await assertEverywhereOnce([west, east], topic, (path) => path.length === 2);
    } finally {
      await run.stop();
    }

    const converted = await runCli(['convert', file]);
    assert.equal(converted.code, 0, converted.stderr);
    assert.match(converted.stdout, new RegExp(`^links:\\n(?:  #.*\\n)?  - clusters: \\[${west.alias}, ${east.alias}\\]\\n`, 'm'));
    assert.doesNotMatch(converted.stdout, /^flows:/m);
  });

  test('identity both ways without provenance headers is refused, naming the key that ends the loop', async () => {
    const [west, east] = sides('a', 'b') as [Side, Side];
    const { file } = await writePipeline({
      sharedClusters: false,
      clusters: bootstraps([west, east]),
      flows: [],
      links: [{ clusters: [west.alias, east.alias], topics: ['orders'], provenance: { enabled: false }, replication_policy: { type: 'identity' } }],
    });
    const result = await runCli(['validate', file]);
    assert.equal(result.code, 78, result.stdout + result.stderr);
    assert.match(result.stderr + result.stdout, /links\[0\]\.provenance\.enabled: flows .* would copy topic "orders" around without end/);
    assert.match(result.stderr + result.stdout, /provenance\.enabled: true, or in mm2\.properties provenance\.header\.enable = true/);
  });
});
