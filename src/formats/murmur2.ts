/**
 * Kafka's murmur2 hash and key partitioner (`Utils.murmur2`, `Utils.toPositive`,
 * `BuiltInPartitioner.partitionForKey`): the partition Java's producer picks for a keyed record.
 * Connect's offsets topic is written this way, so a key's partition tells where MM2 stored it.
 *
 *   h = 0x9747b28c ^ length
 *   per 4-byte little-endian block k:  k *= M; k ^= k >>> 24; k *= M; h *= M; h ^= k
 *   tail (1..3 bytes), little-endian:  h ^= tail; h *= M
 *   finish:                            h ^= h >>> 13; h *= M; h ^= h >>> 15
 *   with M = 0x5bd1e995 and 32-bit wrapping multiplication
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 of `data`, as the signed 32-bit int Java returns. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const blocks = length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const b = i << 2;
    let k = data[b]! | (data[b + 1]! << 8) | (data[b + 2]! << 16) | (data[b + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = blocks << 2;
  const rest = length & 3;
  if (rest !== 0) {
    if (rest === 3) h ^= data[tail + 2]! << 16;
    if (rest >= 2) h ^= data[tail + 1]! << 8;
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Java's `Utils.toPositive`: clears the sign bit (not `Math.abs`, which fails for MIN_VALUE). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/** The partition Kafka's Java producer sends a record with these key bytes to. */
export function partitionForKey(key: Uint8Array, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions < 1) {
    throw new RangeError(`numPartitions must be a positive integer, got ${numPartitions}`);
  }
  return toPositive(murmur2(key)) % numPartitions;
}
