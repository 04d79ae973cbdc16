import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import { registerCodecs } from '../codecs';
import { CompressionTypes } from '../kafkajs';
import { encodeRecordBatch, writeForwardedBatch, type BatchOptions, type OutgoingMessage } from './record-batch-encoder';
import { joinForwardedBatches } from './record-batch-join';
import { BodyWriter } from './gathered-writes';
import { decodeMessages, decodeRecordBatch, isFetchedRecordBatch, forwardBatchesOf, type FetchedRecordBatch, type ForwardPolicy } from './fetch-decoder';
import { kafkajsFetchDecoding, kafkajsLookupCodec } from './kafkajs-internals';
import type { DecodedRecord } from './record-decoder';
import { produceRequestV3 } from './produce-request';
import type { RawRecordBatch } from '../../core/record';

registerCodecs();

const T0 = 1_700_000_000_000;

function messages(count: number, label = 'r'): OutgoingMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    key: i % 4 === 0 ? null : Buffer.from(`${label}${i}`),
    value: i % 5 === 0 ? null : Buffer.from(`${label} value ${i}`),
    timestamp: T0 + i * 3,
    headers: [
      { key: 'a', value: Buffer.from(String(i)) },
      { key: 'b', value: null },
      { key: 'a', value: Buffer.alloc(0) },
    ],
  }));
}

/** A batch as a broker would return it from its log: at `baseOffset`, with a leader epoch and the producer's fields. */
async function storedBatch(baseOffset: number, records: OutgoingMessage[], options: Partial<BatchOptions> & { attributes?: number } = {}): Promise<Buffer> {
  const compression = options.compression ?? 0;
  const batch = await encodeRecordBatch(records, {
    compression,
    codec: compression === 0 ? undefined : kafkajsLookupCodec()(compression),
    crc32c,
    producerId: 4711,
    producerEpoch: 3,
    firstSequence: 99,
    transactional: options.transactional ?? false,
  });
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
  batch.writeInt32BE(17, 12); // partition leader epoch
  if (options.attributes !== undefined) batch.writeInt16BE(batch.readInt16BE(21) | options.attributes, 21);
  return batch;
}

/** A Fetch response's record set: INT32 size, then the batches back to back. */
function recordSet(...batches: Buffer[]): InstanceType<ReturnType<typeof kafkajsFetchDecoding>['Decoder']> {
  const body = Buffer.concat(batches);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return new (kafkajsFetchDecoding().Decoder)(Buffer.concat([size, body]));
}

const ANY: ForwardPolicy = { minCompressedBytes: 0, maxBytes: Number.MAX_SAFE_INTEGER };
const decodeWith = (policy: ForwardPolicy | undefined, ...batches: Buffer[]): Promise<unknown[]> => {
  const decoder = recordSet(...batches);
  if (policy !== undefined) forwardBatchesOf(decoder.buffer, policy);
  return decodeMessages(decoder);
};

const offsets = (decoded: unknown[]): string[] => decoded.map((m) => (m as DecodedRecord).offset);

test('without forwarding, every consumer gets decoded records, as kafkajs gave them', async () => {
  const decoded = await decodeWith(undefined, await storedBatch(100, messages(3)), await storedBatch(103, messages(2, 's')));
  assert.deepEqual(offsets(decoded), ['100', '101', '102', '103', '104']);
  assert.ok(!decoded.some(isFetchedRecordBatch));
  assert.deepEqual((decoded[4] as DecodedRecord).value, Buffer.from('s value 1'));
});

test('forwarding hands each whole batch over as one message at its last offset, bytes untouched', async () => {
  const first = await storedBatch(100, messages(3));
  const second = await storedBatch(103, messages(40, 's'), { transactional: true });
  const decoded = await decodeWith(ANY, first, second);
  assert.equal(decoded.length, 2);
  const [a, b] = decoded as FetchedRecordBatch[];
  assert.equal(a!.offset, '102', "kafkajs's position moves past the whole batch");
  assert.deepEqual(a!.recordBatch, { baseOffset: 100, recordCount: 3, compressed: false, maxTimestamp: T0 + 6, bytes: first });
  assert.deepEqual(
    b!.batchContext,
    { firstOffset: '103', lastOffsetDelta: 39, producerId: '4711', inTransaction: true, isControlBatch: false },
    "the read_committed filter sees the batch's range and producer",
  );
  assert.deepEqual(b!.recordBatch.bytes, second);
  assert.deepEqual(
    offsets(await decodeRecordBatch(b!.recordBatch.bytes)),
    Array.from({ length: 40 }, (_, i) => String(103 + i)),
  );
});

test('forwarding decodes the batches whose bytes would not reproduce their records', async () => {
  const cases: [string, Buffer][] = [
    ['a control batch (transaction marker)', await storedBatch(0, messages(1), { attributes: 0x20 })],
    ['a LogAppendTime batch', await storedBatch(0, messages(3), { attributes: 0x08 })],
    ['a batch with the delete-horizon flag', await storedBatch(0, messages(3), { attributes: 0x40 })],
  ];
  const gapped = await storedBatch(0, messages(3));
  gapped.writeInt32BE(5, 23); // offsets 0..5 hold 3 records: compaction removed some
  cases.push(['a compacted batch with offset gaps', gapped]);
  for (const [what, batch] of cases) {
    const decoded = await decodeWith(ANY, batch);
    assert.ok(decoded.length > 0 && !decoded.some(isFetchedRecordBatch), `${what} must be decoded`);
  }
});

test('forwarding inflates compressed batches below the size threshold: the same batch uncompressed, records byte for byte', async () => {
  const lz4 = (base: number, count: number): Promise<Buffer> => storedBatch(base, messages(count), { compression: CompressionTypes.LZ4 });
  const small = await lz4(0, 2);
  const alsoSmall = await lz4(2, 3);
  const uncompressed = await storedBatch(5, messages(1));
  const decoded = (await decodeWith({ ...ANY, minCompressedBytes: alsoSmall.length + 1 }, small, alsoSmall, uncompressed)) as FetchedRecordBatch[];
  assert.deepEqual(
    decoded.map((m) => [m.recordBatch.baseOffset, m.recordBatch.compressed, m.recordBatch.fetched?.codec]),
    [
      [0, false, CompressionTypes.LZ4],
      [2, false, CompressionTypes.LZ4],
      [5, false, undefined],
    ],
    'the small batches are inflated (they can be joined with others), keeping their codec for the writer',
  );
  const inflated = decoded[0]!.recordBatch.bytes;
  assert.equal(inflated.readInt16BE(21) & 0x07, 0, 'no codec');
  assert.equal(inflated.readInt32BE(8), inflated.length - 12, 'its length field');
  const sent = Buffer.alloc(inflated.length);
  writeForwardedBatch(inflated, new BodyWriter(sent, false), { compression: 0, crc32c, producerId: 9, producerEpoch: 0, firstSequence: 0 });
  assert.equal(sent.readUInt32BE(17), crc32c(sent.subarray(21)) >>> 0, 'its CRC once the writer has rewritten the producer fields');
  assert.deepEqual(inflated.subarray(0, 8), small.subarray(0, 8), 'base offset as fetched');
  assert.deepEqual(inflated.subarray(12, 17), small.subarray(12, 17), 'leader epoch and magic as fetched');
  assert.deepEqual(inflated.subarray(23, 61), small.subarray(23, 61), 'offsets, timestamps, producer and count as fetched');
  assert.deepEqual(await decodeRecordBatch(inflated), await decodeRecordBatch(small));
  assert.deepEqual(decoded[0]!.batchContext, { firstOffset: '0', lastOffsetDelta: 1, producerId: '4711', inTransaction: false, isControlBatch: false });

  for (const codec of [CompressionTypes.GZIP, CompressionTypes.Snappy, CompressionTypes.ZSTD]) {
    const batch = await storedBatch(7, messages(5), { compression: codec, transactional: true });
    const [whole] = (await decodeWith({ ...ANY, minCompressedBytes: batch.length + 1 }, batch)) as FetchedRecordBatch[];
    assert.equal(whole!.recordBatch.compressed, false, `codec ${codec} inflated`);
    assert.equal(whole!.batchContext.inTransaction, true, 'a transactional batch stays one');
    assert.deepEqual(await decodeRecordBatch(whole!.recordBatch.bytes), await decodeRecordBatch(batch));
  }
});

test("a partition's compressed batches of one fetch are forwarded whole or inflated together, by their average size", async () => {
  const zstd = (base: number, count: number): Promise<Buffer> => storedBatch(base, messages(count), { compression: CompressionTypes.ZSTD });
  const tiny = await zstd(0, 1);
  const large = [await zstd(1, 300), await zstd(301, 300), await zstd(601, 300)];
  const uncompressed = await storedBatch(901, messages(2));
  const largeBytes = large[0]!.length;
  const kinds = (decoded: unknown[]): [number, boolean][] =>
    (decoded as FetchedRecordBatch[]).map((m) => {
      assert.ok(isFetchedRecordBatch(m), 'every batch forwarded, inflated or not');
      return [m.recordBatch.baseOffset, m.recordBatch.compressed];
    });

  // Mostly large: the tiny one goes whole too, rather than alternate between forwarded and joined.
  const mostlyLarge = await decodeWith({ ...ANY, minCompressedBytes: largeBytes / 2 }, tiny, ...large, uncompressed);
  assert.deepEqual(kinds(mostlyLarge), [
    [0, true],
    [1, true],
    [301, true],
    [601, true],
    [901, false],
  ]);
  assert.deepEqual(
    (mostlyLarge as FetchedRecordBatch[]).map((m) => m.recordBatch.bytes),
    [tiny, ...large, uncompressed],
    'forwarded batches are the fetched bytes',
  );

  // Small on average: the large one is inflated with the others, so the partition's fetch is one joined batch.
  const tinies = [await zstd(0, 1), await zstd(1, 1), await zstd(2, 1), await zstd(3, 1)];
  const mostlySmall = await decodeWith({ ...ANY, minCompressedBytes: largeBytes / 2 }, ...tinies, await zstd(4, 300));
  assert.deepEqual(kinds(mostlySmall), [
    [0, false],
    [1, false],
    [2, false],
    [3, false],
    [4, false],
  ]);
  const lastInflated = (mostlySmall[4] as FetchedRecordBatch).recordBatch;
  assert.deepEqual(await decodeRecordBatch(lastInflated.bytes), await decodeRecordBatch(await zstd(4, 300)), 'records byte for byte');

  // Batches kept from forwarding on their own (LogAppendTime) do not count towards the average.
  const appendTime = await storedBatch(0, messages(1), { compression: CompressionTypes.ZSTD, attributes: 0x08 });
  const withAppendTime = await decodeWith({ ...ANY, minCompressedBytes: largeBytes / 2 }, appendTime, await zstd(1, 300));
  assert.equal(withAppendTime.filter((m) => !isFetchedRecordBatch(m)).length, 1, 'the LogAppendTime batch decoded');
  assert.equal((withAppendTime.find(isFetchedRecordBatch) as FetchedRecordBatch).recordBatch.compressed, true, 'the large one forwarded as it is');
});

test('many small compressed batches, inflated or decoded side by side, come out in offset order', async () => {
  // A large batch first (slowest to decompress), small ones of both codecs after it, and one that
  // is decoded (LogAppendTime) in between.
  const sizes = [400, 3, 5, 2, 7, 1, 6, 4, 3, 2];
  const batches: Buffer[] = [];
  let base = 0;
  for (const [i, count] of sizes.entries()) {
    const compression = i % 2 === 0 ? CompressionTypes.ZSTD : CompressionTypes.LZ4;
    batches.push(await storedBatch(base, messages(count, `b${i}-`), { compression, ...(i === 4 ? { attributes: 0x08 } : {}) }));
    base += count;
  }
  const total = base;
  const policy = { ...ANY, minCompressedBytes: Math.max(...batches.map((b) => b.length)) + 1 };
  const forwarded = await decodeWith(policy, ...batches);
  const firstOffsets = forwarded.map((m) => (isFetchedRecordBatch(m) ? m.batchContext.firstOffset : (m as DecodedRecord).offset));
  assert.deepEqual(
    firstOffsets.map(Number),
    [...firstOffsets.map(Number)].sort((a, b) => a - b),
    'in offset order',
  );
  assert.equal(forwarded.filter((m) => !isFetchedRecordBatch(m)).length, sizes[4], 'the LogAppendTime batch decoded, in its place');
  const decoded = await decodeWith(undefined, ...batches);
  assert.deepEqual(
    offsets(decoded),
    Array.from({ length: total }, (_, i) => String(i)),
    'without forwarding: every record, in order',
  );
});

test('forwarding decodes small compressed batches that would not be forwarded once inflated', async () => {
  const small = await storedBatch(0, messages(40), { compression: CompressionTypes.ZSTD });
  const decoded = await decodeWith({ ...ANY, minCompressedBytes: small.length + 1, maxBytes: small.length }, small);
  assert.ok(decoded.length === 40 && !decoded.some(isFetchedRecordBatch), 'uncompressed, it is larger than a produce request may be');
  const gapped = Buffer.from(small);
  gapped.writeInt32BE(45, 23);
  assert.ok(!(await decodeWith({ ...ANY, minCompressedBytes: small.length + 1 }, gapped)).some(isFetchedRecordBatch), 'offset gaps');
  const appendTime = await storedBatch(0, messages(3), { compression: CompressionTypes.ZSTD, attributes: 0x08 });
  assert.ok(!(await decodeWith({ ...ANY, minCompressedBytes: appendTime.length + 1 }, appendTime)).some(isFetchedRecordBatch), 'LogAppendTime');
});

test('forwarding decodes small compressed batches when the target compresses, and batches compressed other than asked', async () => {
  const lz4 = (base: number, count: number): Promise<Buffer> => storedBatch(base, messages(count), { compression: CompressionTypes.LZ4 });
  const small = await lz4(0, 2);
  const decodedSmall = await decodeWith({ ...ANY, codec: CompressionTypes.LZ4, minCompressedBytes: small.length + 1 }, small);
  assert.deepEqual(offsets(decodedSmall), ['0', '1']);
  assert.ok(!decodedSmall.some(isFetchedRecordBatch));
  const zstd = await storedBatch(10, messages(10), { compression: CompressionTypes.ZSTD });
  const onlyZstd = await decodeWith({ ...ANY, codec: CompressionTypes.ZSTD }, await lz4(0, 10), zstd);
  assert.equal(onlyZstd.filter(isFetchedRecordBatch).length, 1);
  assert.equal((onlyZstd.find(isFetchedRecordBatch) as FetchedRecordBatch).recordBatch.baseOffset, 10);
  assert.equal(onlyZstd.length, 11);
});

test('forwarding decodes batches larger than a produce request may be, compressed or not', async () => {
  const small = await storedBatch(0, messages(3));
  const large = await storedBatch(3, messages(60));
  const zstd = await storedBatch(63, messages(60), { compression: CompressionTypes.ZSTD });
  const maxBytes = Math.max(small.length, zstd.length);
  assert.ok(large.length > maxBytes);
  const decoded = await decodeWith({ ...ANY, maxBytes }, small, large, zstd);
  assert.deepEqual(
    decoded
      .map((m) => (isFetchedRecordBatch(m) ? `whole ${m.recordBatch.baseOffset}` : 'record'))
      .filter((m, i, all) => m !== 'record' || all[i - 1] !== 'record'),
    ['whole 0', 'record', 'whole 63'],
  );
  assert.equal(decoded.length, 2 + 60);
});

test('a batch cut short at the end of a fetch is left for the next fetch', async () => {
  const whole = await storedBatch(0, messages(3));
  const cut = (await storedBatch(3, messages(3))).subarray(0, 70);
  for (const policy of [undefined, ANY]) {
    const decoded = await decodeWith(policy, whole, cut);
    const last = decoded.at(-1) as { offset: string };
    assert.equal(last.offset, '2');
  }
});

for (const [name, type] of Object.entries({
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
})) {
  test(`a forwarded batch is what this producer would have encoded for the same records (${name})`, async () => {
    const records = messages(25);
    const fetched = await storedBatch(5000, records, { compression: type, transactional: true });
    const options: BatchOptions = {
      compression: type,
      codec: type === 0 ? undefined : kafkajsLookupCodec()(type),
      crc32c,
      producerId: -1,
      producerEpoch: -1,
      firstSequence: -1,
    };
    const expected = await encodeRecordBatch(records, options);
    const target = Buffer.alloc(fetched.length + 10, 0xee);
    const writer = new BodyWriter(target, false);
    writer.offset = 5;
    writeForwardedBatch(fetched, writer, options);
    const end = writer.offset;
    assert.equal(end, 5 + fetched.length);
    assert.deepEqual(target.subarray(5, end), expected, 'base offset, leader epoch, producer fields, transactional flag and CRC rewritten; records untouched');
    assert.equal(target[4], 0xee);
    assert.equal(target[end], 0xee);
    assert.deepEqual(fetched.readBigInt64BE(0), 5000n, 'the fetched batch itself is not changed');
  });
}

test('uncompressed batches joined into one are what this producer would have encoded for all their records', async () => {
  const first = messages(30, 'a');
  // Timestamps older than the first batch's: the joined batch's deltas go negative.
  const second = messages(1, 'b').map((m) => ({ ...m, timestamp: T0 - 86_400_000 }));
  const third = messages(200, 'c').map((m, i) => ({ ...m, timestamp: T0 + 1_000_000 + i }));
  const fetched = [await storedBatch(7, first, { transactional: true }), await storedBatch(37, second), await storedBatch(40, third)];
  const options: BatchOptions = { compression: 0, crc32c, producerId: -1, producerEpoch: -1, firstSequence: -1 };
  const joined = joinForwardedBatches(fetched, options);
  assert.deepEqual(joined, await encodeRecordBatch([...first, ...second, ...third], options));
  const records = await decodeRecordBatch(joined);
  assert.equal(records.length, 231);
  assert.equal(records[30]!.timestamp, String(T0 - 86_400_000));
  assert.deepEqual(records[230]!.headers, [
    { key: 'a', value: Buffer.from('199') },
    { key: 'b', value: null },
    { key: 'a', value: Buffer.alloc(0) },
  ]);
  await assert.rejects(
    async () => joinForwardedBatches([await storedBatch(0, first, { compression: CompressionTypes.GZIP }), fetched[1]!], options),
    /uncompressed/,
  );
});

/** The one record set of a produce request of one topic and one partition. */
async function producedBatch(batches: RawRecordBatch[], compression = 0): Promise<Buffer> {
  const request = produceRequestV3({
    acks: -1,
    timeout: 30_000,
    compression,
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: batches.map((recordBatch) => ({ value: null, recordBatch })) }] }],
  });
  const { buffer, headroom } = await request.encode();
  let at = (headroom ?? 0) + 2 + 2 + 4 + 4; // transactional id (null), acks, timeout, topic count
  at += 2 + buffer.readInt16BE(at) + 4 + 4; // topic name, partition count, partition
  const size = buffer.readInt32BE(at);
  return buffer.subarray(at + 4, at + 4 + size);
}

// Issue 42 item 2: small compressed source batches are joined uncompressed; the target keeps the codec.
test('inflated batches keep their codec and bytes as fetched, and are written compressed again', async () => {
  const zstd = (base: number, records: OutgoingMessage[]): Promise<Buffer> => storedBatch(base, records, { compression: CompressionTypes.ZSTD });
  const first = messages(40, 'a');
  const second = messages(25, 'b');
  const sources = [await zstd(0, first), await zstd(40, second)];
  const policy = { ...ANY, minCompressedBytes: Math.max(...sources.map((b) => b.length)) + 1 };
  const fetched = ((await decodeWith(policy, ...sources)) as FetchedRecordBatch[]).map((m) => m.recordBatch);
  assert.deepEqual(
    fetched.map((b) => [b.compressed, b.fetched?.codec]),
    [
      [false, CompressionTypes.ZSTD],
      [false, CompressionTypes.ZSTD],
    ],
  );
  assert.deepEqual(fetched[0]!.fetched!.bytes, sources[0]);

  // Alone: as fetched, its producer fields rewritten.
  const alone = await producedBatch([fetched[0]!]);
  assert.equal(alone.readInt16BE(21) & 0x07, CompressionTypes.ZSTD);
  assert.deepEqual(alone.subarray(61), sources[0]!.subarray(61), 'the compressed records as fetched');
  assert.equal(alone.readUInt32BE(17), crc32c(alone.subarray(21)) >>> 0);

  // Joined: one zstd batch of every record, byte for byte what this producer would encode with zstd.
  const joined = await producedBatch(fetched);
  assert.equal(joined.readInt16BE(21) & 0x07, CompressionTypes.ZSTD);
  assert.equal(joined.readInt32BE(8), joined.length - 12);
  assert.equal(joined.readUInt32BE(17), crc32c(joined.subarray(21)) >>> 0, 'CRC');
  const options: BatchOptions = { compression: 0, crc32c, producerId: -1, producerEpoch: -1, firstSequence: -1 };
  const expected = await encodeRecordBatch([...first, ...second], options);
  assert.deepEqual(await decodeRecordBatch(joined), await decodeRecordBatch(expected));
  assert.deepEqual(joined.subarray(23, 61), expected.subarray(23, 61), 'offsets, timestamps, producer fields and count');
});

test('joined batches stay uncompressed when none was compressed at the source', async () => {
  const plain = [await storedBatch(0, messages(3)), await storedBatch(3, messages(4))];
  const fetched = ((await decodeWith(ANY, ...plain)) as FetchedRecordBatch[]).map((m) => m.recordBatch);
  const joined = await producedBatch(fetched);
  assert.equal(joined.readInt16BE(21) & 0x07, 0);
  assert.equal(await decodeRecordBatch(joined).then((r) => r.length), 7);
});

// Issue 42 item 1: the joined batch is compressed from a reused buffer, its header written apart.
test('a joined batch compressed again holds, for every codec, exactly the records the uncompressed join writes', async () => {
  const third = messages(300, 'c').map((m, i) => ({ ...m, timestamp: T0 + 1_000_000 + i }));
  for (const codec of [CompressionTypes.GZIP, CompressionTypes.Snappy, CompressionTypes.LZ4, CompressionTypes.ZSTD]) {
    // Timestamps older than the first batch's in the second: the joined deltas go negative.
    const sets = [
      [messages(30, 'a'), messages(1, 'b').map((m) => ({ ...m, timestamp: T0 - 86_400_000 })), third],
      [messages(2, 'd'), messages(3, 'e')],
    ];
    // Both sets encoded at once (two produce requests being encoded), the larger first: no buffer is shared between them.
    const produced = await Promise.all(
      sets.map(async (records, s) => {
        let base = s * 1000;
        const sources: Buffer[] = [];
        for (const batch of records) {
          sources.push(await storedBatch(base, batch, { compression: codec, transactional: true }));
          base += batch.length;
        }
        const policy = { ...ANY, minCompressedBytes: Math.max(...sources.map((b) => b.length)) + 1 };
        const fetched = ((await decodeWith(policy, ...sources)) as FetchedRecordBatch[]).map((m) => m.recordBatch);
        assert.ok(fetched.every((b) => b.fetched?.codec === codec && !b.compressed));
        return { fetched, joined: await producedBatch(fetched) };
      }),
    );
    for (const [s, { fetched, joined }] of produced.entries()) {
      const plain = joinForwardedBatches(
        fetched.map((b) => b.bytes),
        { compression: 0, crc32c, producerId: -1, producerEpoch: -1, firstSequence: -1 },
      );
      assert.equal(joined.readInt16BE(21) & 0x07, codec, `codec ${codec}: the source's codec`);
      assert.equal(joined.readInt32BE(8), joined.length - 12, `codec ${codec}: its length field`);
      assert.equal(joined.readUInt32BE(17), crc32c(joined.subarray(21)) >>> 0, `codec ${codec}: its CRC`);
      assert.deepEqual(joined.subarray(23, 61), plain.subarray(23, 61), `codec ${codec}: offsets, timestamps, producer fields and count`);
      const records = await kafkajsLookupCodec()(codec).decompress(joined.subarray(61));
      assert.deepEqual(records, plain.subarray(61), `codec ${codec}, set ${s}: the records byte for byte`);
    }
    // Again after the reused buffer held the larger set: nothing of it shows through.
    const again = await producedBatch(produced[1]!.fetched);
    assert.deepEqual(again, produced[1]!.joined);
  }
});
