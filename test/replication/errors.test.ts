/**
 * Records that cannot be replicated: a transform that throws on them, or a target topic
 * that refuses them as too large. With errors.tolerance none the flow stops naming the record and
 * keeps what came before it; with all they go to the dead-letter topic and replication goes on.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { KafkaKit, distinct, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { runCli, startPipeline, writePipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';
import { RecordFailedError } from '../../src/core/errors';
import type { KafkaRecord } from '../../src/core/record';

/** The test plugins (`fail_on_value`), compiled: dist/test/plugins from dist/test/replication. */
const PLUGIN_DIR = resolve(__dirname, '..', 'plugins');
const PROGRESS_TOPIC = 'mm2-offsets.primary.internal';
/**
 * Records' own timestamps, set apart from their append time; recent, since a record older than the
 * brokers' 7-day retention may be deleted before it is read.
 */
const T0 = Date.now() - 60 * 60 * 1000;

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const buf = (text: string): Buffer => Buffer.from(text, 'utf8');

/** Records `<label>-<i>` with a key, two headers and their own timestamp; the values in `poison` instead where listed. */
function records(label: string, count: number, poison: ReadonlyMap<number, string> = new Map()): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: 0,
    key: buf(`key-${i}`),
    value: buf(poison.get(i) ?? `${label}-${i}`),
    headers: [
      { key: 'trace', value: buf(`t${i}`) },
      { key: 'empty', value: null },
    ],
    timestamp: T0 + i,
  }));
}

const text = (value: Buffer | null): string | null => (value === null ? null : value.toString('utf8'));

/** The context headers mirrorflow adds to a dead-letter record, as text. */
function contextHeaders(record: KafkaRecord): Record<string, string | null> {
  return Object.fromEntries(record.headers.filter((h) => h.key.startsWith('__')).map((h) => [h.key, text(h.value)]));
}

/** The record without its context headers: what must equal the source record byte for byte. */
const withoutContext = (record: KafkaRecord): KafkaRecord => ({ ...record, headers: record.headers.filter((h) => !h.key.startsWith('__')) });

/** The offset MM2's progress record stores for partition 0 of `topic` (the last offset done), newest first. */
async function storedOffset(topic: string): Promise<number | undefined> {
  let found: number | undefined;
  for (const partitionRecords of (await target.readAll(PROGRESS_TOPIC)).values()) {
    for (const r of partitionRecords) {
      const key = text(r.key) ?? '';
      if (key.includes(`"topic":${JSON.stringify(topic)}`) && key.includes('"partition":0'))
        found = (JSON.parse(text(r.value) ?? '{}') as { offset: number }).offset;
    }
  }
  return found;
}

describe('a transform that throws on some records', () => {
  test('tolerance none: the run exits 65 naming topic, partition, offset and plugin; progress stops just before the record; fixed, the rest follows with nothing missing', async () => {
    const prefix = uniqueName('err-none');
    const topic = `${prefix}.orders`;
    const written = records(prefix, 10, new Map([[5, 'poison']]));
    await source.createTopic(topic, 1);
    await source.produce(topic, written);

    const failing = await writePipeline({ flows: [{ topics: [`${prefix}\\..*`], transforms: [{ type: 'fail_on_value', values: ['poison'] }] }] });
    const result = await runCli(['run', failing.file, '--plugin-dir', PLUGIN_DIR]);
    assert.equal(result.code, 65, `exit code; stderr:\n${result.stderr}`);
    assert.match(result.stderr, new RegExp(`topic "${topic}" partition 0 offset 5 failed in transform "fail_on_value" \\(flows\\[0\\]\\.transforms\\[0\\]\\)`));
    assert.match(result.stderr, /TypeError thrown; its message is withheld/);
    assert.doesNotMatch(result.stderr + result.stdout, /cannot handle poison/, 'the record is never quoted');
    assert.equal(await storedOffset(topic), 4, 'progress is stored up to the record before the failing one');
    assert.deepEqual(
      distinct(await target.readAllFlat(`primary.${topic}`)).map((r) => text(r.value)),
      written.slice(0, 5).map((r) => text(r.value)),
      'the records before it are on the target, none after it',
    );

    // The same pipeline with the transform fixed: it resumes at the failing record.
    const fixed = await writePipeline({ name: failing.name, flows: [{ topics: [`${prefix}\\..*`], transforms: [{ type: 'fail_on_value', values: [] }] }] });
    const run = await startPipeline(fixed.file, { pluginDirs: [PLUGIN_DIR] });
    try {
      await run.until(async () => (await target.count(`primary.${topic}`)) >= 10, { what: `10 records in primary.${topic}`, timeoutMs: 60_000 });
    } finally {
      await run.stop();
    }
    const onTarget = await target.readAllFlat(`primary.${topic}`);
    assert.deepEqual(snapshot(onTarget), snapshot(written), 'every record once, in order: nothing missing, nothing copied twice');
  });

  test('tolerance all: the dead-letter topic holds exactly the failing records, byte for byte with context headers; the target exactly the others, in order', async () => {
    const prefix = uniqueName('err-all');
    const topic = `${prefix}.orders`;
    const dlq = `${prefix}-dlq`;
    const written = records(
      prefix,
      12,
      new Map([
        [2, 'poison-a'],
        [7, 'poison-b'],
        [8, 'poison-a'],
      ]),
    );
    await source.createTopic(topic, 1);
    await source.produce(topic, written);

    const { file } = await writePipeline({
      flows: [
        {
          topics: [`${prefix}\\..*`],
          transforms: [{ type: 'fail_on_value', values: ['poison-a', 'poison-b'] }],
          errors: { tolerance: 'all', deadletterqueue: { topic_name: dlq, replication_factor: 1 } },
        },
      ],
    });
    const run = await startPipeline(file, { pluginDirs: [PLUGIN_DIR] });
    try {
      await run.until(async () => (await target.count(`primary.${topic}`)) >= 9 && (await target.count(dlq)) >= 3, {
        what: `9 records in primary.${topic} and 3 in ${dlq}`,
        timeoutMs: 60_000,
      });
      await run.until(() => run.statuses()[0]!.recordsDeadLettered === 3, { what: 'the flow status to count 3 dead-lettered records', timeoutMs: 10_000 });
    } finally {
      await run.stop();
    }

    const failing = [2, 7, 8];
    const expectedTarget = written.filter((_, i) => !failing.includes(i));
    assert.deepEqual(snapshot(await target.readAllFlat(`primary.${topic}`)), snapshot(expectedTarget), 'the target holds exactly the other records, in order');

    const dead = await target.readAllFlat(dlq);
    assert.deepEqual(snapshot(dead.map(withoutContext)), snapshot(failing.map((i) => written[i]!)), 'key, value, headers and timestamp as on the source');
    assert.deepEqual(
      dead.map(contextHeaders),
      failing.map((offset) => ({
        '__connect.errors.topic': topic,
        '__connect.errors.partition': '0',
        '__connect.errors.offset': String(offset),
        '__connect.errors.connector.name': 'primary->backup',
        '__connect.errors.stage': 'TRANSFORMATION',
        '__connect.errors.class.name': 'fail_on_value',
        '__connect.errors.exception.class.name': 'TypeError',
        '__connect.errors.exception.message': 'TypeError thrown; its message is withheld because it may quote record data (see the cause).',
        '__mirrorflow.errors.transform.step': 'flows[0].transforms[0]',
      })),
    );
    const logged = run.logs.filter((l) => l.message === 'A record failed and went to the dead-letter topic.');
    assert.deepEqual(
      logged.map((l) => [l.meta['topic'], l.meta['offset'], l.meta['plugin']]),
      failing.map((offset) => [topic, offset, 'fail_on_value']),
    );
    assert.doesNotMatch(JSON.stringify(run.logs), /poison|cannot handle/, 'no log line quotes a record');
  });
});

/**
 * The remote topic's smaller max.message.bytes is the target's own override: config sync would
 * remove it, as MM2's does for a config at its default on the source (use.defaults.from = target).
 */
const TARGET_OWN_LIMIT = { topic_sync: { sync_configs: false } };

describe('a record larger than the remote topic takes (max.message.bytes)', () => {
  /** Six small records and, at offset 3, one of 5000 bytes, produced together (one record batch); the remote topic takes 2000 bytes. */
  async function setUp(prefix: string): Promise<{ topic: string; written: TestRecord[] }> {
    const topic = `${prefix}.big`;
    const written = records(prefix, 6);
    written[3] = { ...written[3]!, value: buf('x'.repeat(5000)) };
    await source.createTopic(topic, 1);
    await target.createTopic(`primary.${topic}`, 1, { 'max.message.bytes': '2000' });
    await source.produce(topic, written);
    return { topic, written };
  }

  test('tolerance all: the record goes to the dead-letter topic, narrowed out of its forwarded batch; the rest replicates', async () => {
    const prefix = uniqueName('err-big-all');
    const { topic, written } = await setUp(prefix);
    const dlq = `${prefix}-dlq`;
    const { file } = await writePipeline({
      flows: [{ topics: [`${prefix}\\..*`], errors: { tolerance: 'all', deadletterqueue: { topic_name: dlq, replication_factor: 1 } }, ...TARGET_OWN_LIMIT }],
    });
    const run = await startPipeline(file);
    try {
      await run.until(async () => (await target.count(`primary.${topic}`)) >= 5 && (await target.count(dlq)) >= 1, {
        what: `5 records in primary.${topic} and 1 in ${dlq}`,
        timeoutMs: 60_000,
      });
    } finally {
      await run.stop();
    }
    assert.ok(run.statuses()[0]!.recordBatchesForwarded > 0, 'the records travelled in their fetched batch');
    assert.deepEqual(snapshot(await target.readAllFlat(`primary.${topic}`)), snapshot(written.filter((_, i) => i !== 3)));
    const dead = await target.readAllFlat(dlq);
    assert.deepEqual(snapshot(dead.map(withoutContext)), snapshot([written[3]!]));
    const context = contextHeaders(dead[0]!);
    assert.equal(context['__connect.errors.offset'], '3');
    assert.equal(context['__connect.errors.stage'], 'KAFKA_PRODUCE');
    assert.match(context['__connect.errors.exception.message'] ?? '', new RegExp(`larger than primary\\.${prefix}\\.big-0 takes`));
  });

  test('tolerance none: the flow stops naming the record and the write', async () => {
    const prefix = uniqueName('err-big-none');
    const { topic } = await setUp(prefix);
    const { file } = await writePipeline({ flows: [{ topics: [`${prefix}\\..*`], ...TARGET_OWN_LIMIT }] });
    const run = await startPipeline(file);
    await assert.rejects(run.done, (error: unknown) => {
      assert.ok(error instanceof RecordFailedError, String(error));
      assert.match(
        error.message,
        new RegExp(`topic "${topic}" partition 0 offset 3 failed in the write to the target: .*larger than primary\\.${prefix}\\.big-0 takes`),
      );
      return true;
    });
    assert.equal(run.statuses()[0]!.state, 'failed');
  });
});
