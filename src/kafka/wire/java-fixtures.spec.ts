/**
 * The wire codec against bytes Kafka wrote: Fetch and Produce responses of a real broker holding
 * records written by Kafka's Java producer (fixtures/, captured by
 * test/interop/capture-wire-fixtures.ts). Decoded through kafkajs's own response decoders, which
 * call ours (kafkajs's bundle requires ours in their place), as a running consumer does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import { registerCodecs } from '../codecs';
import { decodeRecordBatch, isFetchedRecordBatch, type FetchedRecordBatch, type ForwardPolicy } from './fetch-decoder';
import { encodeRecordBatch } from './record-batch-encoder';
import { joinForwardedBatches } from './record-batch-join';
import type { DecodedRecord } from './record-decoder';
import { withBehaviour } from './connection-behaviour';
import { kafkajsApiKeys, kafkajsInternal } from './kafkajs-internals';
import { produceRequestV3, type ForwardedBatchMessage, type StampedMessage } from './produce-request';

const fetchV11 = kafkajsInternal('kafkajs/src/protocol/requests/fetch/v11/response') as {
  decode(raw: Buffer): Promise<FetchResponse>;
  parse(data: never): Promise<unknown>;
};
const produceV7 = kafkajsInternal('kafkajs/src/protocol/requests/produce/v7/response') as {
  decode(raw: Buffer): Promise<unknown>;
  parse(data: unknown): Promise<unknown>;
};

interface FetchPartition {
  readonly partition: number;
  readonly errorCode: number;
  readonly highWatermark: string;
  readonly lastStableOffset: string;
  readonly abortedTransactions: readonly { producerId: string; firstOffset: string }[];
  readonly messages: readonly unknown[];
}
interface FetchResponse {
  readonly responses: readonly { readonly topicName: string; readonly partitions: readonly FetchPartition[] }[];
}

/** `src/kafka/wire/fixtures/<name>`, from `dist/src/kafka/wire/`. */
function fixture(name: string): Buffer {
  const file = resolve(__dirname, '..', '..', '..', '..', 'src', 'kafka', 'wire', 'fixtures', name);
  return Buffer.from(readFileSync(file, 'utf8').replace(/\s/g, ''), 'hex');
}

/** The fixture's one partition as a consumer's connection decodes it: one that forwards with `forward`, or any other. */
async function fetchedPartition(name: string, forward?: ForwardPolicy): Promise<FetchPartition> {
  const { response: fetch } = withBehaviour(forward && { forward }, { request: { apiKey: kafkajsApiKeys().Fetch }, response: fetchV11 });
  const response = (await fetch.decode(fixture(name))) as FetchResponse;
  assert.equal(response.responses.length, 1);
  assert.equal(response.responses[0]!.partitions.length, 1);
  return response.responses[0]!.partitions[0]!;
}

registerCodecs();

const T = 1_700_000_000_000;
const CODECS = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;
const LONG_VALUE = 'compressible-'.repeat(20);
const b = (s: string): Buffer => Buffer.from(s, 'utf8');

/** The five records WireFixtureProducer.java writes into every codec topic, as a consumer must see them. */
const EXPECTED = [
  {
    offset: '0',
    timestamp: String(T),
    key: b('k0'),
    value: b('v0'),
    headers: [
      { key: 'a', value: b('1') },
      { key: 'b', value: b('2') },
      { key: 'a', value: b('3') },
    ],
  },
  { offset: '1', timestamp: String(T + 1), key: null, value: b('v1'), headers: [{ key: 'n', value: null }] },
  { offset: '2', timestamp: String(T + 2), key: Buffer.alloc(0), value: Buffer.alloc(0), headers: [] },
  {
    offset: '3',
    timestamp: String(T + 3),
    key: b('k3'),
    value: null,
    headers: [
      { key: 'x', value: Buffer.alloc(0) },
      { key: 'y', value: null },
    ],
  },
  { offset: '4', timestamp: String(T - 5), key: b('k4'), value: b(LONG_VALUE), headers: [] },
];

const fields = (m: DecodedRecord) => ({ offset: m.offset, timestamp: m.timestamp, key: m.key, value: m.value, headers: m.headers });

describe('fetch responses of records written by the Java producer', () => {
  for (const [codec, id] of Object.entries(CODECS)) {
    it(`decodes a ${codec} batch: headers in order with repeats and nulls, null vs empty, tombstone, an earlier timestamp`, async () => {
      const partition = await fetchedPartition(`java-producer-fetch-${codec}.hex`);
      assert.equal(partition.errorCode, 0);
      assert.equal(partition.highWatermark, '5');
      const messages = partition.messages as DecodedRecord[];
      assert.deepEqual(messages.map(fields), EXPECTED);
      for (const m of messages) assert.equal(m.isControlRecord, false);
    });

    it(`hands a ${codec} batch over whole when forwarding, with the fields the consumer and the writer use`, async () => {
      const policy = { minCompressedBytes: 0, maxBytes: 1 << 20 };
      const partition = await fetchedPartition(`java-producer-fetch-${codec}.hex`, policy);
      assert.equal(partition.messages.length, 1);
      const whole = partition.messages[0] as FetchedRecordBatch;
      assert.ok(isFetchedRecordBatch(whole));
      assert.equal(whole.offset, '4'); // kafkajs moves its position past the batch's last offset
      assert.equal(whole.batchContext.inTransaction, false);
      assert.deepEqual(
        { ...whole.recordBatch, bytes: undefined },
        { baseOffset: 0, recordCount: 5, compressed: id !== 0, maxTimestamp: T + 3, bytes: undefined },
      );
      assert.equal(whole.recordBatch.bytes.readInt16BE(21) & 0x07, id, 'the batch keeps the codec the Java producer chose');
      assert.equal(
        crc32c(whole.recordBatch.bytes.subarray(21)) >>> 0,
        whole.recordBatch.bytes.readUInt32BE(17),
        'the bytes are the whole batch as the broker stored it',
      );
      assert.deepEqual((await decodeRecordBatch(whole.recordBatch.bytes)).map(fields), EXPECTED);
    });

    if (id !== 0)
      it(`inflates a small ${codec} batch into the uncompressed batch of the same records, joined with uncompressed ones when written`, async () => {
        const policy = { minCompressedBytes: 1 << 20, maxBytes: 1 << 20 };
        const partition = await fetchedPartition(`java-producer-fetch-${codec}.hex`, policy);
        const whole = partition.messages[0] as FetchedRecordBatch;
        assert.ok(partition.messages.length === 1 && isFetchedRecordBatch(whole));
        assert.equal(whole.recordBatch.compressed, false);
        assert.equal(whole.recordBatch.bytes.readInt16BE(21) & 0x07, 0);
        assert.deepEqual((await decodeRecordBatch(whole.recordBatch.bytes)).map(fields), EXPECTED);
        const none = await fetchedPartition('java-producer-fetch-none.hex', policy);
        const uncompressed = (none.messages[0] as FetchedRecordBatch).recordBatch.bytes;
        assert.equal(
          whole.recordBatch.bytes.subarray(61).toString('hex'),
          uncompressed.subarray(61).toString('hex'),
          "the Java producer's records, byte for byte",
        );
        const written = joinForwardedBatches([whole.recordBatch.bytes, uncompressed], {
          compression: 0,
          crc32c,
          producerId: 3,
          producerEpoch: 0,
          firstSequence: 0,
        });
        assert.equal(crc32c(written.subarray(21)) >>> 0, written.readUInt32BE(17), 'the written batch carries its CRC');
        const records = await decodeRecordBatch(written);
        assert.deepEqual(
          records.map((r) => r.value),
          [...EXPECTED, ...EXPECTED].map((r) => r.value),
        );
      });
  }

  it('encodes the same records into the same record bytes as the Java producer', async () => {
    const partition = await fetchedPartition('java-producer-fetch-none.hex', { minCompressedBytes: 0, maxBytes: 1 << 20 });
    const java = (partition.messages[0] as FetchedRecordBatch).recordBatch.bytes;
    // Records 0-3, whose first timestamp is also their smallest: Java bases a batch's timestamps
    // on its first record, ours on the smallest, so with record 4 (earlier) the deltas differ.
    const ours = await encodeRecordBatch(
      EXPECTED.slice(0, 4).map((r) => ({ key: r.key, value: r.value, timestamp: Number(r.timestamp), headers: r.headers })),
      { compression: 0, crc32c, producerId: -1, producerEpoch: -1, firstSequence: -1, transactional: false },
    );
    const javaRecords = java.subarray(61, 61 + recordsLength(java.subarray(61), 4));
    assert.equal(ours.subarray(61).toString('hex'), javaRecords.toString('hex'));
    assert.equal(ours.readBigInt64BE(27), java.readBigInt64BE(27), 'base timestamp');
  });

  it('reads a read_committed fetch of a transactional partition: the aborted transaction, control records, producer fields', async () => {
    const partition = await fetchedPartition('java-producer-fetch-txn.hex');
    assert.equal(partition.highWatermark, '7');
    assert.equal(partition.lastStableOffset, '7');
    const messages = partition.messages as DecodedRecord[];
    const producerId = (messages[0]!.batchContext as { producerId?: string }).producerId;
    assert.deepEqual(partition.abortedTransactions, [{ producerId, firstOffset: '3' }]);
    assert.deepEqual(
      messages.map((m) => [m.offset, m.isControlRecord, m.isControlRecord ? m.key!.toString('hex') : `${m.key!.toString()}=${m.value!.toString()}`]),
      [
        ['3', false, 't2=aborted-2'],
        ['4', true, '00000000'], // control record key: version 0, type 0 = ABORT
        ['5', false, 't3=committed-3'],
        ['6', true, '00000001'], // type 1 = COMMIT
      ],
    );
    for (const m of messages) assert.equal((m.batchContext as { inTransaction?: boolean }).inTransaction, true);
    assert.deepEqual(
      messages.filter((m) => !m.isControlRecord).map((m) => m.timestamp),
      [String(T + 2), String(T + 3)],
    );
  });

  it('forwards transactional data batches, with producer id and transaction flag for kafkajs to filter aborted ones, and decodes control batches', async () => {
    const partition = await fetchedPartition('java-producer-fetch-txn.hex', { minCompressedBytes: 0, maxBytes: 1 << 20 });
    const kinds = partition.messages.map((m) =>
      isFetchedRecordBatch(m)
        ? `batch@${m.offset}:${m.batchContext.inTransaction}`
        : `record@${(m as DecodedRecord).offset}:control=${(m as DecodedRecord).isControlRecord}`,
    );
    assert.deepEqual(kinds, ['batch@3:true', 'record@4:control=true', 'batch@5:true', 'record@6:control=true']);
    const producerIds = new Set(partition.messages.filter(isFetchedRecordBatch).map((m) => m.batchContext.producerId));
    assert.deepEqual([...producerIds], [partition.abortedTransactions[0]!.producerId]);
  });
});

/** The one batch of a one-partition produce request body (v3), and the partition it is for. */
function requestedBatch(body: Buffer): Buffer {
  let at = 2 + 2 + 4 + 4; // null transactional id, acks, timeout, topic count
  at += 2 + body.readInt16BE(at) + 4 + 4; // topic name, partition count, partition
  const size = body.readInt32BE(at);
  return body.subarray(at + 4, at + 4 + size);
}

describe("Java producer's batches forwarded by an idempotent writer", () => {
  const stamp = { producerId: 4242, producerEpoch: 3, baseSequence: 17 };
  const forward = async (batches: readonly FetchedRecordBatch[]): Promise<Buffer> => {
    const messages: (ForwardedBatchMessage & StampedMessage)[] = batches.map((b, i) => ({
      value: null,
      recordBatch: b.recordBatch,
      ...(i === 0 ? { producer: stamp } : {}),
    }));
    const request = produceRequestV3({ acks: -1, timeout: 30_000, topicData: [{ topic: 'primary.t', partitions: [{ partition: 0, messages }] }] });
    return requestedBatch((await request.encode()).buffer);
  };
  const checkHeader = (sent: Buffer, java: Buffer, records: number): void => {
    assert.equal(sent.readBigInt64BE(43), 4242n, 'producer id');
    assert.equal(sent.readInt16BE(51), 3, 'producer epoch');
    assert.equal(sent.readInt32BE(53), 17, 'base sequence');
    assert.equal(sent.readInt32BE(57), records, 'record count');
    assert.equal(sent.readInt16BE(21), java.readInt16BE(21) & ~0x10, 'attributes: codec and timestamp type kept, not transactional');
    assert.equal(crc32c(sent.subarray(21)) >>> 0, sent.readUInt32BE(17), 'CRC-32C recomputed over the new header');
    assert.notEqual(sent.readUInt32BE(17), java.readUInt32BE(17));
  };

  for (const codec of ['lz4', 'zstd', 'none'] as const) {
    it(`rewrites a ${codec} batch's producer id, epoch, base sequence and CRC; its records stay byte for byte`, async () => {
      const partition = await fetchedPartition(`java-producer-fetch-${codec}.hex`, { minCompressedBytes: 0, maxBytes: 1 << 20 });
      const java = (partition.messages[0] as FetchedRecordBatch).recordBatch.bytes;
      assert.equal(crc32c(java.subarray(21)) >>> 0, java.readUInt32BE(17), "our CRC-32C is the Java producer's");
      const sent = await forward([partition.messages[0] as FetchedRecordBatch]);
      checkHeader(sent, java, 5);
      assert.deepEqual(sent.subarray(61), java.subarray(61));
      assert.deepEqual((await decodeRecordBatch(sent)).map(fields), EXPECTED);
    });
  }

  it('clears the transactional flag of batches a transactional producer wrote, and joins them under one sequence range', async () => {
    const partition = await fetchedPartition('java-producer-fetch-txn.hex', { minCompressedBytes: 0, maxBytes: 1 << 20 });
    const batches = partition.messages.filter(isFetchedRecordBatch);
    const java = batches[0]!.recordBatch.bytes;
    assert.equal(java.readInt16BE(21) & 0x10, 0x10, 'written in a transaction');
    checkHeader(await forward([batches[0]!]), java, 1);
    const joined = await forward(batches);
    checkHeader(joined, java, 2);
    assert.deepEqual(
      (await decodeRecordBatch(joined)).map((r) => `${r.key!.toString()}=${r.value!.toString()}`),
      ['t2=aborted-2', 't3=committed-3'],
    );
  });
});

describe('a produce response of a real broker', () => {
  it("reports each partition's result through kafkajs's v7 decoder and our parse", async () => {
    const data = await produceV7.decode(fixture('broker-produce-v7.hex'));
    assert.deepEqual(
      (data as { topics: { topicName: string; partitions: { partition: number; errorCode: number; baseOffset: string }[] }[] }).topics.map((t) => ({
        topic: t.topicName,
        partitions: t.partitions.map((p) => [p.partition, p.errorCode, p.baseOffset]),
      })),
      [
        {
          topic: 'wire-produce',
          partitions: [
            [0, 0, '0'],
            [1, 3, '-1'],
          ],
        },
      ],
    );
    // Partition 0 was written: a writer's connection gets both results; any other, kafkajs's
    // producer, sees the error (UNKNOWN_TOPIC_OR_PARTITION) as before.
    const writers = withBehaviour({ partialProduceResults: true }, { request: { apiKey: kafkajsApiKeys().Produce }, response: produceV7 });
    assert.equal(await writers.response.parse(data as never), data);
    await assert.rejects(produceV7.parse(data), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});

/** Bytes of the first `count` length-prefixed records of a records section. */
function recordsLength(records: Buffer, count: number): number {
  let at = 0;
  for (let i = 0; i < count; i++) {
    let raw = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = records[at++]!;
      raw |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    at += (raw >>> 1) ^ -(raw & 1);
  }
  return at;
}
