/**
 * Fetch v13–v16 by topic id against bytes Kafka wrote (fixtures/, captured by
 * test/interop/capture-fetch-fixtures.ts): each request as Kafka's Java client serializes it
 * (FetchRequest.Builder.forConsumer), and a Kafka 4.3.1 broker's answer to exactly that request,
 * about records Kafka's Java producers wrote (test/interop/java/FetchFixture.java):
 *
 *   wire-fetch-a  0: five records in one lz4 batch (0-4)
 *                 1: a transaction of two records aborted (0-1, marker 2), one of two committed (3-4, marker 5)
 *   wire-fetch-b  0: two batches of two records (0-1, 2-3), the first deleted (log start 2)
 *
 * Topic ids, session ids and producer ids differ per capture; everything else is asserted.
 */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { KafkaJSOffsetOutOfRange, KafkaJSProtocolError } from '../kafkajs';
import { registerCodecs } from '../codecs';
import {
  decodeFetchByTopicId,
  encodeFetchByTopicId,
  fetchByTopicIdRequest,
  TopicIds,
  type FetchByTopicIdResponse,
  type FetchedPartition,
} from './fetch-by-topic-id';
import { forwardBatchesOf, isFetchedRecordBatch, type FetchedRecordBatch } from './fetch-decoder';
import { filterAbortedMessages } from './filter-aborted-messages';
import type { SessionFetchRequest } from './fetch-session';
import type { MetadataV12Response } from './metadata-v12';
import { uvarint } from './compact-codec';
import { encodeRecordBatch } from './record-batch-encoder';
import type { DecodedRecord } from './record-decoder';

registerCodecs();

const FIXTURES = resolve(__dirname, '..', '..', '..', '..', 'src', 'kafka', 'wire', 'fixtures');
/** `src/kafka/wire/fixtures/<name>` (hex), from `dist/src/kafka/wire/`. */
const fixture = (name: string): Buffer => Buffer.from(readFileSync(resolve(FIXTURES, name), 'utf8').replace(/\s/g, ''), 'hex');

const A = 'wire-fetch-a';
const B = 'wire-fetch-b';
const GONE = 'wire-fetch-gone';
/** The ids Kafka's Admin client gave for the topics (Uuid.toString()), and FetchFixture's id no topic has. */
const IDS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    readFileSync(resolve(FIXTURES, 'java-fetch-topic-ids.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  ),
  [GONE]: Buffer.from('0123456789abcdef0fedcba987654321', 'hex').toString('base64url'),
};
/** Every request and answer was captured at v13 and v16; the full ones also at v14 and v15, either side of replica_id's end. */
const VERSIONS = [13, 16] as const;
const FULL_VERSIONS = [13, 14, 15, 16] as const;

/** A Metadata v12 answer naming `topics`. */
function metadata(topics: readonly { name: string | null; topicId: string; errorCode?: number }[]): MetadataV12Response {
  return {
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: 1,
    topics: topics.map(({ name, topicId, errorCode }) => ({ errorCode: errorCode ?? 0, name, topicId, isInternal: false, partitions: [] })),
  };
}

/** The ids of `topics` learned as a client learns them. */
async function idsOf(...topics: string[]): Promise<TopicIds> {
  const ids = new TopicIds();
  await ids.learn(topics, async (asked) => metadata(asked.map((name) => ({ name, topicId: IDS[name]! }))));
  return ids;
}

const at = (partition: number, fetchOffset: string, maxBytes: number) => ({ partition, fetchOffset, maxBytes });

/** FetchFixture's requests, field for field. */
const REQUESTS = {
  full: (): SessionFetchRequest => ({
    isolationLevel: 1,
    maxWaitTime: 500,
    minBytes: 1,
    maxBytes: 52_428_800,
    sessionId: 0,
    sessionEpoch: 0,
    topics: [
      { topic: A, partitions: [at(0, '0', 1_048_576), at(1, '0', 524_288)] },
      { topic: B, partitions: [at(0, '2', 262_144)] },
    ],
    forgottenTopics: [],
    rackId: 'rack-a',
  }),
  sessionless: (): SessionFetchRequest => ({
    isolationLevel: 0,
    maxWaitTime: 100,
    minBytes: 1,
    maxBytes: 10_485_760,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      { topic: A, partitions: [at(1, '0', 1_048_576)] },
      { topic: B, partitions: [at(0, '0', 1_048_576)] },
    ],
    forgottenTopics: [],
  }),
  incremental: (sessionId: number): SessionFetchRequest => ({
    isolationLevel: 1,
    maxWaitTime: 500,
    minBytes: 1,
    maxBytes: 52_428_800,
    sessionId,
    sessionEpoch: 1,
    topics: [{ topic: A, partitions: [at(1, '3', 524_288)] }],
    forgottenTopics: [{ topic: B, partitions: [0] }],
    rackId: 'rack-a',
  }),
  unknown: (): SessionFetchRequest => ({
    isolationLevel: 1,
    maxWaitTime: 100,
    minBytes: 1,
    maxBytes: 10_485_760,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      { topic: GONE, partitions: [at(0, '0', 1_048_576)] },
      { topic: A, partitions: [at(0, '0', 1_048_576)] },
    ],
    forgottenTopics: [],
  }),
};

async function decoded(name: string, ids?: TopicIds): Promise<FetchByTopicIdResponse> {
  return decodeFetchByTopicId(fixture(name), ids ?? (await idsOf(A, B)));
}

function partitionOf(response: FetchByTopicIdResponse, topic: string, partition: number): FetchedPartition {
  const found = response.responses.find((t) => t.topicName === topic)?.partitions.find((p) => p.partition === partition);
  assert.ok(found, `${topic}-${partition} in the answer`);
  return found;
}

/** Offsets and what each record holds; control records by their key (version, type: 0 ABORT, 1 COMMIT). */
const records = (p: FetchedPartition): string[] =>
  (p.messages as DecodedRecord[]).map(
    (m) => `${m.offset} ${m.isControlRecord ? `control ${m.key!.toString('hex')}` : `${m.key!.toString()}=${m.value!.toString()}`}`,
  );

const A0_RECORDS = [0, 1, 2, 3, 4].map((i) => `${i} a0-k${i}=a0-v${i} ${'lz4-compressible '.repeat(4)}`);
const A1_RECORDS = ['0 a1-k0=aborted-0', '1 a1-k1=aborted-1', '2 control 00000000', '3 a1-k3=committed-3', '4 a1-k4=committed-4', '5 control 00000001'];

describe("Fetch by topic id: the request is byte for byte what Kafka's Java client serializes", () => {
  for (const version of FULL_VERSIONS)
    it(`v${version}: a full request that creates a session, read_committed, with a rack`, async () => {
      const ours = encodeFetchByTopicId(version, REQUESTS.full(), await idsOf(A, B));
      assert.equal(ours.toString('hex'), fixture(`java-fetch-full-v${version}-request.hex`).toString('hex'));
    });

  for (const version of VERSIONS) {
    it(`v${version}: a request without a session, read_uncommitted, no rack`, async () => {
      const ours = encodeFetchByTopicId(version, REQUESTS.sessionless(), await idsOf(A, B));
      assert.equal(ours.toString('hex'), fixture(`java-fetch-sessionless-v${version}-request.hex`).toString('hex'));
    });

    it(`v${version}: an incremental request of the session the broker created: a partition moved on, one forgotten`, async () => {
      const { sessionId } = await decoded(`broker-fetch-full-v${version}.hex`);
      const ours = encodeFetchByTopicId(version, REQUESTS.incremental(sessionId), await idsOf(A, B));
      assert.equal(ours.toString('hex'), fixture(`java-fetch-incremental-v${version}-request.hex`).toString('hex'));
    });
  }

  it('v15 dropped replica_id: v15 and v16 are v13 and v14 without their first four bytes (-1)', () => {
    for (const [withId, without] of [
      [13, 15],
      [14, 16],
    ]) {
      const java = fixture(`java-fetch-full-v${withId}-request.hex`);
      assert.equal(java.readInt32BE(0), -1);
      assert.equal(java.subarray(4).toString('hex'), fixture(`java-fetch-full-v${without}-request.hex`).toString('hex'));
    }
  });

  it('v16: a topic id no topic has, as the Java client names it', async () => {
    const ours = encodeFetchByTopicId(16, REQUESTS.unknown(), await idsOf(A, B, GONE));
    assert.equal(ours.toString('hex'), fixture('java-fetch-unknown-v16-request.hex').toString('hex'));
  });

  it("headroom leaves the front free for the request's header and the body as it is", async () => {
    const ids = await idsOf(A, B);
    const java = fixture('java-fetch-full-v16-request.hex');
    const ours = encodeFetchByTopicId(16, REQUESTS.full(), ids, 23);
    assert.equal(ours.length, 23 + java.length);
    assert.equal(ours.subarray(23).toString('hex'), java.toString('hex'));
    const { request } = fetchByTopicIdRequest(16, REQUESTS.full(), ids);
    assert.deepEqual([request.apiKey, request.apiVersion, request.apiName, request.flexible], [1, 16, 'Fetch', true]);
    const encoded = await request.encode(17);
    assert.equal(encoded.headroom, 17);
    assert.equal(encoded.buffer.subarray(17).toString('hex'), java.toString('hex'));
  });

  it('a topic without a known id is refused by name', async () => {
    assert.throws(() => encodeFetchByTopicId(16, REQUESTS.unknown(), new TopicIds()), /no id known for topic 'wire-fetch-gone'/);
  });
});

describe("Fetch by topic id: a broker's answers decode to what Kafka's Java producers wrote", () => {
  for (const version of FULL_VERSIONS)
    it(`v${version}: a new session's answer: every partition, its offsets, aborted transaction and records`, async () => {
      const response = await decoded(`broker-fetch-full-v${version}.hex`);
      assert.deepEqual([response.errorCode, response.throttleTime, response.clientSideThrottleTime], [0, 0, 0]);
      assert.ok(response.sessionId > 0, `a session was created (${response.sessionId})`);
      assert.deepEqual(
        response.responses.map((t) => [t.topicName, t.partitions.map((p) => p.partition)]),
        [
          [A, [0, 1]],
          [B, [0]],
        ],
      );
      const offsets = (p: FetchedPartition) => [p.errorCode, p.highWatermark, p.lastStableOffset, p.lastStartOffset, p.preferredReadReplica];
      const a0 = partitionOf(response, A, 0);
      assert.deepEqual(offsets(a0), [0, '5', '5', '0', -1]);
      assert.deepEqual(a0.abortedTransactions, []);
      assert.deepEqual(records(a0), A0_RECORDS);

      const a1 = partitionOf(response, A, 1);
      assert.deepEqual(offsets(a1), [0, '6', '6', '0', -1]);
      assert.deepEqual(records(a1), A1_RECORDS);
      // The aborted transaction by the producer id its records carry, from its first offset.
      const producerId = ((a1.messages[0] as DecodedRecord).batchContext as { producerId?: string }).producerId;
      assert.notEqual(producerId, '-1');
      assert.deepEqual(a1.abortedTransactions, [{ producerId, firstOffset: '0' }]);
      // As a read_committed consumer sees the partition (control records go in kafkajs's Batch).
      const committed = filterAbortedMessages({ messages: a1.messages as DecodedRecord[], abortedTransactions: a1.abortedTransactions }).filter(
        (m) => !m.isControlRecord,
      );
      assert.deepEqual(
        committed.map((m) => m.value!.toString()),
        ['committed-3', 'committed-4'],
      );

      const b0 = partitionOf(response, B, 0);
      assert.deepEqual(offsets(b0), [0, '4', '4', '2', -1]);
      assert.deepEqual(records(b0), ['2 b0-k2=b0-v2', '3 b0-k3=b0-v3']);
    });

  for (const version of VERSIONS) {
    it(`v${version}: with a forward policy, the data batches go whole and control batches are decoded`, async () => {
      const payload = fixture(`broker-fetch-full-v${version}.hex`);
      forwardBatchesOf(payload, { minCompressedBytes: 0, maxBytes: 1 << 20 });
      const response = await decodeFetchByTopicId(payload, await idsOf(A, B));
      const kinds = (p: FetchedPartition) =>
        p.messages.map((m) =>
          isFetchedRecordBatch(m)
            ? `batch ${m.batchContext.firstOffset}-${m.offset} of ${m.recordBatch.recordCount}${m.recordBatch.compressed ? ' compressed' : ''}${m.batchContext.inTransaction ? ' in a transaction' : ''}`
            : `record ${m.offset}${(m as DecodedRecord).isControlRecord ? ' control' : ''}`,
        );
      assert.deepEqual(kinds(partitionOf(response, A, 0)), ['batch 0-4 of 5 compressed']);
      const lz4 = partitionOf(response, A, 0).messages[0] as FetchedRecordBatch;
      assert.equal(lz4.recordBatch.bytes.readInt16BE(21) & 0x07, 3, 'the lz4 batch as the Java producer compressed it');
      assert.equal(crc32c(lz4.recordBatch.bytes.subarray(21)) >>> 0, lz4.recordBatch.bytes.readUInt32BE(17), 'whole, as the broker stored it');
      const a1 = partitionOf(response, A, 1);
      assert.deepEqual(kinds(a1), ['batch 0-1 of 2 in a transaction', 'record 2 control', 'batch 3-4 of 2 in a transaction', 'record 5 control']);
      assert.deepEqual(a1.abortedTransactions, [{ producerId: (a1.messages[0] as FetchedRecordBatch).batchContext.producerId, firstOffset: '0' }]);
      const kept = filterAbortedMessages({ messages: a1.messages as FetchedRecordBatch[], abortedTransactions: a1.abortedTransactions });
      assert.deepEqual(
        kept.filter(isFetchedRecordBatch).map((m) => m.batchContext.firstOffset),
        ['3'],
        'read_committed keeps the committed batch only',
      );
      assert.deepEqual(kinds(partitionOf(response, B, 0)), ['batch 2-3 of 2']);
    });

    it(`v${version}: an incremental answer, asked on another connection: the session's partitions with records, the forgotten one gone`, async () => {
      const full = await decoded(`broker-fetch-full-v${version}.hex`);
      const response = await decoded(`broker-fetch-incremental-v${version}.hex`);
      assert.equal(response.errorCode, 0);
      assert.equal(response.sessionId, full.sessionId, 'the same session');
      assert.deepEqual(
        response.responses.map((t) => [t.topicName, t.partitions.map((p) => p.partition)]),
        [[A, [0, 1]]],
      );
      // a-0 was not in the request: the session holds it at offset 0, and its records are answered again.
      assert.deepEqual(records(partitionOf(response, A, 0)), A0_RECORDS);
      const a1 = partitionOf(response, A, 1);
      assert.deepEqual([a1.highWatermark, a1.lastStableOffset, a1.abortedTransactions], ['6', '6', []]);
      assert.deepEqual(records(a1), A1_RECORDS.slice(3));
    });

    it(`v${version}: an answer without a session, read_uncommitted: aborted records too, and an offset below the log start`, async () => {
      const response = await decoded(`broker-fetch-sessionless-v${version}.hex`);
      assert.deepEqual([response.errorCode, response.sessionId], [0, 0]);
      const a1 = partitionOf(response, A, 1);
      assert.deepEqual(a1.abortedTransactions, []);
      assert.deepEqual(records(a1), A1_RECORDS);
      const b0 = partitionOf(response, B, 0);
      assert.deepEqual(
        { ...b0 },
        {
          partition: 0,
          errorCode: 1, // OFFSET_OUT_OF_RANGE
          highWatermark: '-1',
          lastStableOffset: '-1',
          lastStartOffset: '-1',
          abortedTransactions: [],
          preferredReadReplica: -1,
          messages: [],
        },
      );
      // kafkajs's parse throws the partition's error as its own v11 does.
      const { response: fetch } = fetchByTopicIdRequest(version, REQUESTS.sessionless(), await idsOf(A, B));
      await assert.rejects(fetch.parse(response), (error: unknown) => {
        assert.ok(error instanceof KafkaJSOffsetOutOfRange);
        assert.deepEqual([(error as unknown as { topic: string }).topic, (error as unknown as { partition: number }).partition], [B, 0]);
        return true;
      });
    });
  }

  it("kafkajs's parse hands over an answer without partition errors as decoded", async () => {
    const ids = await idsOf(A, B);
    const { response: fetch } = fetchByTopicIdRequest(16, REQUESTS.full(), ids);
    const response = await fetch.decode(fixture('broker-fetch-full-v16.hex'));
    assert.equal(await fetch.parse(response), response);
  });

  it('a response cut short throws a RangeError naming the Fetch response', async () => {
    const full = fixture('broker-fetch-full-v16.hex');
    await assert.rejects(decodeFetchByTopicId(full.subarray(0, 100), await idsOf(A, B)), (error: unknown) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, /^Fetch response ends at byte 100/);
      return true;
    });
    await assert.rejects(decodeFetchByTopicId(full.subarray(0, full.length - 1), await idsOf(A, B)), RangeError);
  });
});

describe('Fetch by topic id: a topic id the broker does not know', () => {
  it('the broker answers UNKNOWN_TOPIC_ID for the partition (no top-level error), after the topics it knows', () => {
    const raw = fixture('broker-fetch-unknown-v16.hex');
    // Header tags, throttle, error_code, session_id.
    assert.deepEqual([raw[0], raw.readInt32BE(1), raw.readInt16BE(5), raw.readInt32BE(7)], [0, 0, 0, 0]);
    const gone = raw.indexOf(Buffer.from(IDS[GONE]!, 'base64url'));
    assert.ok(gone > raw.indexOf(Buffer.from(IDS[A]!, 'base64url')));
    // partitions (1), partition 0, error_code 100.
    assert.deepEqual([raw[gone + 16], raw.readInt32BE(gone + 17), raw.readInt16BE(gone + 21)], [2, 0, 100]);
  });

  it('decoded: the id is forgotten and kafkajs sees UNKNOWN_TOPIC_OR_PARTITION, as Fetch by name answers for a topic gone', async () => {
    const ids = await idsOf(A, B, GONE);
    const response = await decoded('broker-fetch-unknown-v16.hex', ids);
    assert.deepEqual(
      response.responses.map((t) => [t.topicName, t.partitions.map((p) => [p.partition, p.errorCode, p.highWatermark, p.messages.length])]),
      [
        [A, [[0, 0, '5', 5]]],
        [GONE, [[0, 3, '-1', 0]]],
      ],
    );
    assert.equal(ids.idOf(GONE), undefined);
    assert.equal(ids.nameOf(IDS[GONE]!), undefined);
    assert.deepEqual(ids.unknown([A, B, GONE]), [GONE]);
    assert.equal(ids.forgotten, 1);
    const { response: fetch } = fetchByTopicIdRequest(16, REQUESTS.unknown(), ids);
    await assert.rejects(fetch.parse(response), (error: unknown) => {
      assert.ok(error instanceof KafkaJSProtocolError);
      assert.equal((error as KafkaJSProtocolError).type, 'UNKNOWN_TOPIC_OR_PARTITION');
      return true;
    });
  });

  it('INCONSISTENT_TOPIC_ID is taken as UNKNOWN_TOPIC_ID', async () => {
    const raw = fixture('broker-fetch-unknown-v16.hex');
    raw.writeInt16BE(103, raw.indexOf(Buffer.from(IDS[GONE]!, 'base64url')) + 21);
    const ids = await idsOf(A, B, GONE);
    const response = await decodeFetchByTopicId(raw, ids);
    assert.equal(partitionOf(response, GONE, 0).errorCode, 3);
    assert.deepEqual([ids.idOf(GONE), ids.forgotten], [undefined, 1]);
  });

  it('an answer naming an id the client does not know is left out and counted', async () => {
    const ids = await idsOf(A, B);
    const response = await decoded('broker-fetch-unknown-v16.hex', ids);
    assert.deepEqual(
      response.responses.map((t) => t.topicName),
      [A],
    );
    assert.deepEqual(records(partitionOf(response, A, 0)), A0_RECORDS);
    assert.equal(ids.forgotten, 1);
  });
});

describe('TopicIds', () => {
  const ID_1 = Buffer.alloc(16, 1).toString('base64url');
  const ID_2 = Buffer.alloc(16, 2).toString('base64url');
  const ZERO = Buffer.alloc(16).toString('base64url');

  it('asks only for the topics it has no id of, and knows each by id and name', async () => {
    const ids = await idsOf(A);
    const asked: (readonly string[])[] = [];
    await ids.learn([A, B], async (topics) => {
      asked.push(topics);
      return metadata([{ name: B, topicId: IDS[B]! }]);
    });
    await ids.learn([A, B], async (topics) => {
      asked.push(topics);
      return metadata([]);
    });
    assert.deepEqual(asked, [[B]], 'nothing asked once every id is known');
    assert.equal(ids.idOf(B)!.toString('base64url'), IDS[B]);
    assert.equal(ids.nameOf(IDS[A]!), A);
    assert.equal(ids.nameOf(IDS[B]!), B);
    assert.equal(ids.forgotten, 0);
  });

  it('learns no id from an error, a zero id or a topic without a name', async () => {
    const ids = new TopicIds();
    await ids.learn(['t1', 't2', 't3'], async () =>
      metadata([
        { name: 't1', topicId: ID_1, errorCode: 3 },
        { name: 't2', topicId: ZERO },
        { name: null, topicId: ID_2 },
      ]),
    );
    assert.deepEqual(ids.unknown(['t1', 't2', 't3']), ['t1', 't2', 't3']);
    assert.equal(ids.nameOf(ID_1), undefined);
    assert.equal(ids.nameOf(ID_2), undefined);
    assert.equal(ids.nameOf(ZERO), undefined);
  });

  it('a topic created again under its name: its new id replaces the old one, which counts as forgotten', async () => {
    const ids = new TopicIds();
    await ids.learn(['t'], async () => metadata([{ name: 't', topicId: ID_1 }]));
    ids.forget('t');
    await ids.learn(['t'], async () => metadata([{ name: 't', topicId: ID_2 }]));
    assert.equal(ids.idOf('t')!.toString('base64url'), ID_2);
    assert.deepEqual([ids.nameOf(ID_1), ids.nameOf(ID_2), ids.forgotten], [undefined, 't', 1]);
    ids.forget('t');
    ids.forget('t');
    assert.equal(ids.forgotten, 2, 'an id not known is not forgotten twice');
  });

  it('a lookup that answers a known topic with another id replaces it in both maps', async () => {
    const ids = new TopicIds();
    await ids.learn(['t'], async () => metadata([{ name: 't', topicId: ID_1 }]));
    await ids.learn(['u'], async () =>
      metadata([
        { name: 'u', topicId: IDS[A]! },
        { name: 't', topicId: ID_1 },
      ]),
    );
    assert.equal(ids.forgotten, 0, 'the same id again changes nothing');
    await ids.learn(['v'], async () =>
      metadata([
        { name: 'v', topicId: IDS[B]! },
        { name: 't', topicId: ID_2 },
      ]),
    );
    assert.deepEqual([ids.idOf('t')!.toString('base64url'), ids.nameOf(ID_1), ids.nameOf(ID_2), ids.forgotten], [ID_2, undefined, 't', 1]);
  });

  it('learns go one at a time, each asking for what is still unknown once the one before it ended', async () => {
    const ids = new TopicIds();
    const lookups: { topics: readonly string[]; answer: (response: MetadataV12Response) => void; fail: (error: Error) => void }[] = [];
    const lookup = (topics: readonly string[]) =>
      new Promise<MetadataV12Response>((answer, fail) => {
        lookups.push({ topics, answer, fail });
      });
    const first = ids.learn(['t'], lookup);
    const second = ids.learn(['t', 'u'], lookup);
    const third = ids.learn(['u'], lookup);
    await settled();
    assert.equal(lookups.length, 1, 'the others wait for the first');
    lookups[0]!.fail(new Error('no broker'));
    await assert.rejects(first, /no broker/);
    await settled();
    assert.deepEqual(
      lookups.map((l) => l.topics),
      [['t'], ['t', 'u']],
      'after a failed lookup, which learned nothing, the next',
    );
    lookups[1]!.answer(metadata([{ name: 't', topicId: ID_1 }]));
    await second;
    await settled();
    assert.deepEqual(lookups[2]?.topics, ['u'], 'what the one before learned is not asked again');
    lookups[2]!.answer(metadata([{ name: 'u', topicId: ID_2 }]));
    await third;
    assert.equal(lookups.length, 3);
    assert.deepEqual(ids.unknown(['t', 'u']), []);
  });
});

/** Lets every promise callback that can run run (the fake lookups are called from them). */
async function settled(): Promise<void> {
  await new Promise((next) => setImmediate(next));
}

test('a partition of more records than a call takes arguments decodes (no spread of its messages)', async () => {
  // 200,000 records without key or value: 1.4 MB uncompressed, and far less in one compressed
  // batch of a 1 MiB partition fetch (max_bytes_per_partition's default).
  const count = 200_000;
  const batch = await encodeRecordBatch(
    Array.from({ length: count }, () => ({ value: null })),
    { compression: 0, crc32c, now: 1_700_000_000_000 },
  );
  const id = Buffer.from(IDS[A]!, 'base64url');
  const head = Buffer.alloc(1 + 4 + 2 + 4 + 1 + 16 + 1 + 4 + 2 + 8 + 8 + 8 + 1 + 4);
  let o = 1; // header tagged fields: none
  o = head.writeInt32BE(0, o); // throttle_time_ms
  o = head.writeInt16BE(0, o); // error_code
  o = head.writeInt32BE(0, o); // session_id
  o = head.writeUInt8(2, o); // one topic
  o += id.copy(head, o);
  o = head.writeUInt8(2, o); // one partition
  o = head.writeInt32BE(0, o);
  o = head.writeInt16BE(0, o);
  o = head.writeBigInt64BE(BigInt(count), o); // high watermark
  o = head.writeBigInt64BE(BigInt(count), o); // last stable offset
  o = head.writeBigInt64BE(0n, o); // log start offset
  o = head.writeUInt8(1, o); // no aborted transactions
  head.writeInt32BE(-1, o); // preferred read replica
  const payload = Buffer.concat([head, Buffer.from(uvarint(batch.length + 1)), batch, Buffer.from([0, 0, 0])]); // partition, topic, response tags
  const response = await decodeFetchByTopicId(payload, await idsOf(A));
  const messages = partitionOf(response, A, 0).messages;
  assert.equal(messages.length, count);
  assert.deepEqual([messages[0]!.offset, messages[count - 1]!.offset], ['0', String(count - 1)]);
});
