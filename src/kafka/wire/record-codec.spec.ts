import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import { registerCodecs } from '../codecs';
import { CompressionTypes } from '../kafkajs';
import { encodeRecordBatch, type OutgoingMessage } from './record-batch-encoder';
import { kafkajsInternal, kafkajsLookupCodec } from './kafkajs-internals';
import type { DecodedRecord } from './record-decoder';

// kafkajs's batch decoder, which calls our record decoder (its bundle's `require` of it is ours).
const decodeBatch = kafkajsInternal('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  decoder: unknown,
) => Promise<{ records: DecodedRecord[]; maxTimestamp: string; firstTimestamp: string }>;
const Decoder = kafkajsInternal('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;

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
  { key: Buffer.from('k'), value: Buffer.from('v'.repeat(1000)), timestamp: 5, headers: [{ key: 'ü', value: Buffer.alloc(0) }] },
];

for (const [name, type] of Object.entries({
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
})) {
  test(`record batch round-trips every field exactly (${name})`, async () => {
    const batch = await encodeRecordBatch(messages, { compression: type, codec: type === 0 ? undefined : kafkajsLookupCodec()(type), crc32c });
    const decoded = await decodeBatch(new Decoder(batch));
    assert.equal(decoded.records.length, 3);
    const [first, second, third] = decoded.records;
    assert.equal(first!.key, null);
    assert.deepEqual(first!.value, Buffer.alloc(0));
    assert.equal(first!.timestamp, '0', 'a timestamp of 0 is kept, not replaced by "now"');
    assert.deepEqual(
      first!.headers.map((h) => [h.key, h.value?.toString() ?? null]),
      [
        ['a', '1'],
        ['b', null],
        ['a', '3'],
      ],
      'headers keep their order, duplicates and null values',
    );
    assert.deepEqual(second!.key, Buffer.alloc(0), 'an empty key stays empty, not null');
    assert.equal(second!.value, null, 'a tombstone stays a tombstone');
    assert.equal(second!.timestamp, '1700000000123');
    assert.equal(third!.value!.length, 1000);
    assert.equal(third!.headers[0]!.key, 'ü');
    assert.equal(decoded.firstTimestamp, '0', 'the batch base timestamp is the numerically smallest');
    assert.equal(decoded.maxTimestamp, '1700000000123');
    assert.deepEqual(
      decoded.records.map((r) => r.offset),
      ['0', '1', '2'],
    );
  });
}

test('record batch CRC covers attributes to the end, as brokers check it', async () => {
  const batch = await encodeRecordBatch(messages, { compression: 0, crc32c });
  assert.equal(batch.readUInt32BE(17), crc32c(batch.subarray(21)) >>> 0);
  assert.equal(batch.readInt32BE(8), batch.length - 12, 'batch length counts the bytes after the length field');
  assert.equal(batch.readInt8(16), 2, 'magic 2');
});
