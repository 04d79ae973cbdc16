/**
 * Record batches forwarded as fetched: where forwarding a batch would not reproduce
 * the source's records, mirrorflow decodes it instead, and the target still gets exactly what a
 * consumer of the source reads. (The plain cases, all codecs and transactions, run both ways in
 * fidelity.test.ts.)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline } from '../support/pipeline-harness';
import { connectOffsetsPartition, encodeConnectOffsetValue, encodeSourceOffsetKey, DEFAULT_OFFSETS_TOPIC_PARTITIONS } from '../../src/formats';
import { sourceAndTargetKits } from '../support/use-kits';

const PROGRESS_TOPIC = 'mm2-offsets.primary.internal';
const T0 = 1_700_000_000_000;
/** Every batch forwarded that can be; heartbeats left out, so the counts are this test's own. */
const FORWARD_EVERYTHING = { batching: { forward_compressed_min_bytes: 0 }, replicate_heartbeats: false };
/** A remote topic's smaller max.message.bytes set on the target stays: config sync would remove it (the source has the default). */
const TARGET_OWN_LIMIT = { topic_sync: { sync_configs: false } };

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

function numbered(label: string, from: number, count: number, partition = 0): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`${label}-${from + i}`),
    headers: [{ key: 'n', value: Buffer.from(String(from + i)) }],
    timestamp: T0 + from + i,
  }));
}

const forwardedBatches = (run: RunningPipeline): number => run.statuses().reduce((n, s) => n + s.recordBatchesForwarded, 0);

async function untilCount(run: RunningPipeline, topic: string, count: number): Promise<void> {
  await run.until(async () => (await target.count(topic)) >= count, { what: `${count} records in ${topic}`, timeoutMs: 60_000 });
}

describe('forwarded record batches', () => {
  test('resuming in the middle of a fetched batch (progress stored by MM2) copies exactly the records after it', async () => {
    const topic = `${uniqueName('fwd-resume')}.orders`;
    await source.createTopic(topic, 1);
    await source.produce(topic, numbered('first', 0, 300)); // one record batch, offsets 0-299

    // MM2 replicated up to offset 149 and stored that in its Connect offsets topic.
    if (!(await target.topics()).has(PROGRESS_TOPIC))
      await target.createTopic(PROGRESS_TOPIC, DEFAULT_OFFSETS_TOPIC_PARTITIONS, { 'cleanup.policy': 'compact' });
    const key = encodeSourceOffsetKey({ sourceClusterAlias: 'primary', topic, partition: 0 });
    const partitions = (await target.topics()).get(PROGRESS_TOPIC)!;
    await target.produce(PROGRESS_TOPIC, [
      { partition: connectOffsetsPartition(key, partitions), key, value: encodeConnectOffsetValue(149), headers: [], timestamp: Date.now() },
    ]);

    const { file } = await writePipeline({ flows: [{ topics: [topic.replace(/\./g, '\\.')], ...FORWARD_EVERYTHING }] });
    const run = await startPipeline(file);
    try {
      await untilCount(run, `primary.${topic}`, 150);
      await source.produce(topic, numbered('second', 300, 200)); // a second batch, offsets 300-499
      await untilCount(run, `primary.${topic}`, 350);
    } finally {
      await run.stop();
    }
    const fromSource = (await source.readAll(topic)).get(0)!;
    const onTarget = (await target.readAll(`primary.${topic}`)).get(0)!;
    assert.deepEqual(snapshot(onTarget), snapshot(fromSource.slice(150)), 'the target must hold offsets 150-499 of the source, each once, in order');
    assert.ok(forwardedBatches(run) > 0, 'the batch after the resume point must have been forwarded whole');
  });

  test('a LogAppendTime source topic: each record keeps the time the source broker appended it', async () => {
    const topic = `${uniqueName('fwd-append')}.events`;
    await source.createTopic(topic, 2, { 'message.timestamp.type': 'LogAppendTime' });
    await source.produce(topic, [...numbered('a', 0, 100, 0), ...numbered('b', 100, 100, 1)]);
    const fromSource = await source.readAll(topic);
    assert.ok(
      [...fromSource.values()].flat().every((r) => r.timestamp > T0 + 1_000_000),
      'test setup: the source must have replaced the CreateTimes',
    );

    const { file } = await writePipeline({ flows: [{ topics: [topic.replace(/\./g, '\\.')], ...FORWARD_EVERYTHING }] });
    const run: RunningPipeline = await startPipeline(file);
    try {
      await untilCount(run, `primary.${topic}`, 200);
    } finally {
      await run.stop();
    }
    const onTarget = await target.readAll(`primary.${topic}`);
    for (const p of [0, 1])
      assert.deepEqual(snapshot(onTarget.get(p) ?? []), snapshot(fromSource.get(p) ?? []), `partition ${p}: records and their append times`);
    assert.equal(forwardedBatches(run), 0, 'a LogAppendTime batch cannot be forwarded: its records carry the append time only in the batch header');
  });

  test('a target compression set in the flow: batches compressed otherwise are recompressed, the rest forwarded', async () => {
    const prefix = uniqueName('fwd-codec');
    const written = new Map<string, TestRecord[]>([
      [`${prefix}.lz4`, numbered('lz4', 0, 400)],
      [`${prefix}.zstd`, numbered('zstd', 0, 400)],
    ]);
    for (const [topic, records] of written) {
      await source.createTopic(topic, 1);
      await source.produce(topic, records, topic.endsWith('lz4') ? 'lz4' : 'zstd');
    }
    const { file } = await writePipeline({ flows: [{ topics: [`${prefix}\\..*`], ...FORWARD_EVERYTHING, producer: { compression: 'zstd' } }] });
    const run: RunningPipeline = await startPipeline(file);
    try {
      for (const topic of written.keys()) await untilCount(run, `primary.${topic}`, 400);
    } finally {
      await run.stop();
    }
    for (const [topic, records] of written) {
      assert.deepEqual(snapshot((await target.readAll(`primary.${topic}`)).get(0) ?? []), snapshot(records), `primary.${topic} must hold what was written`);
    }
    // One batch each: the zstd one forwarded, the lz4 one re-encoded with zstd.
    assert.equal(forwardedBatches(run), 1);
  });

  test('a batch larger than the target producer may send is re-encoded into requests the target takes', async () => {
    const topic = `${uniqueName('fwd-large')}.blobs`;
    const remote = `primary.${topic}`;
    // 400 KiB that zstd cannot shrink, in one batch: the source broker takes it (1 MiB by
    // default); the target's copy of the topic takes no batch over 128 KiB.
    const records: TestRecord[] = Array.from({ length: 400 }, (_, i) => ({
      partition: 0,
      key: Buffer.from(`k${i}`),
      value: randomBytes(1024),
      headers: [],
      timestamp: T0 + i,
    }));
    await source.createTopic(topic, 1);
    await source.produce(topic, records, 'zstd');
    await target.createTopic(remote, 1, { 'max.message.bytes': String(128 * 1024) });

    const { file } = await writePipeline({
      flows: [{ topics: [topic.replace(/\./g, '\\.')], ...FORWARD_EVERYTHING, ...TARGET_OWN_LIMIT, producer: { max_request_bytes: 100_000 } }],
    });
    const run = await startPipeline(file);
    try {
      await untilCount(run, remote, records.length);
    } finally {
      await run.stop();
    }
    assert.deepEqual(snapshot((await target.readAll(remote)).get(0) ?? []), snapshot(records), `${remote} must hold what was written`);
    assert.equal(forwardedBatches(run), 0, 'the batch was decoded, not forwarded');
  });

  test('a remote topic taking smaller batches than the producer sends: joined batches are written in parts that fit', async () => {
    const topic = `${uniqueName('fwd-small-target')}.events`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 1);
    // 60 uncompressed batches of 10 KiB: joined, they make batches far over what the remote topic takes.
    const records: TestRecord[] = Array.from({ length: 600 }, (_, i) => ({
      partition: 0,
      key: Buffer.from(`k${i}`),
      value: randomBytes(1000),
      headers: [],
      timestamp: T0 + i,
    }));
    for (let i = 0; i < records.length; i += 10) await source.produce(topic, records.slice(i, i + 10));
    await target.createTopic(remote, 1, { 'max.message.bytes': String(64 * 1024) });

    const { file } = await writePipeline({ flows: [{ topics: [topic.replace(/\./g, '\\.')], ...FORWARD_EVERYTHING, ...TARGET_OWN_LIMIT }] });
    const run = await startPipeline(file);
    try {
      await untilCount(run, remote, records.length);
    } finally {
      await run.stop();
    }
    assert.deepEqual(snapshot((await target.readAll(remote)).get(0) ?? []), snapshot(records), `${remote} must hold what was written, in order`);
    assert.equal(forwardedBatches(run), 60);
  });
});
