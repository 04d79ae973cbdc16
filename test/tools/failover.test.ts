/**
 * `mirrorflow offsets translate` and `mirrorflow failover` against real clusters,
 * run as a user runs them: `node dist/src/cli/main.js …` child processes.
 *
 * Each test gives its own consumer group committed offsets on its own topic on primary, and
 * runs a real mirrorflow pipeline primary -> backup until the topic is replicated and the
 * pipeline has checkpointed the group on backup. Then it checks what a user would notice: translate prints what MM2's
 * RemoteClusterUtils answers, --dry-run writes nothing, a failover lets a consumer on backup
 * resume at 0 < position <= end without missing a record, and an active group is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import { Kafka, logLevel, type Consumer } from '../../src/kafka/kafkajs';
import { createKafkaClients, plaintextConnection } from '../../src/pipeline';
import { MirrorClient } from '../../src/pipeline/tools';
import { DefaultReplicationPolicy } from '../../src/policy';
import { silentLogger } from '../../src/core/ports/logger';
import type { GroupOffset } from '../../src/core/ports/cluster-admin';
import type { KafkaClients } from '../../src/core/ports/kafka-clients';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { httpAddress, runCli, spawnPipeline, startPipeline, writePipeline, type TestPipelineFile } from '../support/pipeline-harness';
import { RemoteClusterUtilsProbe, type JavaOffset } from '../interop/remote-cluster-utils-probe';

const PARTITIONS = 3;
const PER_PARTITION = 40;
/** What the group has consumed on primary, per partition, when it is stopped. */
const CONSUMED = [10, 25, 40];

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let clients: KafkaClients;
const consumers: Consumer[] = [];

sharedClusterKits(
  'mirrorflow-failover-',
  (opened) => ({
    clients: createKafkaClients(
      [plaintextConnection('primary', opened.primary), plaintextConnection('backup', opened.backup)],
      silentLogger,
      'mirrorflow-tools-test',
    ),
  }),
  (kits) => ({ clusters, primary, backup, clients } = kits),
);
after(() => Promise.allSettled(consumers.map((c) => c.disconnect())));

interface Scenario {
  readonly topic: string;
  readonly remote: string;
  readonly group: string;
  readonly pipeline: TestPipelineFile;
  readonly written: readonly TestRecord[];
}

function records(topic: string): TestRecord[] {
  const list: TestRecord[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < PER_PARTITION; i++) {
      list.push({ partition: p, key: Buffer.from(`k${p}-${i}`), value: Buffer.from(`${topic} p${p} #${i}`), headers: [], timestamp: Date.now() });
    }
  }
  return list;
}

/**
 * A topic on primary replicated to backup by a real mirrorflow run, a stopped group on primary
 * that consumed CONSUMED records per partition, and the checkpoints the run wrote for it.
 */
async function scenario(label: string): Promise<Scenario> {
  const topic = uniqueName(label);
  const remote = `primary.${topic}`;
  const group = uniqueName(`${label}-group`);
  await primary.createTopic(topic, PARTITIONS);
  const written = records(topic);
  await primary.produce(topic, written);
  // The group, stopped: committed offsets and no members.
  await firstValueFrom(
    clients.admin('primary').commitGroupOffsets(
      group,
      CONSUMED.map((offset, partition) => ({ topic, partition, offset, metadata: `consumed ${offset}` })),
    ),
  );

  const pipeline = await writePipeline({
    flows: [{ topics: [topic], checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000 } }],
  });
  const run = await startPipeline(pipeline.file);
  const checkpoints = new MirrorClient({ admin: clients.admin('backup'), reader: clients.reader('backup'), policy: new DefaultReplicationPolicy() });
  await run.until(
    async () =>
      (await backup.topics()).has(remote) &&
      (await backup.count(remote)) === written.length &&
      (await checkpoints.remoteConsumerOffsets(group, 'primary').catch(() => [])).length === PARTITIONS,
    { what: `${written.length} records replicated to ${remote} and checkpoints of ${group}`, timeoutMs: 90_000 },
  );
  await run.stop();
  return { topic, remote, group, pipeline, written };
}

async function targetOffsets(group: string): Promise<readonly GroupOffset[]> {
  return firstValueFrom(clients.admin('backup').fetchGroupOffsets(group));
}

function kafkaConsumer(group: string): Consumer {
  const consumer = new Kafka({ brokers: clusters.backup.split(','), clientId: 'mirrorflow-tools-test', logLevel: logLevel.NOTHING }).consumer({
    groupId: group,
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
  });
  consumers.push(consumer);
  return consumer;
}

/**
 * Starts a consumer of `group` on backup (as an application would after failover) and returns
 * what it reads per partition up to the end; `fromBeginning: false` so only committed offsets
 * decide where it starts.
 */
async function consumeOnBackup(
  group: string,
  topic: string,
  starts: readonly number[],
  ends: readonly number[],
): Promise<Map<number, { offset: number; value: string }[]>> {
  const consumer = kafkaConsumer(group);
  const got = new Map<number, { offset: number; value: string }[]>();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: false });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const list = got.get(partition) ?? [];
      list.push({ offset: Number(message.offset), value: message.value?.toString() ?? '' });
      got.set(partition, list);
    },
  });
  await waitFor(() => ends.every((end, p) => Math.max(starts[p]!, (got.get(p)?.at(-1)?.offset ?? -1) + 1) >= end), {
    what: `the consumer on backup to reach the end of ${topic}`,
    timeoutMs: 60_000,
  });
  await consumer.disconnect();
  return got;
}

describe('mirrorflow offsets translate', () => {
  let probe: RemoteClusterUtilsProbe;
  before(async () => {
    probe = await RemoteClusterUtilsProbe.compile();
  });
  after(() => probe?.dispose());

  test('prints per topic-partition what RemoteClusterUtils.translateOffsets answers', async () => {
    const s = await scenario('translate');
    const result = await runCli(['offsets', 'translate', s.pipeline.file, '--group', s.group, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout) as { source: string; target: string; groups: { group: string; offsets: JavaOffset[] }[] };
    assert.deepEqual([json.source, json.target], ['primary', 'backup']);
    const ours = json.groups[0]!.offsets.map(({ topic, partition, offset, metadata }) => ({ topic, partition, offset, metadata }));

    const java = await probe.ask({ bootstrap: clusters.backup, remote: 'primary', groups: [s.group] });
    assert.deepEqual(ours, java.translateOffsets[s.group]);
    assert.deepEqual(
      ours.map((o) => [o.topic, o.partition]),
      CONSUMED.map((_, p) => [s.remote, p]),
    );

    const table = await runCli(['offsets', 'translate', s.pipeline.file, '--group', s.group]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`^Offsets on backup of group "${s.group}", translated from primary`, 'm'));
    for (const o of ours) assert.match(table.stdout, new RegExp(`^${o.topic.replace(/\./g, '\\.')} +${o.partition} +${o.offset} `, 'm'));
  });
});

describe('GET /offsets/translate', () => {
  let probe: RemoteClusterUtilsProbe;
  before(async () => {
    probe = await RemoteClusterUtilsProbe.compile();
  });
  after(() => probe?.dispose());

  test('a running mirrorflow answers what `offsets translate --json` and RemoteClusterUtils answer; one offset through the offset syncs; 400 for bad queries', async () => {
    const s = await scenario('http');
    const child = spawnPipeline(s.pipeline.file);
    const base = await httpAddress(child);
    const get = async (query: string): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${base}/offsets/translate?${query}`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    // The group's offsets on one topic, named as on the source: the same document as the CLI's.
    const http = await get(`group=${encodeURIComponent(s.group)}&topic=${s.topic}`);
    assert.equal(http.status, 200, JSON.stringify(http.body));
    const cli = await runCli(['offsets', 'translate', s.pipeline.file, '--group', s.group, '--topic', s.topic, '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(http.body, JSON.parse(cli.stdout));
    const java = await probe.ask({ bootstrap: clusters.backup, remote: 'primary', groups: [s.group] });
    const offsets = (http.body['groups'] as { offsets: JavaOffset[] }[])[0]!.offsets;
    assert.deepEqual(
      offsets.map(({ topic, partition, offset, metadata }) => ({ topic, partition, offset, metadata })),
      java.translateOffsets[s.group],
    );
    // Named as on the target, one partition.
    const one = await get(`group=${encodeURIComponent(s.group)}&topic=${s.remote}&partition=1`);
    assert.deepEqual(
      (one.body['groups'] as { offsets: { partition: number }[] }[])[0]!.offsets.map((o) => o.partition),
      [1],
    );

    // One source offset, as an application that keeps its own offsets asks: the checkpoint's answer for the same offset.
    const byOffset = await get(`topic=${s.topic}&partition=1&offset=${CONSUMED[1]}`);
    assert.equal(byOffset.status, 200, JSON.stringify(byOffset.body));
    const translation = byOffset.body['translation'] as { offset: number; translatedBy: string; remoteTopic: string; offsetSync: { upstreamOffset: number } };
    assert.equal(translation.translatedBy, 'offset-sync');
    assert.equal(translation.remoteTopic, s.remote);
    assert.equal(translation.offset, offsets.find((o) => o.partition === 1)!.offset, 'the same position the checkpoint gives');
    assert.ok(translation.offsetSync.upstreamOffset <= CONSUMED[1]!);
    const cliOffset = await runCli([
      'offsets',
      'translate',
      s.pipeline.file,
      '--topic',
      s.topic,
      '--partition',
      '1',
      '--offset',
      String(CONSUMED[1]),
      '--json',
    ]);
    assert.deepEqual((JSON.parse(cliOffset.stdout) as { translation: unknown }).translation, translation);
    const text = await runCli(['offsets', 'translate', s.pipeline.file, '--topic', s.topic, '--partition', '1', '--offset', String(CONSUMED[1])]);
    assert.match(
      text.stdout,
      new RegExp(
        `^${s.topic}-1 offset ${CONSUMED[1]} on primary -> ${s.remote.replace(/\./g, '\\.')}-1 offset ${translation.offset} on backup \\(offset sync`,
        'm',
      ),
    );

    // A group without checkpoints: no offsets, as the CLI says.
    const none = await get(`group=${uniqueName('never-seen')}`);
    assert.equal(none.status, 200);
    assert.deepEqual((none.body['groups'] as { offsets: unknown[] }[])[0]!.offsets, []);

    // Bad queries: 400, saying what is wrong; asking for a cluster the pipeline does not have too.
    const bad = await get(`group=${s.group}&offset=5`);
    assert.equal(bad.status, 400);
    assert.match(bad.body['message'] as string, /"offset" needs "topic" and "partition"/);
    const unknown = await get(`group=${s.group}&to=nowhere`);
    assert.equal(unknown.status, 400);
    assert.match(unknown.body['message'] as string, /no cluster "nowhere"/);

    child.kill('SIGTERM');
    assert.equal((await child.exited).code, 0);
  });
});

describe('mirrorflow failover', () => {
  test('--dry-run prints the plan and writes nothing', async () => {
    const s = await scenario('dryrun');
    const result = await runCli(['failover', s.pipeline.file, '--group', s.group, '--dry-run']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Dry run: failover of group/m);
    for (let p = 0; p < PARTITIONS; p++) assert.match(result.stdout, new RegExp(`^${s.remote.replace(/\./g, '\\.')} +${p} .*would commit `, 'm'));
    assert.match(result.stdout, /Dry run: nothing was written\. Without --dry-run, 3 offset\(s\) would be committed on backup\./);
    assert.deepEqual(await targetOffsets(s.group), []);
    const states = await firstValueFrom(clients.admin('backup').describeGroups([s.group]));
    assert.equal(states.get(s.group), 'dead', 'a dry run must not even create the group');
  });

  test('commits the translated offsets; a consumer on backup resumes at 0 < position <= end and misses nothing', async () => {
    const s = await scenario('failover');
    const result = await runCli(['failover', s.pipeline.file, '--group', s.group, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { committed: number; partitions: { partition: number; translatedOffset: number; action: string }[] };
    assert.equal(report.committed, PARTITIONS);
    assert.deepEqual(
      report.partitions.map((p) => p.action),
      ['commit', 'commit', 'commit'],
    );

    const committed = await targetOffsets(s.group);
    const ends = await backup.endOffsets(s.remote);
    for (const o of committed) {
      assert.ok(o.offset > 0 && o.offset <= ends[o.partition]!, `partition ${o.partition}: 0 < ${o.offset} <= ${ends[o.partition]}`);
      assert.ok(o.offset <= CONSUMED[o.partition]!, `partition ${o.partition}: never past what the group consumed on primary`);
    }
    // Metadata travels with the checkpoint, as with MM2's translateOffsets.
    assert.deepEqual(committed.map((o) => o.metadata).sort(), CONSUMED.map((c) => `consumed ${c}`).sort());

    const starts = ends.map((_, p) => committed.find((o) => o.partition === p)!.offset);
    const got = await consumeOnBackup(s.group, s.remote, starts, ends);
    for (let p = 0; p < PARTITIONS; p++) {
      const read = got.get(p) ?? [];
      if (starts[p]! < ends[p]!) assert.equal(read[0]?.offset, starts[p], `partition ${p} resumes at the committed offset`);
      // Every record the group had not consumed on primary is read on backup.
      const unconsumed = s.written
        .filter((r) => r.partition === p)
        .slice(CONSUMED[p])
        .map((r) => r.value!.toString());
      const values = new Set(read.map((r) => r.value));
      assert.deepEqual(
        unconsumed.filter((v) => !values.has(v)),
        [],
        `partition ${p}: no record missed`,
      );
    }

    // Again: the group is already there, nothing moves.
    const again = await runCli(['failover', s.pipeline.file, '--group', s.group]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /kept: target is ahead|already there/);
    assert.match(again.stdout, /Nothing to commit/);
  });

  test('refuses a group with active members on backup, says so, exits non-zero and writes nothing', async () => {
    const s = await scenario('active');
    const consumer = kafkaConsumer(s.group);
    await consumer.connect();
    await consumer.subscribe({ topics: [s.remote], fromBeginning: false });
    await consumer.run({ autoCommit: false, eachMessage: async () => {} });
    await waitFor(async () => (await firstValueFrom(clients.admin('backup').describeGroups([s.group]))).get(s.group) === 'stable', {
      what: `group ${s.group} to be active on backup`,
      timeoutMs: 30_000,
    });

    const result = await runCli(['failover', s.pipeline.file, '--group', s.group]);
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stderr, new RegExp(`Group "${s.group}" has active members on cluster "backup" \\(state stable\\)`));
    assert.match(result.stderr, /Stop its consumers on "backup" and run failover again/);
    assert.match(result.stdout, /Refused: nothing was written\./);
    assert.deepEqual(await targetOffsets(s.group), []);
    await consumer.disconnect();
  });

  test('says what is missing and exits non-zero for a group without checkpoints or an unknown cluster', async () => {
    const s = await scenario('missing');
    const unknownGroup = await runCli(['failover', s.pipeline.file, '--group', uniqueName('never-seen')]);
    assert.equal(unknownGroup.code, 1);
    assert.match(unknownGroup.stderr, /No checkpoints for group "never-seen-[^"]+" in primary\.checkpoints\.internal on cluster "backup"/);

    const unknownCluster = await runCli(['failover', s.pipeline.file, '--group', s.group, '--to', 'nowhere']);
    assert.equal(unknownCluster.code, 64);
    assert.match(unknownCluster.stderr, /--to nowhere: the pipeline .* has no cluster "nowhere"; its clusters are backup, primary\./);
  });
});
