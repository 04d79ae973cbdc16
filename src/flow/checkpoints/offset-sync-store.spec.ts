/**
 * OffsetSyncStore against MM2's `OffsetSyncStoreTest` (Kafka 4.x), vector for vector.
 *
 * MM2's tests run offsets up to Long.MAX_VALUE; mirrorflow's offsets are safe integers (the
 * decoder rejects larger ones). So the tests run twice: against a literal BigInt port of MM2's
 * code (`OracleStore`, int64 wrap-around and all) with MM2's own bounds, which shows the port is
 * MM2; and against the product with the bounds scaled to 2^53, plus a differential test that the
 * product and the oracle agree slot for slot on random sync streams.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OffsetSyncStore, SYNCS_PER_PARTITION, type StoredSync } from './offset-sync-store';
import { encodeOffsetSyncKey, encodeOffsetSyncValue } from '../../formats';
import type { KafkaRecord, TopicPartition } from '../../core/record';
import type { Logger } from '../../core/ports/logger';

const tp: TopicPartition = { topic: 'topic1', partition: 2 };

// ---------------------------------------------------------------------------------------------
// java.util.Random, for MM2's seeded random tests (checked against jshell: see the first test).

const MULTIPLIER = 0x5deece66dn;
const MASK48 = (1n << 48n) - 1n;
const i64 = (x: bigint): bigint => BigInt.asIntN(64, x);
/** Java's `1L << k` for k in 0..63 (k = 63 is Long.MIN_VALUE). */
const SHL: readonly bigint[] = Array.from({ length: 64 }, (_, k) => i64(1n << BigInt(k)));

class JavaRandom {
  private seed: bigint;
  constructor(seed: bigint) {
    this.seed = (seed ^ MULTIPLIER) & MASK48;
  }
  private next(bits: number): number {
    this.seed = (this.seed * MULTIPLIER + 0xbn) & MASK48;
    return Number(BigInt.asIntN(32, this.seed >> BigInt(48 - bits)));
  }
  nextLong(): bigint {
    return i64((BigInt(this.next(32)) << 32n) + BigInt(this.next(32)));
  }
  nextDouble(): number {
    return (this.next(26) * 2 ** 27 + this.next(27)) * 2 ** -53;
  }
  /** `Random.longs(n, origin, bound)` (RandomSupport.boundedNextLong). */
  *longs(count: number, origin: bigint, bound: bigint): Generator<bigint> {
    for (let k = 0; k < count; k++) {
      let r = this.nextLong();
      const n = i64(bound - origin);
      const m = i64(n - 1n);
      if ((n & m) === 0n) {
        r = i64((r & m) + origin);
      } else if (n > 0n) {
        for (let u = BigInt.asUintN(64, r) >> 1n; i64(u + m - (r = u % n)) < 0n; u = BigInt.asUintN(64, this.nextLong()) >> 1n);
        r = i64(r + origin);
      } else {
        while (r < origin || r >= bound) r = this.nextLong();
      }
      yield r;
    }
  }
  *doubles(count: number): Generator<number> {
    for (let k = 0; k < count; k++) yield this.nextDouble();
  }
}

// ---------------------------------------------------------------------------------------------
// The oracle: MM2's OffsetSyncStore with Java long arithmetic, as literally as TypeScript allows.

interface BigSync {
  readonly upstream: bigint;
  readonly downstream: bigint;
}

function oracleInvariantB(a: BigSync, b: BigSync, i: number, j: number): boolean {
  const bound = i64(i64(b.upstream + SHL[j]!) - SHL[i]!);
  return a === b || bound < 0n || a.upstream <= bound;
}

function oracleInvariantC(a: BigSync, b: BigSync, i: number): boolean {
  const bound = i64(b.upstream + SHL[Math.max(i - 2, 0)]!);
  return a === b || (bound >= 0n && a.upstream >= bound);
}

class OracleStore {
  readonly syncs = new Map<string, BigSync[]>();
  readToEnd = false;
  constructor(readonly initializationMustReadToEnd = true) {}

  sync(upstream: bigint, downstream: bigint): void {
    const s: BigSync = { upstream, downstream };
    const old = this.syncs.get('tp');
    if (old === undefined) {
      this.syncs.set('tp', new Array<BigSync>(64).fill(s));
      return;
    }
    const syncs = old.slice();
    this.update(syncs, old, s);
    this.syncs.set('tp', syncs);
  }

  private update(syncs: BigSync[], original: BigSync[], s: BigSync): void {
    if ((!this.readToEnd && this.initializationMustReadToEnd) || s.upstream < syncs[0]!.upstream) {
      syncs.fill(s);
      return;
    }
    let replacement = s;
    let ri = 0;
    syncs[0] = replacement;
    for (let current = 1; current < 64; current++) {
      const previous = current - 1;
      let skip: boolean;
      do {
        const old = original[ri]!;
        const isRecent = oracleInvariantB(syncs[previous]!, old, previous, current);
        const sepPrev = oracleInvariantC(syncs[previous]!, old, previous);
        const next = current + 1;
        const sepNext = next >= 64 || oracleInvariantC(old, syncs[next]!, current);
        const duplicate = ri + 1 < 64 && old === original[ri + 1];
        const promote = isRecent && sepPrev && sepNext;
        if (promote) replacement = old;
        skip = duplicate || !sepPrev;
        if (promote || skip) ri++;
      } while (ri < current && skip);
      if (oracleInvariantB(syncs[previous]!, syncs[current]!, previous, current)) break;
      syncs[current] = replacement;
    }
  }

  translate(g: bigint): bigint | undefined {
    if (!this.readToEnd) return undefined;
    const syncs = this.syncs.get('tp');
    if (syncs === undefined) return undefined;
    let s = syncs[63]!;
    for (let i = 0; i < 64; i++) {
      if (syncs[i]!.upstream <= g) {
        s = syncs[i]!;
        break;
      }
    }
    if (s.upstream > g) return -1n;
    return s.downstream + (g === s.upstream ? 0n : 1n);
  }

  slot(i: number): BigSync {
    return this.syncs.get('tp')![i]!;
  }
}

// ---------------------------------------------------------------------------------------------
// The same test bodies for both stores.

interface StoreUnderTest<N> {
  sync(upstream: N, downstream: N): void;
  translate(g: N): N | undefined;
  upstreamAt(slot: number): N;
  sameSlot(i: number, j: number): boolean;
}

const product = (store: OffsetSyncStore): StoreUnderTest<number> => ({
  sync: (u, d) => store.handle({ topicPartition: tp, upstreamOffset: u, downstreamOffset: d }),
  translate: (g) => store.translateDownstream(tp, g),
  upstreamAt: (slot) => store.syncFor(tp, slot).upstreamOffset,
  sameSlot: (i, j) => store.syncFor(tp, i) === store.syncFor(tp, j),
});

const oracle = (store: OracleStore): StoreUnderTest<bigint> => ({
  sync: (u, d) => store.sync(u, d),
  translate: (g) => store.translate(g),
  upstreamAt: (slot) => store.slot(slot).upstream,
  sameSlot: (i, j) => store.slot(i) === store.slot(j),
});

function countDistinct<N>(s: StoreUnderTest<N>): number {
  let count = 1;
  for (let i = 1; i < SYNCS_PER_PARTITION; i++) if (!s.sameSlot(i - 1, i)) count++;
  return count;
}

/** MM2's assertSyncSpacingHasBoundedExpirations, on a fresh store that has read to end. */
function assertBoundedExpirations<N extends number | bigint>(
  fresh: () => StoreUnderTest<N>,
  firstOffset: N,
  steps: Iterable<N>,
  maximumExpirations: number,
  zero: N,
  add: (a: N, b: N) => N = (a, b) => ((a as number) + (b as number)) as N,
): void {
  const s = fresh();
  s.sync(firstOffset, firstOffset);
  let offset = firstOffset;
  let lastCount = 1;
  for (const step of steps) {
    offset = add(offset, step);
    assert.ok(offset >= zero, 'test is invalid, offset overflowed');
    s.sync(offset, offset);
    assert.equal(s.upstreamAt(0), offset, 'invariant A: the latest sync is present');
    assert.equal(s.upstreamAt(63), firstOffset, 'invariant D: the earliest sync is present');
    const count = countDistinct(s);
    const expired = lastCount - count + 1;
    assert.ok(expired <= maximumExpirations, `store expired too many syncs: ${expired} > ${maximumExpirations} after receiving offset ${offset}`);
    lastCount = count;
  }
}

function* repeat<T>(value: T, times: number): Generator<T> {
  for (let k = 0; k < times; k++) yield value;
}

function productStore(initializationMustReadToEnd = true): { store: OffsetSyncStore; s: StoreUnderTest<number> } {
  const store = new OffsetSyncStore({ initializationMustReadToEnd });
  return { store, s: product(store) };
}

/** MM2's assertSparseSync: x-1 → prev+1 (or -1), x → x, x+1 → x+1, x+2 → x+1. */
function assertSparseSync(s: StoreUnderTest<number>, syncOffset: number, previousOffset: number): void {
  assert.equal(s.translate(syncOffset - 1), previousOffset === -1 ? -1 : previousOffset + 1, `translate(${syncOffset - 1})`);
  assert.equal(s.translate(syncOffset), syncOffset, `translate(${syncOffset})`);
  assert.equal(s.translate(syncOffset + 1), syncOffset + 1, `translate(${syncOffset + 1})`);
  assert.equal(s.translate(syncOffset + 2), syncOffset + 1, `translate(${syncOffset + 2})`);
}

/** MM2's assertSparseSyncInvariant (invariants B and C between every pair of slots). */
function assertSparseSyncInvariant(s: StoreUnderTest<number>): void {
  for (let j = 0; j < SYNCS_PER_PARTITION; j++) {
    for (let i = 0; i < j; i++) {
      const jUp = BigInt(s.upstreamAt(j));
      const iUp = BigInt(s.upstreamAt(i));
      if (jUp === iUp) continue;
      const lower = i64(jUp + SHL[Math.max(i - 2, 0)]!);
      if (lower < 0n) continue;
      assert.ok(iUp >= lower, `invariant C(${i},${j}): ${iUp} at ${i} should be at least ${lower}`);
      const upper = i64(i64(jUp + SHL[j]!) - SHL[i]!);
      if (upper < 0n) continue;
      assert.ok(iUp <= upper, `invariant B(${i},${j}): ${iUp} at ${i} should be at most ${upper}`);
    }
  }
}

describe('OffsetSyncStore (MM2 OffsetSyncStoreTest)', () => {
  test('java.util.Random port gives the JDK stream (values printed by jshell)', () => {
    assert.deepEqual([...new JavaRandom(0n).longs(6, 0n, 1n << 5n)], [24n, 30n, 26n, 3n, 13n, 11n]);
    assert.deepEqual([...new JavaRandom(0n).longs(4, 65536n, 65536n + 1000n)], [66396n, 65919n, 66029n, 66281n]);
    assert.deepEqual([...new JavaRandom(0n).doubles(3)], [0.730967787376657, 0.24053641567148587, 0.6374174253501083]);
    const r = new JavaRandom(0n);
    assert.deepEqual([r.nextLong(), r.nextLong()], [-4962768465676381896n, 4437113781045784766n]);
  });

  test('testOffsetTranslation', () => {
    const { store, s } = productStore();
    store.markReadToEnd();
    // Emit the synced downstream offset without dead-reckoning.
    s.sync(100, 200);
    assert.equal(s.translate(150), 201);
    // Exact offsets translate exactly.
    s.sync(150, 251);
    assert.equal(s.translate(150), 251);
    // An offset before every sync cannot be translated.
    assert.equal(s.translate(5), -1);
    // Downstream offsets reset.
    s.sync(200, 10);
    assert.equal(s.translate(200), 10);
    // Upstream offsets reset.
    s.sync(20, 20);
    assert.equal(s.translate(20), 20);
  });

  test('testNoTranslationIfStoreNotStarted', () => {
    const { store, s } = productStore();
    assert.equal(s.translate(0), undefined);
    assert.equal(s.translate(100), undefined);
    assert.equal(s.translate(200), undefined);
    // A sync read during the initial load is not used until the load reached the end.
    s.sync(100, 200);
    assert.equal(s.translate(0), undefined);
    assert.equal(s.translate(100), undefined);
    assert.equal(s.translate(200), undefined);
    store.markReadToEnd();
    assert.equal(s.translate(0), -1);
    assert.equal(s.translate(100), 200);
    assert.equal(s.translate(200), 201);
  });

  test('testNoTranslationIfNoOffsetSync', () => {
    const { store, s } = productStore();
    store.markReadToEnd();
    assert.equal(s.translate(0), undefined);
    assert.equal(store.translateDownstream({ topic: 'other', partition: 2 }, 0), undefined);
  });

  test('testPastOffsetTranslation', () => {
    const maxOffsetLag = 10;
    const { store, s } = productStore(true);
    for (let offset = 0; offset <= 1000; offset += maxOffsetLag) {
      s.sync(offset, offset);
      assertSparseSyncInvariant(s);
    }
    store.markReadToEnd();
    // Before new syncs, only the latest sync of the initial load can be used.
    assertSparseSync(s, 1000, -1);
    for (let offset = 1000 + maxOffsetLag; offset <= 10000; offset += maxOffsetLag) {
      s.sync(offset, offset);
      assertSparseSyncInvariant(s);
    }
    // Invariant D: the last sync of the initial load is still stored.
    assertSparseSync(s, 1000, -1);
    // Older offsets translate with less precision.
    for (const [x, prev] of [
      [4840, 1000],
      [6760, 4840],
      [8680, 6760],
      [9160, 8680],
      [9640, 9160],
      [9880, 9640],
      [9940, 9880],
      [9970, 9940],
      [9990, 9970],
      [10000, 9990],
    ] as const) {
      assertSparseSync(s, x, prev);
    }
    // An upstream rewind clears the history.
    s.sync(1500, 11000);
    assertSparseSyncInvariant(s);
    assert.equal(s.translate(1499), -1);
    assert.equal(s.translate(1500), 11000);
    assert.equal(s.translate(2000), 11001);
  });

  test('testPastOffsetTranslationWithoutInitializationReadToEnd', () => {
    const maxOffsetLag = 10;
    const { store, s } = productStore(false);
    for (let offset = 0; offset <= 1000; offset += maxOffsetLag) {
      s.sync(offset, offset);
      assertSparseSyncInvariant(s);
    }
    store.markReadToEnd();
    assertSparseSync(s, 480, 0);
    assertSparseSync(s, 720, 480);
    assertSparseSync(s, 1000, 990);
    for (let offset = 1000; offset <= 10000; offset += maxOffsetLag) {
      s.sync(offset, offset);
      assertSparseSyncInvariant(s);
    }
    for (const [x, prev] of [
      [3840, 0],
      [7680, 3840],
      [8640, 7680],
      [9120, 8640],
      [9600, 9120],
      [9840, 9600],
      [9900, 9840],
      [9960, 9900],
      [9990, 9960],
      [10000, 9990],
    ] as const) {
      assertSparseSync(s, x, prev);
    }
    s.sync(1500, 11000);
    assertSparseSyncInvariant(s);
    assert.equal(s.translate(1499), -1);
    assert.equal(s.translate(1500), 11000);
    assert.equal(s.translate(2000), 11001);
  });

  const freshProduct = (): StoreUnderTest<number> => {
    const { store, s } = productStore();
    store.markReadToEnd();
    return s;
  };
  const freshOracle = (): StoreUnderTest<bigint> => {
    const store = new OracleStore();
    store.readToEnd = true;
    return oracle(store);
  };

  test('testConsistentlySpacedSyncs (steps up to 2^53 / 100)', () => {
    const iterations = 100;
    const maxStep = Math.floor(Number.MAX_SAFE_INTEGER / iterations);
    for (let step = 1; step < maxStep; step = step * 2 + 1) {
      for (let firstOffset = 0; firstOffset < 30; firstOffset++) {
        assertBoundedExpirations(freshProduct, firstOffset, repeat(step, iterations), 1, 0);
      }
    }
  });

  test('testConsistentlySpacedSyncs on the int64 oracle (MM2 bounds: steps up to Long.MAX_VALUE / 100)', () => {
    const iterations = 100n;
    const maxStep = (2n ** 63n - 1n) / iterations;
    for (let step = 1n; step < maxStep; step = step * 2n + 1n) {
      for (let firstOffset = 0n; firstOffset < 30n; firstOffset++) {
        assertBoundedExpirations(freshOracle, firstOffset, repeat(step, Number(iterations)), 1, 0n, (a, b) => a + b);
      }
    }
  });

  test('testRandomlySpacedSyncs (spreads up to 2^42, so offsets stay below 2^53)', () => {
    const random = new JavaRandom(0n);
    const iterationBits = 10;
    const iterations = 1 << iterationBits;
    for (let n = 1; n < 53 - iterationBits; n++) {
      const maximumDifference = 2n ** BigInt(n);
      const offsetLagMax = 1n << 16n;
      const toNumbers = (xs: Iterable<bigint>): number[] => [...xs].map(Number);
      assertBoundedExpirations(freshProduct, 0, toNumbers(random.longs(iterations, 0n, maximumDifference)), n + 2, 0);
      assertBoundedExpirations(freshProduct, 0, toNumbers(random.longs(iterations, offsetLagMax, offsetLagMax + maximumDifference)), n + 2, 0);
    }
  });

  test('testRandomlySpacedSyncs on the int64 oracle (MM2 bounds: n < 54)', () => {
    const random = new JavaRandom(0n);
    const iterationBits = 10;
    const iterations = 1 << iterationBits;
    for (let n = 1; n < 64 - iterationBits; n++) {
      const maximumDifference = 1n << BigInt(n);
      const offsetLagMax = 1n << 16n;
      assertBoundedExpirations(freshOracle, 0n, random.longs(iterations, 0n, maximumDifference), n + 2, 0n, (a, b) => a + b);
      assertBoundedExpirations(freshOracle, 0n, random.longs(iterations, offsetLagMax, offsetLagMax + maximumDifference), n + 2, 0n, (a, b) => a + b);
    }
  });

  test('testDroppedSyncsSpacing', () => {
    const random = new JavaRandom(0n);
    const offsetLagMax = 100;
    const steps = [...random.doubles(10000)].map((d) => (d < 0.5 ? 2 : 1) * offsetLagMax);
    assertBoundedExpirations(freshProduct, 0, steps, 2, 0);
  });
});

describe('OffsetSyncStore agrees with the int64 oracle', () => {
  /** A product store and an oracle fed the same syncs; compares every slot and some translations. */
  function pair(initializationMustReadToEnd: boolean) {
    const { store, s } = productStore(initializationMustReadToEnd);
    const o = new OracleStore(initializationMustReadToEnd);
    return {
      store,
      sync(u: number, d: number) {
        s.sync(u, d);
        o.sync(BigInt(u), BigInt(d));
      },
      markReadToEnd() {
        store.markReadToEnd();
        o.readToEnd = true;
      },
      check(probes: readonly number[], context: string) {
        for (let i = 0; i < SYNCS_PER_PARTITION; i++) {
          assert.equal(BigInt(s.upstreamAt(i)), o.slot(i).upstream, `${context}: slot ${i}`);
          if (i > 0) assert.equal(s.sameSlot(i - 1, i), o.slot(i - 1) === o.slot(i), `${context}: identity of slots ${i - 1},${i}`);
        }
        for (const g of probes) {
          const expected = o.translate(BigInt(g));
          assert.equal(s.translate(g), expected === undefined ? undefined : Number(expected), `${context}: translate(${g})`);
        }
      },
    };
  }

  for (const [label, base, spread] of [
    ['small offsets', 0, 1_000],
    ['offsets near 2^53', Number.MAX_SAFE_INTEGER - 2 ** 40, 2 ** 30],
    ['wide random steps', 0, 2 ** 44],
  ] as const) {
    for (const initializationMustReadToEnd of [true, false]) {
      test(`${label}, initializationMustReadToEnd=${initializationMustReadToEnd}`, () => {
        const random = new JavaRandom(BigInt(base % 1_000_003) + 7n);
        const p = pair(initializationMustReadToEnd);
        let upstream = base;
        let downstream = 0;
        const stepOf = (): number => Math.floor(random.nextDouble() * spread) + 1;
        for (let k = 0; k < 200; k++) {
          upstream += stepOf();
          downstream += 1 + Math.floor(random.nextDouble() * 10);
          p.sync(upstream, downstream);
        }
        p.markReadToEnd();
        for (let k = 0; k < 2000; k++) {
          const r = random.nextDouble();
          // Mostly forward; sometimes an upstream rewind or a downstream reset, as MM2 sees after topic resets.
          if (r < 0.01) upstream = Math.max(base, upstream - stepOf() * 50);
          else upstream = Math.min(Number.MAX_SAFE_INTEGER, upstream + stepOf());
          downstream = r > 0.995 ? 0 : downstream + 1 + Math.floor(random.nextDouble() * 10);
          p.sync(upstream, downstream);
          if (k % 50 === 0) {
            const probes = [base, upstream, upstream - 1, upstream + 1, Math.floor((base + upstream) / 2), Math.max(base, upstream - spread * 7)];
            p.check(probes, `after sync ${k} (${upstream})`);
          }
        }
        p.check([upstream], 'at the end');
      });
    }
  }
});

describe('OffsetSyncStore records', () => {
  function record(offset: number, key: Buffer | null, value: Buffer | null): KafkaRecord {
    return { topic: 'mm2-offset-syncs.b.internal', partition: 0, offset, timestamp: 0, key, value, headers: [] };
  }
  const syncRecord = (offset: number, u: number, d: number): KafkaRecord =>
    record(offset, encodeOffsetSyncKey(tp), encodeOffsetSyncValue({ topicPartition: tp, upstreamOffset: u, downstreamOffset: d }));

  function warnings(): { logger: Logger; lines: { message: string; meta: Record<string, unknown> }[] } {
    const lines: { message: string; meta: Record<string, unknown> }[] = [];
    const logger: Logger = {
      error() {},
      info() {},
      debug() {},
      warn: (message, meta = {}) => lines.push({ message, meta }),
      child: () => logger,
    };
    return { logger, lines };
  }

  test('skips malformed records with one warning and applies the rest', () => {
    const { logger, lines } = warnings();
    const store = new OffsetSyncStore({ logger });
    const longValue = Buffer.alloc(16);
    longValue.writeBigInt64BE(2n ** 60n, 0); // beyond the safe integer range
    const skipped = store.handleRecords('syncs', [
      syncRecord(0, 10, 20),
      record(1, null, Buffer.alloc(16)), // null key
      record(2, encodeOffsetSyncKey(tp), null), // tombstone
      record(3, encodeOffsetSyncKey(tp), Buffer.alloc(7)), // short value
      record(4, Buffer.from([0x00, 0x09, 0x61]), Buffer.alloc(16)), // string longer than the key
      record(5, encodeOffsetSyncKey(tp), longValue),
      syncRecord(6, 30, 40),
    ]);
    assert.equal(skipped, 5);
    assert.equal(store.skippedRecords, 5);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.message, 'Skipped malformed offset-sync records.');
    assert.equal(lines[0]!.meta['skipped'], 5);
    assert.equal(lines[0]!.meta['firstOffset'], 1);
    store.markReadToEnd();
    assert.equal(store.translateDownstream(tp, 30), 40);
  });

  test('treats negative offsets as malformed (MM2 never writes them; the invariants assume none)', () => {
    const store = new OffsetSyncStore();
    const value = Buffer.alloc(16);
    value.writeBigInt64BE(-1n, 0);
    assert.equal(store.handleRecords('syncs', [record(0, encodeOffsetSyncKey(tp), value)]), 1);
    assert.equal(store.partitionCount, 0);
  });

  test('ignores trailing bytes, as MM2 readers do', () => {
    const store = new OffsetSyncStore();
    const value = Buffer.concat([encodeOffsetSyncValue({ topicPartition: tp, upstreamOffset: 5, downstreamOffset: 6 }), Buffer.from([1, 2, 3])]);
    assert.equal(store.handleRecords('syncs', [record(0, encodeOffsetSyncKey(tp), value)]), 0);
    store.markReadToEnd();
    assert.equal(store.translateDownstream(tp, 5), 6);
  });

  test('keeps partitions apart and translates at the largest safe offsets', () => {
    const store = new OffsetSyncStore();
    const other: TopicPartition = { topic: 'topic1', partition: 3 };
    const big = Number.MAX_SAFE_INTEGER - 1;
    store.handle({ topicPartition: tp, upstreamOffset: big, downstreamOffset: big });
    store.handle({ topicPartition: other, upstreamOffset: 1, downstreamOffset: 2 });
    store.markReadToEnd();
    assert.equal(store.translateDownstream(tp, Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    assert.equal(store.translateDownstream(tp, big - 1), -1);
    assert.equal(store.translateDownstream(other, 5), 3);
    const slots: StoredSync[] = Array.from({ length: SYNCS_PER_PARTITION }, (_, i) => store.syncFor(other, i));
    assert.ok(
      slots.every((s) => s === slots[0]),
      'the first sync fills every slot with the same object',
    );
  });
});

describe('OffsetSyncStore held offsets (beyond MM2: where groups sit)', () => {
  const started = (): OffsetSyncStore => {
    const store = new OffsetSyncStore({ initializationMustReadToEnd: false });
    store.markReadToEnd();
    return store;
  };
  const sync = (store: OffsetSyncStore, u: number, d = u) => store.handle({ topicPartition: tp, upstreamOffset: u, downstreamOffset: d });
  /** Syncs every 101 offsets from `from` up to 5,000, then the last record's, as a flow catching up on 5,000 records writes them. */
  const catchUp = (store: OffsetSyncStore, from: number) => {
    for (let u = from; u < 5000; u += 101) sync(store, u);
    sync(store, 4999);
  };

  test('a group at 2,000 that stopped: the sparse history alone forgets every sync near it; held, it keeps the nearest', () => {
    const mm2 = started();
    const held = started();
    sync(mm2, 0);
    sync(held, 0);
    held.hold(tp, 2000);
    assert.equal(held.translateDownstream(tp, 2000), 1);
    catchUp(mm2, 101);
    catchUp(held, 101);
    assert.equal(mm2.translateDownstream(tp, 2000), 1, "MM2's store: the syncs between 0 and 3,232 were dropped");
    assert.equal(held.translateDownstream(tp, 2000), 1920);
    assert.deepEqual(held.translate(tp, 2000)?.sync, { upstreamOffset: 1919, downstreamOffset: 1919 });
    // Other offsets translate as MM2's store does; a sync at the held offset itself is exact.
    assert.equal(held.translateDownstream(tp, 2100), mm2.translateDownstream(tp, 2100));
    held.hold(tp, 4949);
    assert.equal(held.translateDownstream(tp, 4949), 4949);
  });

  test('a held offset never translates further than the sparse history, nor past itself', () => {
    const store = started();
    catchUp(store, 50);
    store.hold(tp, 4900);
    // Held after the syncs went by: it starts from the sparse history's answer.
    assert.equal(store.translateDownstream(tp, 4900), 4899);
    sync(store, 5100);
    assert.equal(store.translateDownstream(tp, 4900), 4899, 'a sync past the offset is not used for it');
    store.hold(tp, 10);
    assert.equal(store.translateDownstream(tp, 10), -1, 'older than every sync kept, held or not');
  });

  test('released with its last holder; a source log that restarted forgets what was held', () => {
    const store = started();
    sync(store, 0);
    store.hold(tp, 2000);
    store.hold(tp, 2000);
    catchUp(store, 101);
    store.release(tp, 2000);
    assert.equal(store.translateDownstream(tp, 2000), 1920, 'one holder left');
    store.release(tp, 2000);
    assert.equal(store.heldOffsets, 0);
    assert.equal(store.translateDownstream(tp, 2000), 1);

    store.hold(tp, 2000);
    sync(store, 1500, 6000);
    // The upstream went back: a new log. 1,500 → 6,000 is its only sync; the old best is gone.
    assert.equal(store.translateDownstream(tp, 2000), 6001);
    sync(store, 1900, 6400);
    assert.equal(store.translateDownstream(tp, 2000), 6401);
  });

  test("a partition's first sync is announced before it is applied, so a restarted flow holds its checkpoints' offsets first", () => {
    const announced: TopicPartition[] = [];
    const store: OffsetSyncStore = new OffsetSyncStore({
      initializationMustReadToEnd: false,
      onNewPartition: (p) => {
        announced.push(p);
        store.hold(p, 2000);
      },
    });
    catchUp(store, 0);
    store.markReadToEnd();
    assert.deepEqual(announced, [tp]);
    assert.equal(store.translateDownstream(tp, 2000), 1920);
  });
});
