import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import { registerCodecs } from '../codecs';
import { CompressionTypes } from '../kafkajs';
import { encodeRecordBatch, type OutgoingMessage } from '../wire/record-batch-encoder';
import { kafkajsLookupCodec } from '../wire/kafkajs-internals';
import { recordDigest } from '../../core/record-digest';
import { batchRecordCount, batchRecords, digestBatch, type DigestSink } from './batch-digests';

registerCodecs();

const messages: OutgoingMessage[] = [
  {
    key: null,
    value: Buffer.alloc(0),
    timestamp: 0,
    headers: [
      { key: 'a', value: Buffer.from('1') },
      { key: 'b', value: null },
      { key: 'a', value: Buffer.from('3') },
    ],
  },
  { key: Buffer.alloc(0), value: null, timestamp: 1_700_000_000_123 },
  { key: Buffer.from('k'), value: Buffer.from('v'.repeat(1000)), timestamp: 5, headers: [{ key: 'ü€😀', value: Buffer.alloc(0) }] },
  { key: Buffer.from('abcdefg'), value: Buffer.from([0, 1, 2, 3, 4, 5]), timestamp: 2 ** 40 + 3 },
];

/** The digests of the decoded records: what ../../core/record-digest.ts takes of a record object. */
function expected(): Uint32Array {
  const out = new Uint32Array(messages.length * 2);
  messages.forEach((m, i) =>
    recordDigest(
      {
        timestamp: Number(m.timestamp),
        key: (m.key as Buffer | null | undefined) ?? null,
        value: m.value as Buffer | null,
        headers: (m.headers as { key: string; value: Buffer | null }[] | undefined) ?? [],
      },
      out,
      i,
    ),
  );
  return out;
}

for (const [name, type] of Object.entries({
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
})) {
  test(`a batch's records digested from its bytes give the digests of the decoded records (${name})`, async () => {
    const batch = await encodeRecordBatch(messages, { compression: type, codec: type === 0 ? undefined : kafkajsLookupCodec()(type), crc32c });
    batch.writeBigInt64BE(100n, 0); // base offset 100
    const sink: DigestSink = { count: 0, offsets: new Float64Array(batchRecordCount(batch)), digests: new Uint32Array(batchRecordCount(batch) * 2) };
    digestBatch(batch, await batchRecords(batch), 0, Number.MAX_SAFE_INTEGER, sink, false);
    assert.equal(sink.count, 4);
    assert.deepEqual([...sink.offsets], [100, 101, 102, 103]);
    assert.deepEqual([...sink.digests], [...expected()]);
  });
}

test('only the records in [from, to) are digested; count mode writes 0s', async () => {
  const batch = await encodeRecordBatch(messages, { compression: 0, crc32c });
  const sink: DigestSink = { count: 0, offsets: new Float64Array(4), digests: new Uint32Array(8).fill(7) };
  digestBatch(batch, await batchRecords(batch), 1, 3, sink, true);
  assert.deepEqual([...sink.offsets.subarray(0, sink.count)], [1, 2]);
  assert.deepEqual([...sink.digests.subarray(0, 4)], [0, 0, 0, 0]);
});
