import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { HeapGrowth, LARGE_HEAP_BYTES, MANY_PARTITIONS, operatorSetsHeapGrowth } from './heap-growth';

function growth(options: { heapLimitBytes?: number; operatorSet?: boolean } = {}) {
  const set: string[] = [];
  const heap = new HeapGrowth({ setFlags: (flags) => set.push(flags), heapLimitBytes: LARGE_HEAP_BYTES, operatorSet: false, ...options });
  return { heap, set };
}

describe("V8's heap growth, held while a process fetches many partitions", () => {
  it('holds the factor at 2 from MANY_PARTITIONS on, once, and gives it back to V8 below and at the end', () => {
    const { heap, set } = growth();
    assert.equal(heap.follow(0), false);
    assert.equal(heap.follow(MANY_PARTITIONS - 1), false);
    assert.deepEqual(set, [], 'nothing set for few partitions');
    assert.equal(heap.follow(MANY_PARTITIONS), true);
    assert.equal(heap.follow(19_000), true);
    assert.deepEqual(set, ['--heap-growing-percent=100'], 'set once while held');
    assert.equal(heap.follow(10), false);
    heap.follow(5000);
    heap.release();
    assert.deepEqual(set, ['--heap-growing-percent=100', '--heap-growing-percent=0', '--heap-growing-percent=100', '--heap-growing-percent=0']);
  });

  it("leaves V8 alone where the operator set the flag, or the heap is too small for V8's factor to pass 2", () => {
    for (const options of [{ operatorSet: true }, { heapLimitBytes: LARGE_HEAP_BYTES - 1 }]) {
      const { heap, set } = growth(options);
      assert.equal(heap.applies, false);
      assert.equal(heap.follow(19_000), false);
      heap.release();
      assert.deepEqual(set, []);
    }
  });

  it("finds the operator's own flag on node's command line or in NODE_OPTIONS, in either spelling", () => {
    assert.equal(operatorSetsHeapGrowth(['--heap-growing-percent=50'], ''), true);
    assert.equal(operatorSetsHeapGrowth([], '--max-old-space-size=512 --heap_growing_percent=30'), true);
    assert.equal(operatorSetsHeapGrowth(['--max-old-space-size=512'], '--enable-source-maps'), false);
  });

  it("names a flag this Node's V8 takes (node refuses an unknown one with 'bad option')", () => {
    const run = spawnSync(process.execPath, ['--heap-growing-percent=100', '-e', '0'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
  });
});
