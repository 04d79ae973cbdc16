import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import { registerCodecs } from '../codecs';
import { decodeMessages, decodeRecordBatch, isFetchedRecordBatch, forwardBatchesOf, type FetchedRecordBatch } from './fetch-decoder';
import { encodeRecordBatch } from './record-batch-encoder';
import { kafkajsFetchDecoding, kafkajsInternal } from './kafkajs-internals';
import type { DecodedRecord } from './record-decoder';

registerCodecs();

/**
 * Real fetches of Java-written transactional data: test/fixtures/transactions (see test/fixtures/transactions/capture.ts
 * there). Two transactional producers a and b whose transactions overlap (b's nested in a's in
 * even rounds, crossing it in odd ones), plain records in between; a's transaction t is aborted
 * when (t + 1) % 3 == 0, b's when t % 3 != 0. Keys are `<producer>-<t>-<j>`.
 */
const FIXTURES = [
  resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'transactions'),
  resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'transactions'),
].find((dir) => existsSync(dir))!;

interface Fixture {
  readonly records: Buffer;
  readonly highWatermark: string;
  readonly abortedTransactions: { producerId: string; firstOffset: string }[];
  readonly committedCount: number;
}

function fixture(codec: string): Fixture {
  const meta = JSON.parse(readFileSync(join(FIXTURES, `${codec}.json`), 'utf8')) as Omit<Fixture, 'records'>;
  return { ...meta, records: readFileSync(join(FIXTURES, `${codec}.records.bin`)) };
}

/** kafkajs's consumer Batch: what eachBatch gets (`messages`) and where the next fetch starts. */
interface KafkajsBatch {
  readonly messages: unknown[];
  lastOffset(): string;
  isEmptyDueToFiltering(): boolean;
}
type BatchClass = new (topic: string, fetchedOffset: string, partitionData: unknown) => KafkajsBatch;
const Batch = kafkajsInternal('kafkajs/src/consumer/batch') as BatchClass;

function recordSet(body: Buffer): InstanceType<ReturnType<typeof kafkajsFetchDecoding>['Decoder']> {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return new (kafkajsFetchDecoding().Decoder)(Buffer.concat([size, body]));
}

async function fetched(f: Fixture, fetchedOffset = '0', forward = false): Promise<KafkajsBatch> {
  const decoder = recordSet(f.records);
  if (forward) forwardBatchesOf(decoder.buffer, { minCompressedBytes: 0, maxBytes: Number.MAX_SAFE_INTEGER });
  const messages = await decodeMessages(decoder);
  return new Batch('t', fetchedOffset, { partition: 0, highWatermark: f.highWatermark, abortedTransactions: f.abortedTransactions, messages });
}

/** Whether a read_committed consumer sees the record, by the producers' rule for their keys. */
function committed(key: string): boolean {
  const [producer, round] = key.split('-');
  const t = Number(round);
  if (producer === 'a') return (t + 1) % 3 !== 0;
  if (producer === 'b') return t % 3 === 0;
  assert.equal(producer, 'plain', `unexpected key ${key}`);
  return true;
}

const dataRecords = (messages: unknown[]): DecodedRecord[] => (messages as DecodedRecord[]).filter((m) => !m.isControlRecord);
const keyOf = (m: DecodedRecord): string => m.key!.toString();

for (const codec of ['none', 'lz4']) {
  test(`a fetch of overlapping Java transactions (${codec}): exactly the committed records survive, and the position moves past the markers`, async () => {
    const f = fixture(codec);
    const all = dataRecords(await decodeMessages(recordSet(f.records)));
    assert.ok(
      all.some((m) => !committed(keyOf(m))),
      'the fixture must hold aborted records',
    );
    const expected = all.filter((m) => committed(keyOf(m))).map((m) => m.offset);
    const batch = await fetched(f);
    const kept = batch.messages as DecodedRecord[];
    assert.deepEqual(
      kept.map((m) => m.offset),
      expected,
      `aborted records kept: ${kept
        .filter((m) => !committed(keyOf(m)))
        .map(keyOf)
        .join(' ')}`,
    );
    assert.equal(kept.length, f.committedCount, 'the same count as a read_committed Java consumer');
    assert.equal(batch.lastOffset(), String(Number(f.highWatermark) - 1), 'the next fetch starts after the last marker');
  });

  test(`a fetch that starts inside an aborted transaction (${codec}) keeps only committed records from there on`, async () => {
    const f = fixture(codec);
    const all = dataRecords(await decodeMessages(recordSet(f.records)));
    // Start inside the first aborted transaction that began before another producer's did.
    const from = all.find((m) => !committed(keyOf(m)) && keyOf(m).startsWith('a-'))!.offset;
    const inside = String(Number(from) + 3);
    const expected = all.filter((m) => committed(keyOf(m)) && Number(m.offset) >= Number(inside)).map((m) => m.offset);
    assert.deepEqual(
      ((await fetched(f, inside)).messages as DecodedRecord[]).map((m) => m.offset),
      expected,
    );
  });
}

test('forwarded batches of overlapping Java transactions: the aborted ones are dropped whole, the rest hold exactly the committed records', async () => {
  const f = fixture('none');
  const expected = dataRecords(await decodeMessages(recordSet(f.records)))
    .filter((m) => committed(keyOf(m)))
    .map((m) => m.offset);
  const batch = await fetched(f, '0', true);
  assert.ok(batch.messages.every(isFetchedRecordBatch), 'test setup: every data batch is forwarded');
  const records: DecodedRecord[] = [];
  for (const m of batch.messages as FetchedRecordBatch[]) records.push(...(await decodeRecordBatch(m.recordBatch.bytes)));
  assert.deepEqual(
    records.map((r) => r.offset),
    expected,
  );
  assert.equal(batch.lastOffset(), String(Number(f.highWatermark) - 1));
});

test('a fetch of nothing but an aborted transaction and its marker yields no record and still moves the position past the marker', async () => {
  const encode = async (baseOffset: number, keys: Buffer[], attributes: number): Promise<Buffer> => {
    const batch = await encodeRecordBatch(
      keys.map((key) => ({ key, value: Buffer.from('v'), timestamp: 1, headers: [] })),
      { compression: 0, codec: undefined, crc32c, producerId: 9, producerEpoch: 0, firstSequence: 0, transactional: true },
    );
    batch.writeBigInt64BE(BigInt(baseOffset), 0);
    batch.writeInt16BE(batch.readInt16BE(21) | attributes, 21);
    return batch;
  };
  const data = await encode(10, [Buffer.from('x'), Buffer.from('y')], 0);
  const abortMarker = await encode(12, [Buffer.from([0, 0, 0, 0])], 0x20);
  for (const forward of [false, true]) {
    const f: Fixture = {
      records: Buffer.concat([data, abortMarker]),
      highWatermark: '20',
      abortedTransactions: [{ producerId: '9', firstOffset: '10' }],
      committedCount: 0,
    };
    const batch = await fetched(f, '10', forward);
    assert.deepEqual(batch.messages, []);
    assert.ok(batch.isEmptyDueToFiltering(), 'kafkajs resolves the offset of a batch emptied by filtering');
    assert.equal(batch.lastOffset(), '12');
  }
});
