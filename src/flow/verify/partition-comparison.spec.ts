import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionComparison, type ComparisonBounds, type PartitionCounts } from './partition-comparison';
/** Record `n`'s digest (hi, lo): distinct contents, except where a test repeats one on purpose. */
const d = (n: number): [number, number] => [n >>> 0, Math.imul(n, 2654435761) >>> 0];

interface Run {
  readonly source: readonly (number | undefined)[];
  readonly target: readonly number[];
  readonly bounds?: Partial<ComparisonBounds>;
}

/** Runs a comparison as the driver does: source read ahead when asked, target records in order, then the source's rest. */
function compare({ source, target, bounds = {} }: Run): PartitionCounts {
  const c = new PartitionComparison({ progress: Infinity, rangeEnd: Infinity, leadingSkip: 0, capacity: 1024, ...bounds });
  let s = 0;
  const readSource = (): boolean => {
    if (s >= source.length) {
      c.endSource();
      return false;
    }
    const content = source[s];
    if (content === undefined) c.addFiltered(s);
    else c.addSource(s, ...d(content));
    s++;
    return true;
  };
  target.forEach((content, offset) => {
    while (c.wantsSource()) if (!readSource()) break;
    while (c.addTarget(offset, ...d(content)) === 'need-source') readSource();
  });
  while (readSource());
  return c.finish();
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);
const pick = (c: PartitionCounts) => ({ matched: c.matched, missing: c.missing, duplicates: c.duplicates, unexpected: c.unexpected, behind: c.behind });

describe('PartitionComparison', () => {
  test('a clean copy: every record matched, nothing else', () => {
    const c = compare({ source: range(0, 5000), target: range(0, 5000) });
    assert.deepEqual(pick(c), { matched: 5000, missing: 0, duplicates: 0, unexpected: 0, behind: 0 });
    assert.equal(c.sourceRecords, 5000);
    assert.equal(c.targetRecords, 5000);
  });

  test('records deleted from the start of the target are missing, counted exactly, far past half the ring', () => {
    const c = compare({ source: range(0, 5000), target: range(700, 5000), bounds: { capacity: 2048 } });
    assert.deepEqual(pick(c), { matched: 4300, missing: 700, duplicates: 0, unexpected: 0, behind: 0 });
    assert.equal(c.firstMissing, 0);
  });

  test('a replay after a crash: the records written again are duplicates', () => {
    const c = compare({ source: range(0, 3000), target: [...range(0, 2000), ...range(1500, 3000)] });
    assert.deepEqual(pick(c), { matched: 3000, missing: 0, duplicates: 500, unexpected: 0, behind: 0 });
    assert.equal(c.firstDuplicate, 2000);
  });

  test('foreign records among the copies are unexpected', () => {
    const foreign = [1_000_001, 1_000_002, 1_000_003];
    const c = compare({ source: range(0, 3000), target: [...range(0, 1000), ...foreign, ...range(1000, 3000), 1_000_004] });
    assert.deepEqual(pick(c), { matched: 3000, missing: 0, duplicates: 0, unexpected: 4, behind: 0 });
    assert.equal(c.firstUnexpected, 1000);
  });

  test('source records past the stored progress the target lacks are behind, not missing', () => {
    const c = compare({ source: range(0, 3000), target: range(0, 2500), bounds: { progress: 2400 } });
    assert.deepEqual(pick(c), { matched: 2500, missing: 0, duplicates: 0, unexpected: 0, behind: 500 });
  });

  test("records the flow's filters drop are counted apart and never missing", () => {
    const source = range(0, 100).map((n) => (n % 3 === 0 ? undefined : n));
    const c = compare({ source, target: range(0, 100).filter((n) => n % 3 !== 0) });
    assert.deepEqual(pick(c), { matched: 66, missing: 0, duplicates: 0, unexpected: 0, behind: 0 });
    assert.equal(c.filtered, 34);
  });

  test('leading target records that copy records before the range are skipped, up to the distance of the offset sync', () => {
    const c = compare({ source: range(100, 200), target: range(90, 200), bounds: { leadingSkip: 10 } });
    assert.deepEqual(pick(c), { matched: 100, missing: 0, duplicates: 0, unexpected: 0, behind: 0 });
    assert.equal(c.before, 10);
    const further = compare({ source: range(100, 200), target: range(80, 200), bounds: { leadingSkip: 10 } });
    assert.equal(further.unexpected, 10);
  });

  test('a range that ends before the source: copies past it are after, and the target is left once far past it', () => {
    const c = new PartitionComparison({ progress: Infinity, rangeEnd: 50, leadingSkip: 0, capacity: 64 });
    let s = 0;
    let read = 0;
    for (let t = 0; t < 100_000 && !c.pastRange(); t++) {
      while (c.wantsSource()) c.addSource(s, ...d(s++));
      c.addTarget(t, ...d(t));
      read++;
    }
    const counts = c.finish();
    assert.deepEqual(pick(counts), { matched: 50, missing: 0, duplicates: 0, unexpected: 0, behind: 0 });
    assert.ok(read < 200, `read ${read} target records`);
    assert.equal(counts.sourceRecords, 50);
  });

  test("a range that ends before the source: what the target holds after the copy of the source's last record is not judged", () => {
    const c = new PartitionComparison({ progress: Infinity, rangeEnd: 50, leadingSkip: 0, capacity: 1024 });
    for (let s = 0; s < 80; s++) c.addSource(s, ...d(s));
    c.endSource();
    const target = [...range(0, 80), 9_000_001, 9_000_002];
    let read = 0;
    for (const t of target) {
      if (c.pastRange()) break;
      c.addTarget(read++, ...d(t));
    }
    assert.equal(read, 80, 'the target is left after the copy of the last source record');
    assert.deepEqual(pick(c.finish()), { matched: 50, missing: 0, duplicates: 0, unexpected: 0, behind: 0 });
  });

  test('records of identical content: each copy matches one, the extra one is a duplicate', () => {
    const c = compare({ source: [1, 1, 1, 2], target: [1, 1, 1, 1, 2] });
    assert.deepEqual(pick(c), { matched: 4, missing: 0, duplicates: 1, unexpected: 0, behind: 0 });
    const fewer = compare({ source: [1, 1, 1, 2], target: [1, 2] });
    assert.deepEqual(pick(fewer), { matched: 2, missing: 2, duplicates: 0, unexpected: 0, behind: 0 });
  });

  test('bounded: a ring of 64 compares 200,000 records with the same result as an unbounded one, table deletions included', () => {
    // Few distinct contents force long chains, probing and back-shifted deletions.
    const source = range(0, 200_000).map((n) => n % 97);
    const target = [...source.slice(0, 150_000), ...source.slice(149_990, 200_000)];
    const small = compare({ source, target, bounds: { capacity: 64 } });
    const large = compare({ source, target, bounds: { capacity: 1 << 18 } });
    assert.deepEqual(pick(small), pick(large));
    assert.deepEqual(pick(large), { matched: 200_000, missing: 0, duplicates: 10, unexpected: 0, behind: 0 });
  });

  test('against a plain reference on random damage: missing, duplicates and unexpected agree', () => {
    let seed = 42;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let round = 0; round < 30; round++) {
      const n = 500 + Math.floor(random() * 1500);
      const source = range(0, n).map((i) => (random() < 0.1 ? i % 7 : 1000 + i));
      const target: number[] = [];
      const start = Math.floor(random() * 50);
      for (let i = start; i < n; i++) {
        if (random() < 0.02) continue;
        target.push(source[i]!);
        if (random() < 0.01) target.push(...source.slice(Math.max(0, i - 20), i + 1));
        if (random() < 0.01) target.push(5_000_000 + i);
      }
      assert.deepEqual(pick(compare({ source, target, bounds: { capacity: 4096 } })), reference(source, target), `round ${round}`);
    }
  });
});

/** The same rule without bounds: each target record takes the earliest unmatched source record of its content. */
function reference(source: readonly number[], target: readonly number[]) {
  const matched = new Array<boolean>(source.length).fill(false);
  let duplicates = 0;
  let unexpected = 0;
  for (const t of target) {
    const i = source.findIndex((s, k) => s === t && !matched[k]);
    if (i >= 0) matched[i] = true;
    else if (source.includes(t)) duplicates++;
    else unexpected++;
  }
  const found = matched.filter(Boolean).length;
  return { matched: found, missing: source.length - found, duplicates, unexpected, behind: 0 };
}
