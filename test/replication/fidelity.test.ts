/**
 * Byte fidelity (issue #2): what a consumer of the remote topic reads is what producers wrote on
 * the source — keys, values, headers (order, duplicates, null values), timestamps, partitions —
 * whatever the source's compression, and only committed transactional records.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit, distinct, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline } from '../support/pipeline-harness';
import type { Compression } from '../../src/core/ports/record-writer';
import { sourceAndTargetKits } from '../support/use-kits';

/** A fixed, recent-ish CreateTime, so timestamps compare exactly. */
const T0 = 1_700_000_000_000;

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const buf = (text: string): Buffer => Buffer.from(text, 'utf8');

/**
 * The three ways records travel: decoded and re-encoded (what a flow with transforms does), and
 * in the record batches they were fetched in (flows without transforms; here compressed batches
 * too however small they are), and with every compressed batch inflated into an uncompressed one
 * (what small compressed batches get by default). Every test runs all three ways.
 */
const MODES = [
  { name: 're-encoded record by record', batching: { forward_batches: false }, forwards: false },
  { name: 'forwarded in their fetched record batches', batching: { forward_compressed_min_bytes: 0 }, forwards: true },
  { name: 'compressed batches inflated and joined with others', batching: { forward_compressed_min_bytes: 1 << 20 }, forwards: true },
] as const;
type Mode = (typeof MODES)[number];

/**
 * Runs a pipeline over `<prefix>.*` until each remote topic holds `expected[topic]` records (the
 * source's count: a retried produce may have put a record there twice), then stops it, and
 * checks that the records travelled the way `mode` says.
 */
async function replicate(mode: Mode, prefix: string, expected: Readonly<Record<string, number>>, flow: Record<string, unknown> = {}): Promise<void> {
  const { file } = await writePipeline({ flows: [{ topics: [`${prefix}.*`], batching: mode.batching, ...flow }] });
  const run: RunningPipeline = await startPipeline(file);
  try {
    for (const [topic, count] of Object.entries(expected)) {
      await run.until(async () => (await target.count(`primary.${topic}`)) >= count, { what: `${count} records in primary.${topic}`, timeoutMs: 60_000 });
    }
  } finally {
    await run.stop();
  }
  const forwarded = run.statuses().reduce((n, s) => n + s.recordBatchesForwarded, 0);
  if (mode.forwards) assert.ok(forwarded > 0, 'record batches must have been forwarded as fetched');
  else assert.equal(forwarded, 0, 'no record batch may have been forwarded');
}

/**
 * Asserts the remote topic has the source's partition count and, partition by partition, exactly
 * the records the source has (snapshot() compares every byte that must survive). `written`, when
 * given, is what the test produced: the source must hold it (the check that the test's own
 * producer and the comparison did not both lose a distinction, such as null vs empty).
 */
async function assertIdentical(topic: string, written?: readonly TestRecord[]): Promise<void> {
  const remote = `primary.${topic}`;
  const sourcePartitions = (await source.topics()).get(topic);
  const targetPartitions = (await target.topics()).get(remote);
  assert.equal(targetPartitions, sourcePartitions, `${remote} must have as many partitions as ${topic}`);
  const fromSource = await source.readAll(topic);
  const onTarget = await target.readAll(remote);
  for (let p = 0; p < sourcePartitions!; p++) {
    const sourceRecords = fromSource.get(p) ?? [];
    if (written) {
      // First occurrences: a retried produce under load may have written a record twice.
      assert.deepEqual(
        snapshot(distinct(sourceRecords)),
        snapshot(written.filter((r) => r.partition === p)),
        `test setup: partition ${p} of ${topic} must hold what was written`,
      );
    }
    assert.deepEqual(snapshot(onTarget.get(p) ?? []), snapshot(sourceRecords), `partition ${p} of ${remote} must equal partition ${p} of ${topic}`);
  }
}

for (const mode of MODES)
  describe(`byte fidelity, records ${mode.name}`, () => {
    test('keys, values, headers and timestamps arrive exactly as written, in the same partitions', async () => {
      const prefix = uniqueName(`fid-bytes-${mode.forwards ? 'f' : 'r'}`);
      const topic = `${prefix}.mixed`;
      await source.createTopic(topic, 3);
      const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i)); // every byte value, not valid UTF-8
      const records: TestRecord[] = [
        { partition: 0, key: null, value: buf('null key'), headers: [], timestamp: T0 },
        { partition: 0, key: Buffer.alloc(0), value: buf('empty key'), headers: [], timestamp: T0 + 1 },
        { partition: 0, key: buf('tombstone'), value: null, headers: [], timestamp: T0 + 2 },
        { partition: 0, key: buf('empty value'), value: Buffer.alloc(0), headers: [], timestamp: T0 + 3 },
        { partition: 0, key: null, value: null, headers: [], timestamp: T0 + 4 },
        {
          partition: 1,
          key: buf('headers'),
          value: buf('duplicate header keys, interleaved'),
          headers: [
            { key: 'a', value: buf('1') },
            { key: 'b', value: buf('2') },
            { key: 'a', value: buf('3') },
            { key: 'null-value', value: null },
            { key: 'empty-value', value: Buffer.alloc(0) },
            { key: '', value: buf('empty header key') },
            { key: 'binary', value: binary },
            { key: 'ünïcödé', value: buf('✓') },
          ],
          timestamp: T0 + 5,
        },
        {
          partition: 1,
          key: buf('many headers'),
          value: buf('x'),
          headers: Array.from({ length: 40 }, (_, i) => ({ key: `h${i % 7}`, value: i % 5 === 0 ? null : buf(String(i)) })),
          timestamp: T0 + 6,
        },
        { partition: 2, key: binary, value: binary, headers: [], timestamp: 0 },
        { partition: 2, key: buf('epoch'), value: buf('timestamp 0 again'), headers: [{ key: 'a', value: null }], timestamp: 0 },
        { partition: 2, key: buf('older than the first'), value: buf('timestamps need not grow'), headers: [], timestamp: T0 - 86_400_000 },
        { partition: 2, key: buf('large'), value: Buffer.alloc(200_000, 7), headers: [], timestamp: T0 + 7 },
      ];
      // Plus enough ordinary records that several fetches and batches are involved.
      for (let i = 0; i < 600; i++) {
        records.push({ partition: i % 3, key: buf(`k${i}`), value: buf(`v${i}`), headers: [{ key: 'i', value: buf(String(i)) }], timestamp: T0 + 1000 + i });
      }
      await source.produce(topic, records);

      await replicate(mode, prefix, { [topic]: await source.count(topic) });
      await assertIdentical(topic, records);
    });

    test('records written with gzip, snappy, lz4 and zstd arrive identical', async () => {
      const prefix = uniqueName(`fid-codec-${mode.forwards ? 'f' : 'r'}`);
      const codecs: Compression[] = ['gzip', 'snappy', 'lz4', 'zstd'];
      const written = new Map<string, TestRecord[]>();
      for (const codec of codecs) {
        const topic = `${prefix}.${codec}`;
        await source.createTopic(topic, 2);
        const records: TestRecord[] = Array.from({ length: 400 }, (_, i) => ({
          partition: i % 2,
          key: i % 10 === 0 ? null : buf(`${codec}-${i}`),
          value: i % 13 === 0 ? null : buf(`${codec} value ${i} `.repeat(1 + (i % 20))),
          headers: [
            { key: 'codec', value: buf(codec) },
            { key: 'n', value: i % 3 === 0 ? null : buf(String(i)) },
            { key: 'codec', value: buf('again') },
          ],
          timestamp: T0 + i,
        }));
        await source.produce(topic, records, codec);
        written.set(topic, records);
      }

      const counts: Record<string, number> = {};
      for (const topic of written.keys()) counts[topic] = await source.count(topic);
      await replicate(mode, prefix, counts);
      for (const [topic, records] of written) await assertIdentical(topic, records);
    });

    test('a transactional source: exactly the committed records arrive, in order', async () => {
      const prefix = uniqueName(`fid-tx-${mode.forwards ? 'f' : 'r'}`);
      const topic = `${prefix}.tx`;
      await source.createTopic(topic, 2);
      let n = 0;
      const batch = (label: string, size: number): TestRecord[] =>
        Array.from({ length: size }, () => {
          const i = n++;
          return {
            partition: i % 2,
            key: buf(`${label}-${i}`),
            value: buf(`${label} ${i}`),
            headers: [{ key: 'state', value: buf(label) }],
            timestamp: T0 + i,
          };
        });
      const batches = [
        { records: batch('committed', 50), commit: true },
        { records: batch('aborted', 30), commit: false },
        { records: batch('committed', 40), commit: true },
        { records: batch('aborted', 20), commit: false },
        { records: batch('aborted', 10), commit: false },
        { records: batch('committed', 25), commit: true },
      ];
      await source.produceTransactional(topic, batches);
      const committed = batches.filter((b) => b.commit).flatMap((b) => b.records);

      await replicate(mode, prefix, { [topic]: committed.length });
      const onTarget = await target.readAll(`primary.${topic}`);
      for (const p of [0, 1]) {
        assert.deepEqual(
          snapshot(onTarget.get(p) ?? []),
          snapshot(committed.filter((r) => r.partition === p)),
          `partition ${p} must hold the committed records only, in the order they were written`,
        );
      }
      assert.equal(await target.count(`primary.${topic}`), committed.length, 'no aborted record and no transaction marker may be copied');
    });
  });
