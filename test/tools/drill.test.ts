/**
 * `mirrorflow drill FILE --group G` against real clusters, run as a user runs it (the CLI as a
 * child process), while Kafka's Java producer keeps writing to the source and mirrorflow keeps
 * replicating: the application is Kafka's Java consumer (GroupConsumer.java), which consumed part
 * of the topic on the source, committed and stopped. What an auditor checks:
 *
 * - the report gives the RPO at the drill point, the RTO, and per partition where the drill group
 *   started, how far it read and how many records G would read again; the records counted as read
 *   again end exactly at the copy of the last record G consumed on the source;
 * - G is never touched (its offsets and states on both clusters are as before), and the drill
 *   group is gone afterwards, also after SIGINT; a drill killed outright leaves it, and the next
 *   drill deletes it;
 * - `--dry-run` lists every step and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import { createKafkaClients, plaintextConnection } from '../../src/pipeline';
import { MirrorClient } from '../../src/pipeline/tools';
import { DefaultReplicationPolicy } from '../../src/policy';
import { decodeOffsetSync } from '../../src/formats';
import { silentLogger } from '../../src/core/ports/logger';
import type { KafkaClients } from '../../src/core/ports/kafka-clients';
import type { DrillReport } from '../../src/pipeline/tools/drill';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { runCli, spawnCli, startPipeline, writePipeline, type RunningPipeline, type TestPipelineFile } from '../support/pipeline-harness';
import { startNumberedProducer, type NumberedProducer } from '../support/production-load';
import { JavaGroupConsumers } from '../interop/group-consumer';

const PARTITIONS = 3;

let clusters: TestClusters;
let primary: KafkaKit;
let clients: KafkaClients;
sharedClusterKits(
  'mirrorflow-drill-',
  (opened) => ({
    clients: createKafkaClients(
      [plaintextConnection('primary', opened.primary), plaintextConnection('backup', opened.backup)],
      silentLogger,
      'mirrorflow-drill-test',
    ),
  }),
  (kits) => ({ clusters, primary, clients } = kits),
);

let java: JavaGroupConsumers;
before(async () => {
  java = await JavaGroupConsumers.compile();
});
after(() => java?.dispose());

interface Setup {
  readonly topic: string;
  readonly remote: string;
  readonly group: string;
  readonly pipeline: TestPipelineFile;
  readonly run: RunningPipeline;
  readonly producer: NumberedProducer;
}

/** A topic the Java producer keeps writing, replicated by a running pipeline; G consumed `consumed` records on the source and is checkpointed. */
async function setup(label: string, rate: number, before: number, consumed: number): Promise<Setup> {
  const topic = uniqueName(label);
  const remote = `primary.${topic}`;
  const group = uniqueName(`${label}-app`);
  await primary.createTopic(topic, PARTITIONS);
  const producer = await startNumberedProducer({ bootstrap: clusters.primary, topic, partitions: PARTITIONS, rate, label });
  await producer.writes(before);
  await java.consume({ bootstrap: clusters.primary, group, topics: [topic], reset: 'earliest', max: consumed, timeoutMs: 90_000 });
  const pipeline = await writePipeline({
    flows: [{ topics: [topic], checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000, groups: [group] } }],
  });
  const run = await startPipeline(pipeline.file);
  const committed = await sourceOffsets(group);
  const mirror = new MirrorClient({ admin: clients.admin('backup'), reader: clients.reader('backup'), policy: new DefaultReplicationPolicy() });
  await run.until(
    async () => {
      const cps = await mirror.remoteConsumerOffsets(group, 'primary').catch(() => []);
      return committed.every((c) => cps.some((cp) => cp.partition === c.partition && cp.upstreamOffset === c.offset));
    },
    { what: `checkpoints of ${group} at its committed offsets`, timeoutMs: 120_000 },
  );
  return { topic, remote, group, pipeline, run, producer };
}

async function sourceOffsets(group: string) {
  return [...(await firstValueFrom(clients.admin('primary').fetchGroupOffsets(group)))].sort((a, b) => a.partition - b.partition);
}

/** G as both clusters know it: offsets and state, to compare before and after. */
async function groupSnapshot(group: string): Promise<unknown> {
  const side = async (cluster: 'primary' | 'backup') => ({
    state: (await firstValueFrom(clients.admin(cluster).describeGroups([group]))).get(group),
    offsets: [...(await firstValueFrom(clients.admin(cluster).fetchGroupOffsets(group)))].sort(
      (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition,
    ),
  });
  return { primary: await side('primary'), backup: await side('backup') };
}

async function drillGroups(group: string): Promise<string[]> {
  return (await firstValueFrom(clients.admin('backup').listGroups())).filter((g) => g.startsWith(`mirrorflow-drill.${group}.`));
}

describe('mirrorflow drill', () => {
  test('while a Java producer writes: RPO, RTO and the records G would read again, G untouched, the drill group gone; --dry-run changes nothing', async () => {
    const s = await setup('drill', 300, 3000, 1500);
    try {
      const before = await groupSnapshot(s.group);

      const dry = await runCli(['drill', s.pipeline.file, '--group', s.group, '--dry-run'], 120_000);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /^Dry run: DR drill of group/m);
      assert.match(dry.stdout, /^Would, in order:$/m);
      const committed = await sourceOffsets(s.group);
      assert.match(dry.stdout, new RegExp(`commit ${committed.length} offset\\(s\\) of the drill group "mirrorflow-drill\\.${s.group}\\.`));
      assert.match(dry.stdout, /delete the drill group/);
      assert.match(dry.stdout, /^Dry run: nothing was changed\.$/m);
      assert.deepEqual(await drillGroups(s.group), [], 'a dry run creates no drill group');

      const result = await runCli(['drill', s.pipeline.file, '--group', s.group, '--json'], 240_000);
      assert.equal(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout) as DrillReport;

      // RPO at the drill point: per partition of G's topic, consistent with itself.
      assert.ok(report.rpo !== null, 'the source was readable');
      assert.deepEqual(
        report.rpo.partitions.map((p) => [p.topic, p.partition]),
        [0, 1, 2].map((p) => [s.topic, p]),
      );
      assert.equal(
        report.rpo.records,
        report.rpo.partitions.reduce((sum, p) => sum + p.missing, 0),
      );
      for (const p of report.rpo.partitions)
        assert.equal(p.missing, p.sourceEnd - p.replicatedTo, `${p.topic}-${p.partition}: missing = source end - on target`);
      assert.ok(report.rpo.seconds >= 0);

      // RTO: the drill consumer read every partition from its start to the end at the drill point.
      assert.ok(report.rto !== undefined && report.rto.seconds > 0);
      const { prepareMs, commitMs, consumeMs } = report.rto.phases;
      assert.equal(
        Math.round(report.rto.seconds * 1000),
        prepareMs + commitMs + consumeMs,
        'the RTO is its phases: deleting the drill group after is not in it',
      );
      for (const p of report.partitions) {
        assert.equal(p.startFrom, committed.some((c) => c.partition === p.partition) ? 'checkpoint' : 'log-start');
        assert.equal(p.read, p.end - p.start, `${p.topic}-${p.partition}: read from ${p.start} to ${p.end}`);
      }
      assert.equal(
        report.rto.recordsRead,
        report.partitions.reduce((sum, p) => sum + p.read, 0),
      );

      // Read again: up to and including the copy of the last record G consumed on the source.
      const translated = JSON.parse((await runCli(['offsets', 'translate', s.pipeline.file, '--group', s.group, '--json'])).stdout) as {
        groups: { offsets: { partition: number; offset: number }[] }[];
      };
      for (const p of report.partitions) {
        const consumedUpTo = committed.find((c) => c.partition === p.partition)?.offset;
        if (consumedUpTo === undefined) {
          assert.deepEqual([p.readAgain, p.readAgainBy], [0, 'nothing-consumed'], 'G consumed nothing of this partition');
          continue;
        }
        assert.equal(p.start, translated.groups[0]!.offsets.find((o) => o.partition === p.partition)!.offset, 'the drill starts where a failover would');
        assert.equal(p.sourceOffset, consumedUpTo);
        assert.equal(p.readAgainBy, 'matched', `${p.topic}-${p.partition}: ${JSON.stringify(p)}`);
        const onTarget = await clients.reader('backup').recordAt(s.remote, p.partition, p.matchedAt!);
        const lastConsumed = await clients.reader('primary').recordAt(s.topic, p.partition, consumedUpTo - 1);
        assert.equal(onTarget?.key?.toString(), lastConsumed?.key?.toString(), 'the match is the copy of the last record G consumed');
        assert.equal(p.readAgain, p.matchedAt! - p.start + 1);
      }
      assert.equal(
        report.readAgain,
        report.partitions.reduce((sum, p) => sum + p.readAgain, 0),
      );

      assert.equal(report.cleanup, 'deleted');
      assert.deepEqual(await drillGroups(s.group), [], 'the drill group is gone');
      assert.deepEqual(await groupSnapshot(s.group), before, 'G is untouched on both clusters');

      const text = await runCli(['drill', s.pipeline.file, '--group', s.group], 240_000);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^RPO: /m);
      assert.match(text.stdout, /^RTO: \d+(\.\d+)? s from the drill point until the drill consumer had read backup to its end/m);
      assert.match(text.stdout, new RegExp(`^Records group "${s.group}" would read again after a failover: \\d+$`, 'm'));
      assert.match(text.stdout, /^Done, in order:$/m);
      assert.match(text.stdout, new RegExp(`Drill group "mirrorflow-drill\\.${s.group}\\.[a-z0-9]+" deleted; group "${s.group}" was not touched\\.`));
      assert.deepEqual(await groupSnapshot(s.group), before);
    } finally {
      await s.producer.stop();
      await s.run.stop();
    }
  });

  test('a group committed exactly at an offset sync reads nothing again: the copy of its last record is just before the start', async () => {
    // The checkpoint of an offset with a sync of its own is exact (MM2 translates it to the sync's
    // downstream offset, not one past it): G's last record is then the one before the drill's start.
    const topic = uniqueName('drill-exact');
    const remote = `primary.${topic}`;
    const group = uniqueName('drill-exact-app');
    await primary.createTopic(topic, 1);
    const producer = await startNumberedProducer({ bootstrap: clusters.primary, topic, partitions: 1, rate: 2000, label: 'drill-exact' });
    await producer.writes(600);
    await producer.stop();
    const pipeline = await writePipeline({
      flows: [{ topics: [topic], checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000, groups: [group] } }],
    });
    const run = await startPipeline(pipeline.file);
    try {
      const [end] = await primary.endOffsets(topic);
      await run.until(async () => (await new KafkaKit(clusters.backup).endOffsets(remote))[0] === end, { what: `${remote} replicated`, timeoutMs: 120_000 });
      const syncs = (await primary.readAllFlat('mm2-offset-syncs.backup.internal'))
        .map((r) => decodeOffsetSync(r.key, r.value))
        .filter((sync) => sync.topicPartition.topic === topic && sync.upstreamOffset > 0);
      const sync = syncs.at(-1);
      assert.ok(sync !== undefined, `an offset sync past offset 0 of ${topic}`);
      await firstValueFrom(clients.admin('primary').commitGroupOffsets(group, [{ topic, partition: 0, offset: sync.upstreamOffset, metadata: '' }]));
      const mirror = new MirrorClient({ admin: clients.admin('backup'), reader: clients.reader('backup'), policy: new DefaultReplicationPolicy() });
      await run.until(
        async () => (await mirror.remoteConsumerOffsets(group, 'primary').catch(() => [])).some((cp) => cp.upstreamOffset === sync.upstreamOffset),
        { what: `the checkpoint of ${group} at ${sync.upstreamOffset}`, timeoutMs: 120_000 },
      );

      const result = await runCli(['drill', pipeline.file, '--group', group, '--json'], 240_000);
      assert.equal(result.code, 0, result.stderr);
      const [p] = (JSON.parse(result.stdout) as DrillReport).partitions;
      assert.ok(p !== undefined);
      assert.deepEqual(
        { start: p.start, readAgain: p.readAgain, readAgainBy: p.readAgainBy, matchedAt: p.matchedAt },
        { start: sync.downstreamOffset, readAgain: 0, readAgainBy: 'matched', matchedAt: sync.downstreamOffset - 1 },
        JSON.stringify(p),
      );
      const onTarget = await clients.reader('backup').recordAt(remote, 0, p.matchedAt!);
      const lastConsumed = await clients.reader('primary').recordAt(topic, 0, sync.upstreamOffset - 1);
      assert.equal(onTarget?.key?.toString(), lastConsumed?.key?.toString(), 'the match is the copy of the last record G consumed');
    } finally {
      await run.stop();
    }
  });

  test('SIGINT ends the drill and deletes its group; a drill killed outright leaves it, and the next drill deletes it', async () => {
    // A backlog the drill consumer takes a while over: G consumed 10 records of many.
    const s = await setup('drill-stop', 25_000, 150_000, 10);
    await s.producer.stop();
    const ends = await primary.endOffsets(s.topic);
    await s.run.until(
      async () => (await primary.count(`${s.topic}`)) > 0 && (await new KafkaKit(clusters.backup).endOffsets(s.remote)).every((e, p) => e >= ends[p]!),
      {
        what: `${s.remote} replicated`,
        timeoutMs: 180_000,
      },
    );
    await s.run.stop();
    const before = await groupSnapshot(s.group);

    const interrupted = spawnCli(['drill', s.pipeline.file, '--group', s.group]);
    await waitFor(async () => (await drillGroups(s.group)).length > 0, { what: 'the drill group to exist', timeoutMs: 60_000, intervalMs: 50 });
    interrupted.kill('SIGINT');
    const stopped = await interrupted.exited;
    assert.equal(stopped.code, 1, stopped.stderr);
    assert.match(stopped.stderr, /The drill was interrupted; its group "mirrorflow-drill\.[^"]+" was deleted/);
    assert.deepEqual(await drillGroups(s.group), [], 'deleted when interrupted');

    const killed = spawnCli(['drill', s.pipeline.file, '--group', s.group]);
    await waitFor(async () => (await drillGroups(s.group)).length > 0, { what: 'the drill group to exist', timeoutMs: 60_000, intervalMs: 50 });
    killed.kill('SIGKILL');
    await killed.exited;
    const left = await drillGroups(s.group);
    assert.equal(left.length, 1, 'kill -9 leaves the drill group');
    await waitFor(async () => (await firstValueFrom(clients.admin('backup').describeGroups(left))).get(left[0]!) === 'empty', {
      what: 'the killed drill consumer to leave its group',
      timeoutMs: 60_000,
    });
    const next = await runCli(['drill', s.pipeline.file, '--group', s.group, '--json'], 240_000);
    assert.equal(next.code, 0, next.stderr);
    const report = JSON.parse(next.stdout) as DrillReport;
    assert.ok(report.steps.some((step) => step.action === `delete the drill group "${left[0]}" an interrupted drill left (it has no members)`));
    assert.deepEqual(await drillGroups(s.group), []);
    assert.deepEqual(await groupSnapshot(s.group), before, 'G is untouched');
  });
});
