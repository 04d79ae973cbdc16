/**
 * `mirrorflow migrate` against real clusters, run as a user runs it (child processes of the CLI)
 * while `mirrorflow run` replicates in another process: a flow with `offsets: preserve` over a
 * plain topic (kept at the source's offsets) and a topic written by a transactional producer
 * (its commit markers make it fall back to translation). A consumer group reads half of each
 * topic from the source and commits; `migrate cutover` moves it; the same group then reads the
 * rest from the target: no record missed, none read twice on the preserved partitions, and few
 * on the translated one. A group with a member on the target is refused by name; `--dry-run`
 * changes nothing; a second cutover changes nothing; `finish` stops the running pipeline's flow
 * for good (it leaves the flow's group, and a new run does not start the flow).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import { Kafka, logLevel, type Consumer } from '../../src/kafka/kafkajs';
import { createKafkaClients, plaintextConnection } from '../../src/pipeline';
import { PipelineTools, migrationReport } from '../../src/pipeline/tools';
import { silentLogger } from '../../src/core/ports/logger';
import type { KafkaClients } from '../../src/core/ports/kafka-clients';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { runCli, spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';

const T0 = 1_700_000_000_000;

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let clients: KafkaClients;
const consumers: Consumer[] = [];

sharedClusterKits(
  'mirrorflow-migrate-',
  (opened) => ({
    clients: createKafkaClients(
      [plaintextConnection('primary', opened.primary), plaintextConnection('backup', opened.backup)],
      silentLogger,
      'mirrorflow-migrate-test',
    ),
  }),
  (kits) => ({ clusters, primary, backup, clients } = kits),
);
after(() => Promise.all(consumers.map((c) => c.disconnect().catch(() => undefined))));

function numbered(label: string, from: number, count: number, partitions: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: (from + i) % partitions,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`${label}-${from + i}`),
    headers: [],
    timestamp: T0 + from + i,
  }));
}

function consumer(bootstrap: string, group: string): Consumer {
  const c = new Kafka({ brokers: bootstrap.split(','), clientId: 'mirrorflow-migrate-test', logLevel: logLevel.NOTHING }).consumer({
    groupId: group,
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
  });
  consumers.push(c);
  return c;
}

interface Read {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

/**
 * An application's consumer of `group`: reads `topics` from its committed offsets (or the start)
 * and commits after each record, until `enough` says it has read enough of each partition.
 */
async function consume(
  bootstrap: string,
  group: string,
  topics: readonly string[],
  enough: (reads: readonly Read[]) => boolean,
  stopAt?: (r: Read) => boolean,
): Promise<Read[]> {
  const c = consumer(bootstrap, group);
  const reads: Read[] = [];
  await c.connect();
  await c.subscribe({ topics: [...topics], fromBeginning: true });
  await c.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      const read = { topic, partition, offset: Number(message.offset), value: message.value?.toString() ?? '' };
      if (stopAt?.(read) === true) {
        c.pause([{ topic, partitions: [partition] }]);
        return;
      }
      reads.push(read);
      await c.commitOffsets([{ topic, partition, offset: String(read.offset + 1) }]);
    },
  });
  await waitFor(() => enough(reads), { what: `group ${group} reading ${topics.join(', ')}`, timeoutMs: 90_000 });
  await c.disconnect();
  consumers.splice(consumers.indexOf(c), 1);
  return reads;
}

interface Status {
  partitions: { topic: string; partition: number; preserved: boolean; reason?: string; lag: number }[];
  groups: { group: string; ready: boolean; reasons: string[]; cutover?: string }[];
  state: { groups: Record<string, { state: string }>; finish?: { state: string } };
}

async function status(file: string): Promise<Status> {
  const result = await runCli(['migrate', file, 'status', '--json'], 180_000);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Status;
}

describe('mirrorflow migrate', () => {
  let file: string;
  let pipeline: ChildPipeline;
  let orders: string;
  let payments: string;
  const group = uniqueName('migrating-app');

  before(async () => {
    orders = uniqueName('mig-orders');
    payments = uniqueName('mig-payments');
    await primary.createTopic(orders, 2);
    await primary.produce(orders, numbered('order', 0, 200, 2));
    await primary.createTopic(payments, 1);
    // Transactions: each commit marker takes an offset without a record, so this partition cannot keep its offsets.
    await primary.produceTransactional(
      payments,
      Array.from({ length: 6 }, (_, t) => ({ records: numbered('payment', t * 20, 20, 1), commit: true })),
    );
    ({ file } = await writePipeline({
      flows: [
        {
          topics: [orders, payments],
          offsets: 'preserve',
          offset_syncs: { lag_max: 10 },
          checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000 },
        },
      ],
    }));
    pipeline = spawnPipeline(file);
  });

  after(() => pipeline?.kill('SIGKILL'));

  const remote = (topic: string): string => `primary.${topic}`;
  let firstHalf: Read[] = [];
  let ends: Map<string, number[]>;

  test('status: each partition preserved or translated (with the reason), and the group ready once what it read is on the target', async () => {
    // The application reads half of each partition on primary, committing as it goes, and stops.
    const half = (r: Read): boolean => (r.topic === orders ? r.offset >= 50 : Number(r.value.split('-')[1]) >= 60);
    firstHalf = await consume(
      clusters.primary,
      group,
      [orders, payments],
      (reads) => reads.filter((r) => r.topic === orders).length === 100 && reads.filter((r) => r.topic === payments).length === 60,
      half,
    );
    const tools = await PipelineTools.open({ file, logger: silentLogger });
    try {
      await waitFor(
        async () => {
          const report = await migrationReport(tools, {});
          return report.groups.find((g) => g.group === group)?.ready === true && report.partitions.every((p) => p.lag === 0);
        },
        { what: `group ${group} ready to cut over`, timeoutMs: 240_000, intervalMs: 1000 },
      );
    } finally {
      await tools.close();
    }
    const ready = await status(file);
    assert.deepEqual(
      ready.partitions.map((p) => [p.topic, p.partition, p.preserved]).sort(),
      [
        [orders, 0, true],
        [orders, 1, true],
        [payments, 0, false],
      ].sort(),
    );
    assert.match(ready.partitions.find((p) => p.topic === payments)!.reason!, /no records at offsets \d+ to \d+/);
    assert.deepEqual(
      ready.groups.filter((g) => g.group === group).map((g) => [g.ready, g.cutover]),
      [[true, undefined]],
    );
  });

  test('cutover --dry-run says what it would commit and changes nothing', async () => {
    const dry = await runCli(['migrate', file, 'cutover', '--group', group, '--dry-run'], 180_000);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`group "${group}": would stop its offset sync`));
    assert.match(dry.stdout, /Dry run: nothing was changed\./);
    assert.equal((await firstValueFrom(clients.admin('backup').describeGroups([group]))).get(group), 'dead', 'the dry run committed nothing');
    assert.equal((await status(file)).state.groups[group], undefined, 'the dry run recorded no step');
  });

  test('cutover commits the group on the target; it reads the rest there: none missed, none twice on preserved partitions', async () => {
    const cut = await runCli(['migrate', file, 'cutover', '--group', group, '--wait', '240000'], 300_000);
    assert.equal(cut.code, 0, cut.stderr);
    assert.match(cut.stdout, new RegExp(`bootstrap servers: ${clusters.backup.replace(/\./g, '\\.')}`));
    assert.match(cut.stdout, new RegExp(`${orders} -> primary\\.${orders}`));
    const again = await runCli(['migrate', file, 'cutover', '--group', group], 180_000);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already cut over/);
    assert.equal((await status(file)).state.groups[group]?.state, 'cut-over');

    // The same application, repointed to backup: it reads the rest.
    ends = new Map([
      [remote(orders), await backup.endOffsets(remote(orders))],
      [remote(payments), await backup.endOffsets(remote(payments))],
    ]);
    const secondHalf = await consume(clusters.backup, group, [remote(orders), remote(payments)], (reads) =>
      [...ends].every(([topic, partitionEnds]) =>
        partitionEnds.every((end, p) => reads.some((r) => r.topic === topic && r.partition === p && r.offset === end - 1)),
      ),
    );

    const sourceOrders = (await primary.readAllFlat(orders)).map((r) => r.value!.toString());
    const sourcePayments = (await primary.readAllFlat(payments)).map((r) => r.value!.toString());
    const readOrders = [...firstHalf.filter((r) => r.topic === orders), ...secondHalf.filter((r) => r.topic === remote(orders))].map((r) => r.value);
    assert.deepEqual([...readOrders].sort(), [...sourceOrders].sort(), 'orders (preserved): every record read once, none missed, none twice');
    assert.deepEqual(
      secondHalf
        .filter((r) => r.topic === remote(orders))
        .map((r) => r.offset)
        .filter((o) => o < 50),
      [],
      'on the target the group started exactly where it stopped on the source',
    );
    const readPayments = [...firstHalf.filter((r) => r.topic === payments), ...secondHalf.filter((r) => r.topic === remote(payments))].map((r) => r.value);
    assert.deepEqual([...new Set(readPayments)].sort(), [...sourcePayments].sort(), 'payments (translated): none missed');
    // Translated through the checkpoints, one past the nearest offset sync MM2's store keeps: the
    // group reads again the last records it read on the source, and only those.
    const readOnSource = firstHalf.filter((r) => r.topic === payments).map((r) => r.value);
    const readOnTarget = new Set(secondHalf.filter((r) => r.topic === remote(payments)).map((r) => r.value));
    const twice = readOnSource.filter((v) => readOnTarget.has(v));
    assert.ok(
      twice.length < readOnSource.length,
      `payments: the group did not start over on the target (${twice.length} of ${readOnSource.length} read again)`,
    );
    assert.deepEqual(twice, readOnSource.slice(readOnSource.length - twice.length), 'payments: what is read twice is the tail of what was read on the source');
  });

  test('finish stops the running flow for good, in the running process and in a new run', async () => {
    const finished = await runCli(['migrate', file, 'finish', '--quiet', '2000', '--wait', '240000'], 300_000);
    assert.equal(finished.code, 0, finished.stderr);
    assert.match(finished.stdout, /^Finished: the flow primary -> backup is stopped for good/m);
    // finish waits until no process is in the flow's source group: the running one has left it.
    assert.match(pipeline.stdout() + pipeline.stderr(), /mirrorflow migrate finish stops the flow for good/);
    assert.equal((await status(file)).state.finish?.state, 'finished');
    pipeline.kill('SIGTERM');
    assert.equal((await pipeline.exited).code, 0);

    const rerun = spawnPipeline(file);
    await rerun.waitForOutput(/The flow is not started: mirrorflow migrate finish stopped it for good/, 120_000);
    rerun.kill('SIGTERM');
    assert.equal((await rerun.exited).code, 0);
    assert.deepEqual(await backup.endOffsets(remote(orders)), ends.get(remote(orders)), 'the target topics are left as they were');
  });
});

describe('mirrorflow migrate cutover refusals', () => {
  test('a group with an active member on the target is refused, named, and nothing changes', async () => {
    const topic = uniqueName('mig-busy');
    const busy = uniqueName('busy-app');
    await primary.createTopic(topic, 1);
    await primary.produce(topic, numbered('busy', 0, 10, 1));
    const { file } = await writePipeline({ flows: [{ topics: [topic], offsets: 'preserve', checkpoints: { interval_ms: 1000 } }] });
    await backup.createTopic(`primary.${topic}`, 1);
    const member = consumer(clusters.backup, busy);
    await member.connect();
    await member.subscribe({ topics: [`primary.${topic}`], fromBeginning: true });
    await member.run({ eachMessage: async () => undefined });
    await waitFor(async () => (await firstValueFrom(clients.admin('backup').describeGroups([busy]))).get(busy) === 'stable', {
      what: `group ${busy} stable on backup`,
    });
    const refused = await runCli(['migrate', file, 'cutover', '--group', busy], 180_000);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, new RegExp(`Group "${busy}" has active members on cluster "backup"`));
    assert.match(refused.stderr, /Nothing was changed\./);
    const s = await status(file);
    assert.equal(s.state.groups[busy], undefined, 'no step was recorded');
  });
});
