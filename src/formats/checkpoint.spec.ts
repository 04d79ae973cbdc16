import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCheckpoint, encodeCheckpointKey, encodeCheckpointValue, formatCheckpoint, type Checkpoint } from './checkpoint';
import { RecordFormatError } from './record-format-error';

const hex = (b: Buffer) => b.toString('hex');
const cp = (consumerGroupId: string, topic: string, partition: number, upstreamOffset: number, downstreamOffset: number, metadata: string): Checkpoint => ({
  consumerGroupId,
  topicPartition: { topic, partition },
  upstreamOffset,
  downstreamOffset,
  metadata,
});

describe('Checkpoint format', () => {
  it('matches the bytes of MM2 Checkpoint encoding', () => {
    const c = cp('group-1', 'us-west.orders', 3, 1000, 987, '');
    assert.equal(hex(encodeCheckpointKey(c)), '000767726f75702d31000e75732d776573742e6f726465727300000003');
    assert.equal(hex(encodeCheckpointValue(c)), '0000' + '00000000000003e8' + '00000000000003db' + '0000');
  });

  // Vectors from Kafka 4.3.1's own org.apache.kafka.connect.mirror.Checkpoint recordKey()/recordValue().
  const javaVectors = [
    {
      c: cp('group-1', 'us-west.orders', 3, 1000, 987, ''),
      key: '000767726f75702d31000e75732d776573742e6f726465727300000003',
      value: '000000000000000003e800000000000003db0000',
    },
    { c: cp('g', 't', 0, 0, 0, 'meta'), key: '00016700017400000000', value: '00000000000000000000000000000000000000046d657461' },
    { c: cp('', '', -1, -1, -1, ''), key: '00000000ffffffff', value: '0000ffffffffffffffffffffffffffffffff0000' },
  ];
  for (const { c, key, value } of javaVectors) {
    it(`encodes and decodes ${formatCheckpoint(c)} byte for byte`, () => {
      assert.equal(hex(encodeCheckpointKey(c)), key);
      assert.equal(hex(encodeCheckpointValue(c)), value);
      assert.deepEqual(decodeCheckpoint(Buffer.from(key, 'hex'), Buffer.from(value, 'hex')), c);
    });
  }

  it('encodes non-ASCII names and 64-bit extremes like Java (Kafka 4.3.1 vector)', () => {
    // Checkpoint("grüße-😀", A.x-2147483647, Long.MAX_VALUE, Long.MIN_VALUE, "ü")
    assert.equal(
      hex(encodeCheckpointKey({ consumerGroupId: 'grüße-😀', topicPartition: { topic: 'A.x', partition: 2147483647 } })),
      '000c6772c3bcc39f652df09f98800003412e787fffffff',
    );
    const value = Buffer.from('00007fffffffffffffff80000000000000000002c3bc', 'hex');
    assert.throws(() => decodeCheckpoint(Buffer.from('00016700017400000000', 'hex'), value), /upstreamOffset.*safe integer/);
  });

  it('prints like Java toString()', () => {
    assert.equal(
      formatCheckpoint(cp('group-1', 'us-west.orders', 3, 1000, 987, '')),
      'Checkpoint{consumerGroupId=group-1, topicPartition=us-west.orders-3, upstreamOffset=1000, downstreamOffset=987, metadata=}',
    );
  });

  it('decodes any version with the V0 layout and ignores trailing bytes, as Java does', () => {
    // Java decodes this (version 5, 4 trailing bytes) to Checkpoint{g, t-1, 5, 6, m}.
    const key = Buffer.from('00016700017400000001', 'hex');
    const value = Buffer.from('0005' + '0000000000000005' + '0000000000000006' + '00016d' + 'deadbeef', 'hex');
    assert.deepEqual(decodeCheckpoint(key, value), cp('g', 't', 1, 5, 6, 'm'));
  });

  it('rejects malformed records with RecordFormatError, like Java SchemaException', () => {
    const key = Buffer.from('00016700017400000001', 'hex');
    const bad = (valueHex: string, message: RegExp) =>
      assert.throws(
        () => decodeCheckpoint(key, Buffer.from(valueHex, 'hex')),
        (e: unknown) => e instanceof RecordFormatError && message.test(e.message),
      );
    bad('0000000000000000000005', /field 'offset'/);
    bad('00000000000000000000000500000000000000060005', /field 'metadata' needs 6 bytes, only 2/);
    bad('0000000000000000000500000000000000060001', /field 'metadata' needs 1 bytes, only 0/);
    bad('', /field 'version'/);
    assert.throws(() => decodeCheckpoint(Buffer.from('ffff', 'hex'), Buffer.alloc(20)), /field 'group' has negative string length -1/);
    assert.throws(() => decodeCheckpoint(null, Buffer.alloc(20)), RecordFormatError);
    assert.throws(() => decodeCheckpoint(key, null), RecordFormatError);
  });
});
