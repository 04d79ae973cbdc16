import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { murmur2, partitionForKey, toPositive } from './murmur2';

// [input hex, Utils.murmur2, Utils.toPositive(Utils.murmur2)] from Kafka 4.3.1's own
// org.apache.kafka.common.utils.Utils; they cover every tail length and bytes with the high bit set.
const VECTORS: readonly (readonly [string, number, number])[] = [
  ['', 275646681, 275646681],
  ['61', -1563381124, 584102524],
  ['6162', 316155434, 316155434],
  ['616263', 479470107, 479470107],
  ['61626364', -1323649548, 823834100],
  ['6162636465', 461995741, 461995741],
  ['616263646566', 1870650108, 1870650108],
  ['61626364656667', -346467175, 1801016473],
  ['6162636465666768', -955427363, 1192056285],
  ['6f7264657273', -1029842276, 1117641372],
  ['68656c6c6f20776f726c64', 1221641059, 1221641059],
  ['6b61666b61', -798503068, 1348980580],
  ['80', 857690492, 857690492],
  ['ff', -311467685, 1836015963],
  ['fffe', 1717632651, 1717632651],
  ['fffefd', 998637092, 998637092],
  ['fffefdfc', 2136149935, 2136149935],
  ['80818283848586', -47880214, 2099603434],
  ['00000000', 850957120, 850957120],
  ['6772c3bcc39f652df09f9880', -1585238919, 562244729],
];

describe('murmur2', () => {
  for (const [input, hash, positive] of VECTORS) {
    it(`hashes ${input || '(empty)'} as Kafka does`, () => {
      const bytes = Buffer.from(input, 'hex');
      assert.equal(murmur2(bytes), hash);
      assert.equal(toPositive(murmur2(bytes)), positive);
    });
  }

  it('toPositive clears the sign bit, also for MIN_VALUE', () => {
    assert.equal(toPositive(-2147483648), 0);
    assert.equal(toPositive(-1), 2147483647);
  });

  it('partitionForKey is toPositive(murmur2) modulo the partition count', () => {
    assert.equal(partitionForKey(Buffer.from('orders'), 25), 1117641372 % 25);
    assert.throws(() => partitionForKey(Buffer.from('x'), 0), RangeError);
  });
});
