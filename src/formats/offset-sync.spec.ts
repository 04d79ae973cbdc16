import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeOffsetSync, encodeOffsetSyncKey, encodeOffsetSyncValue, formatOffsetSync, type OffsetSync } from './offset-sync';
import { RecordFormatError } from './record-format-error';

const hex = (b: Buffer) => b.toString('hex');
const sync = (topic: string, partition: number, upstreamOffset: number, downstreamOffset: number): OffsetSync => ({
  topicPartition: { topic, partition },
  upstreamOffset,
  downstreamOffset,
});

describe('OffsetSync format', () => {
  it('matches the bytes of MM2 OffsetSync encoding', () => {
    const s = sync('orders', 3, 1000, 987);
    assert.equal(hex(encodeOffsetSyncKey(s.topicPartition)), '00066f726465727300000003');
    assert.equal(hex(encodeOffsetSyncValue(s)), '00000000000003e800000000000003db');
  });

  // Vectors from Kafka 4.3.1's own org.apache.kafka.connect.mirror.OffsetSync recordKey()/recordValue().
  const javaVectors = [
    { s: sync('orders', 3, 1000, 987), key: '00066f726465727300000003', value: '00000000000003e800000000000003db' },
    { s: sync('t', 0, 0, 0), key: '00017400000000', value: '00000000000000000000000000000000' },
  ];
  for (const { s, key, value } of javaVectors) {
    it(`encodes and decodes ${formatOffsetSync(s)} byte for byte`, () => {
      assert.equal(hex(encodeOffsetSyncKey(s.topicPartition)), key);
      assert.equal(hex(encodeOffsetSyncValue(s)), value);
      assert.deepEqual(decodeOffsetSync(Buffer.from(key, 'hex'), Buffer.from(value, 'hex')), s);
    });
  }

  it('encodes a non-ASCII topic and the largest partition like Java', () => {
    // OffsetSync(über-2147483647, ...) from Kafka 4.3.1
    assert.equal(hex(encodeOffsetSyncKey({ topic: 'über', partition: 2147483647 })), '0005c3bc6265727fffffff');
  });

  it('prints like Java toString()', () => {
    assert.equal(formatOffsetSync(sync('orders', 3, 1000, 987)), 'OffsetSync{topicPartition=orders-3, upstreamOffset=1000, downstreamOffset=987}');
  });

  it('ignores trailing bytes, as Java does', () => {
    const d = decodeOffsetSync(Buffer.from('00066f72646572730000000300', 'hex'), Buffer.from('00000000000003e800000000000003db00', 'hex'));
    assert.deepEqual(d, sync('orders', 3, 1000, 987));
  });

  it('rejects malformed records with RecordFormatError', () => {
    const key = Buffer.from('00066f726465727300000003', 'hex');
    // Java: SchemaException "Error reading field 'offset': java.nio.BufferUnderflowException"
    assert.throws(() => decodeOffsetSync(key, Buffer.from('00000000000003e800000000000003', 'hex')), /field 'offset'/);
    assert.throws(() => decodeOffsetSync(Buffer.from('0006', 'hex'), Buffer.alloc(16)), RecordFormatError);
    assert.throws(() => decodeOffsetSync(Buffer.from('ffff', 'hex'), Buffer.alloc(16)), /negative string length/);
    assert.throws(() => decodeOffsetSync(null, Buffer.alloc(16)), /null key/);
    assert.throws(() => decodeOffsetSync(key, null), /null value/);
    // Java's OffsetSync(über-2147483647, Long.MAX_VALUE, 9007199254740993) value: offsets a JS
    // number cannot hold exactly are skipped rather than rounded.
    assert.throws(() => decodeOffsetSync(key, Buffer.from('7fffffffffffffff0020000000000001', 'hex')), /safe integer/);
  });
});
