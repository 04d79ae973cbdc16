/**
 * `mirrorflow verify` on real brokers (issue 38), the source written by Kafka's Java producer: a
 * clean copy verifies with exit 0, in a table and as JSON; damage done to the target on purpose —
 * records deleted with DeleteRecords, records written twice, foreign records — is found and counted
 * exactly, partition by partition, with exit 1; ranges (`--from`/`--to`, offsets and times) and
 * `--topics` bound what is read; records not copied yet are `behind`, not missing; flows with
 * transforms are compared by what their filters let through and as the transforms write them;
 * `offsets: preserve` is compared offset for offset.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, type TestClusters } from '../support/clusters';
import { caughtUp, runCli, startPipeline, writePipeline, type TestFlow } from '../support/pipeline-harness';
import { sharedClusterKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';

let clusters: TestClusters;
let source: KafkaKit;
let target: KafkaKit;
let java: JavaTools;

sharedClusterKits('mirrorflow-verify-', (kits) => ({ clusters, primary: source, backup: target } = kits));

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
});

interface VerifyJson {
  readonly partitions: readonly {
    readonly expired: number;
    readonly flow: string;
    readonly topic: string;
    readonly partition: number;
    readonly remote_topic: string;
    readonly missing: number;
    readonly duplicates: number;
    readonly unexpected: number;
    readonly behind: number;
    readonly matched: number;
    readonly filtered: number;
    readonly compared_by: string;
    readonly offsets_preserved: boolean;
    readonly first_missing_offset?: number;
  }[];
  readonly totals: { readonly missing: number; readonly duplicates: number; readonly unexpected: number; readonly behind: number; readonly matched: number };
}

/** `records` records written by the Java producer, record i to partition i % partitions (keys and values differ, one header each). */
async function produce(topic: string, partitions: number, records: number): Promise<void> {
  await java.produce({ bootstrap: clusters.primary, topic, partitions, records, keyBytes: 16, valueBytes: 120, headers: 2, timeoutMs: 180_000 });
}

/** Replicates the test's topics until the target holds every source record, then stops the flow. */
async function replicate(flow: TestFlow, topics: readonly string[]): Promise<string> {
  const { file } = await writePipeline({ flows: [flow] });
  const run = await startPipeline(file);
  await run.running();
  await run.until(() => caughtUp(run, source, topics), { what: `${topics.join(', ')} copied`, timeoutMs: 120_000 });
  await run.stop();
  return file;
}

async function verify(args: readonly string[]): Promise<{ code: number | null; report: VerifyJson; stderr: string }> {
  // The offset syncs may take their time on a loaded machine: the limit raised, as a user would.
  const result = await runCli(['verify', ...args, '--timeout', '120000', '--json'], 180_000);
  let report: VerifyJson;
  try {
    report = JSON.parse(result.stdout) as VerifyJson;
  } catch {
    throw new Error(`verify printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return { code: result.code, report, stderr: result.stderr };
}

const counts = (report: VerifyJson) =>
  report.partitions.map((p) => ({
    partition: p.partition,
    missing: p.missing,
    duplicates: p.duplicates,
    unexpected: p.unexpected,
    behind: p.behind,
    matched: p.matched,
  }));

describe('mirrorflow verify', () => {
  test('a clean copy verifies: exit 0, every record matched, a table and a JSON document', async () => {
    const p = uniqueName('verify-clean');
    const topic = `${p}-orders`;
    await source.createTopic(topic, 3);
    await produce(topic, 3, 30_000);
    const file = await replicate({ topics: [`${p}-.*`] }, [topic]);

    const { code, report, stderr } = await verify([file]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      counts(report),
      [0, 1, 2].map((partition) => ({ partition, missing: 0, duplicates: 0, unexpected: 0, behind: 0, matched: 10_000 })),
    );
    assert.deepEqual(Object.keys(report.partitions[0]!).slice(0, 8), [
      'flow',
      'topic',
      'partition',
      'remote_topic',
      'missing',
      'duplicates',
      'unexpected',
      'behind',
    ]);
    assert.equal(report.partitions[0]!.remote_topic, `primary.${topic}`);
    assert.equal(report.partitions[0]!.flow, 'primary->backup');

    const table = await runCli(['verify', file], 180_000);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^FLOW +TOPIC +PARTITION +REMOTE TOPIC +MATCHED +MISSING +DUPLICATES +UNEXPECTED +BEHIND$/m);
    assert.match(table.stdout, /Verified: 30000 records matched in 3 partitions\./);
  });

  test('damage done to the target is found and counted exactly: deleted, duplicated and foreign records; exit 1', async () => {
    const began = Date.now();
    const p = uniqueName('verify-damage');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    const other = `${p}-other`;
    await source.createTopic(topic, 3);
    await source.createTopic(other, 1);
    await produce(topic, 3, 9_000);
    await produce(other, 1, 500);
    const file = await replicate({ topics: [`${p}-.*`] }, [topic, other]);

    // Partition 0 loses its first 500 copies; partition 1 gets 100 copies written again; partition 2, 7 records of no source.
    await target.deleteRecords(remote, 0, 500);
    const copies = (await target.readAll(remote)).get(1)!.slice(1000, 1100);
    await target.produce(
      remote,
      copies.map((r): TestRecord => ({ partition: 1, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
    );
    await target.produce(
      remote,
      Array.from({ length: 7 }, (_, i): TestRecord => ({
        partition: 2,
        key: Buffer.from(`foreign-${i}`),
        value: Buffer.from('not from the source'),
        headers: [],
        timestamp: Date.now(),
      })),
    );

    const damaged = await verify([file]);
    assert.equal(damaged.code, 1, damaged.stderr);
    const orders = { ...damaged.report, partitions: damaged.report.partitions.filter((r) => r.topic === topic) };
    assert.deepEqual(counts(orders), [
      { partition: 0, missing: 500, duplicates: 0, unexpected: 0, behind: 0, matched: 2_500 },
      { partition: 1, missing: 0, duplicates: 100, unexpected: 0, behind: 0, matched: 3_000 },
      { partition: 2, missing: 0, duplicates: 0, unexpected: 7, behind: 0, matched: 3_000 },
    ]);
    assert.equal(orders.partitions[0]!.first_missing_offset, 0);
    assert.deepEqual(damaged.report.totals, { missing: 500, duplicates: 100, unexpected: 7, behind: 0, matched: 9_000, expired: 0 });

    // --topics: the undamaged topic alone verifies.
    const alone = await verify([file, '--topics', other]);
    assert.equal(alone.code, 0, alone.stderr);
    assert.deepEqual(
      alone.report.partitions.map((r) => [r.topic, r.matched]),
      [[other, 500]],
    );
    // A range past the deleted copies and before the duplicated and foreign ones verifies.
    const ranged = await verify([file, '--topics', topic, '--from', '600', '--to', '1000']);
    assert.equal(ranged.code, 0, ranged.stderr);
    assert.deepEqual(
      ranged.report.partitions.map((r) => r.matched),
      [400, 400, 400],
    );
    // Times: every record of the undamaged topic was written after the test began, none after now.
    const since = await verify([file, '--topics', other, '--from', new Date(began - 1000).toISOString()]);
    assert.equal(since.code, 0, since.stderr);
    assert.equal(since.report.totals.matched, 500);
    const later = await verify([file, '--topics', other, '--from', new Date(Date.now() + 60_000).toISOString()]);
    assert.equal(later.code, 0, later.stderr);
    assert.equal(later.report.totals.matched, 0);
  });

  test("records written after the flow stopped are behind, not missing; records the source's retention removed unread are said so", async () => {
    const p = uniqueName('verify-behind');
    const topic = `${p}-orders`;
    await source.createTopic(topic, 2);
    await produce(topic, 2, 2_000);
    const file = await replicate({ topics: [`${p}-.*`] }, [topic]);
    await produce(topic, 2, 600);
    const { code, report, stderr } = await verify([file]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      counts(report),
      [0, 1].map((partition) => ({ partition, missing: 0, duplicates: 0, unexpected: 0, behind: 300, matched: 1_000 })),
    );

    // The source loses offsets 0 … 1099 of partition 0 while the flow is stopped at 1000: 100 of them it never copied.
    await source.deleteRecords(topic, 0, 1100);
    const expired = await verify([file]);
    assert.equal(expired.code, 0, expired.stderr);
    assert.deepEqual(
      expired.report.partitions.map((r) => [r.partition, r.expired, r.behind, r.missing]),
      [
        [0, 100, 200, 0],
        [1, 0, 300, 0],
      ],
    );
    const table = await runCli(['verify', file], 180_000);
    assert.match(table.stdout, /-0: 100 offsets below the log's start were removed before the flow copied them \(progress 1000\)\./);
  });

  test('transforms: records compared as the transforms write them, those the filters drop counted apart', async () => {
    const p = uniqueName('verify-transforms');
    const topic = `${p}-orders`;
    await source.createTopic(topic, 1);
    await source.produce(
      topic,
      Array.from({ length: 300 }, (_, i): TestRecord => ({
        partition: 0,
        key: Buffer.from(`k${i}`),
        value: Buffer.from(`v${i}`),
        headers: i % 3 === 0 ? [{ key: 'skip', value: Buffer.from('yes') }] : [],
        timestamp: Date.now(),
      })),
    );
    const flow: TestFlow = {
      topics: [`${p}-.*`],
      transforms: [
        { type: 'drop', when: { has_header: 'skip' } },
        { type: 'insert_header', header: 'copied-by', value: 'mirrorflow' },
      ],
    };
    const file = await replicate(flow, [topic]);
    const { code, report, stderr } = await verify([file]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      report.partitions.map((r) => [r.compared_by, r.matched, r.filtered, r.unexpected]),
      [['content', 200, 100, 0]],
    );
  });

  test('offsets: preserve: compared offset for offset', async () => {
    const p = uniqueName('verify-preserve');
    const topic = `${p}-orders`;
    await source.createTopic(topic, 2);
    await produce(topic, 2, 4_000);
    const file = await replicate({ topics: [`${p}-.*`], offsets: 'preserve' }, [topic]);
    const { code, report, stderr } = await verify([file]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      report.partitions.map((r) => [r.offsets_preserved, r.matched]),
      [
        [true, 2_000],
        [true, 2_000],
      ],
    );
  });

  test("an exactly-once flow's target is read as its readers read it: copies an aborted transaction left there are not duplicates", async () => {
    const p = uniqueName('verify-eos');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 2);
    await produce(topic, 2, 2_000);
    const file = await replicate({ topics: [`${p}-.*`], delivery: 'exactly_once', tasks: 1 }, [topic]);

    // What a process fenced mid-transaction leaves: copies of records already there, aborted.
    const before = await target.endOffsets(remote);
    const copies = (await target.readAll(remote)).get(1)!.slice(100, 200);
    await target.produceTransactional(remote, [
      { records: copies.map((r): TestRecord => ({ partition: 1, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })), commit: false },
    ]);
    assert.equal((await target.endOffsets(remote))[1], before[1]! + 101, 'the aborted copies and their marker are in the log');

    const { code, report, stderr } = await verify([file]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      counts(report),
      [0, 1].map((partition) => ({ partition, missing: 0, duplicates: 0, unexpected: 0, behind: 0, matched: 1_000 })),
    );
  });
});
