import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHeartbeat, encodeHeartbeatKey, encodeHeartbeatValue, formatHeartbeat, type Heartbeat } from './heartbeat';
import { RecordFormatError } from './record-format-error';

const hex = (b: Buffer) => b.toString('hex');

describe('Heartbeat format', () => {
  it('matches the bytes of MM2 Heartbeat encoding', () => {
    const hb: Heartbeat = { sourceClusterAlias: 'us-west', targetClusterAlias: 'us-east', timestamp: 1700000000000 };
    assert.equal(hex(encodeHeartbeatKey(hb)), '000775732d77657374000775732d65617374');
    assert.equal(hex(encodeHeartbeatValue(hb)), '00000000018bcfe56800');
  });

  // Vectors from Kafka 4.3.1's own org.apache.kafka.connect.mirror.Heartbeat recordKey()/recordValue().
  const javaVectors: readonly { hb: Heartbeat; key: string; value: string }[] = [
    {
      hb: { sourceClusterAlias: 'us-west', targetClusterAlias: 'us-east', timestamp: 1700000000000 },
      key: '000775732d77657374000775732d65617374',
      value: '00000000018bcfe56800',
    },
    { hb: { sourceClusterAlias: 'A', targetClusterAlias: 'B', timestamp: 0 }, key: '000141000142', value: '00000000000000000000' },
    { hb: { sourceClusterAlias: 'ü', targetClusterAlias: '', timestamp: -1 }, key: '0002c3bc0000', value: '0000ffffffffffffffff' },
  ];
  for (const { hb, key, value } of javaVectors) {
    it(`encodes and decodes ${formatHeartbeat(hb)} byte for byte`, () => {
      assert.equal(hex(encodeHeartbeatKey(hb)), key);
      assert.equal(hex(encodeHeartbeatValue(hb)), value);
      assert.deepEqual(decodeHeartbeat(Buffer.from(key, 'hex'), Buffer.from(value, 'hex')), hb);
    });
  }

  it('prints like Java toString()', () => {
    assert.equal(
      formatHeartbeat({ sourceClusterAlias: 'us-west', targetClusterAlias: 'us-east', timestamp: 1700000000000 }),
      'Heartbeat{sourceClusterAlias=us-west, targetClusterAlias=us-east, timestamp=1700000000000}',
    );
  });

  it('decodes other versions with the V0 layout and ignores trailing bytes', () => {
    const hb = decodeHeartbeat(Buffer.from('000141000142ff', 'hex'), Buffer.from('000700000000000000071234', 'hex'));
    assert.deepEqual(hb, { sourceClusterAlias: 'A', targetClusterAlias: 'B', timestamp: 7 });
  });

  it('rejects malformed records with RecordFormatError', () => {
    assert.throws(() => decodeHeartbeat(Buffer.from('000141', 'hex'), Buffer.alloc(10)), /field 'targetClusterAlias'/);
    assert.throws(() => decodeHeartbeat(Buffer.from('000141000142', 'hex'), Buffer.alloc(9)), /field 'timestamp'/);
    assert.throws(() => decodeHeartbeat(Buffer.from('8000', 'hex'), Buffer.alloc(10)), /negative string length -32768/);
    assert.throws(() => decodeHeartbeat(null, Buffer.alloc(10)), RecordFormatError);
    assert.throws(() => decodeHeartbeat(Buffer.from('000141000142', 'hex'), null), RecordFormatError);
  });
});
