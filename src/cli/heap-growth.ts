/**
 * How far V8 lets the heap grow past what it keeps, for a process that fetches thousands of
 * partitions (issue 42 item 6).
 *
 * After each full collection V8 lets its old generation grow by a factor of what the collection
 * kept before it collects again: up to 4 where the heap may reach 2 GiB or more (a host with
 * 8 GiB of memory or more, by Node's default limit), less on smaller heaps (V8's
 * MemoryController). A process serving 19,000 partitions keeps about 100 MiB, and at its
 * catch-up, when every partition's records arrive at once, its heap reached 260–320 MiB before
 * V8 collected: peaks of 500–620 MiB of RSS for a live set of 100 (`--trace-gc`: 259.7 → 90.4
 * and 318.0 → 106.9 MB). Holding the factor at 2 (V8's `--heap-growing-percent=100`) kept such
 * runs at 397–412 MiB. Held for every process it cost 18 % more CPU per record where records
 * stream through few partitions, whose live set is small and whose full collections it made
 * twice as frequent; so it is held only while the process's flows fetch at least
 * `MANY_PARTITIONS` source partitions, and V8 decides again below that.
 *
 * V8 reads the flag at every full collection (`v8.setFlagsFromString` changes it while running;
 * it only ever weighs when the next collection starts). It is left alone where the operator set
 * it (a node flag or `NODE_OPTIONS`), and where V8's own factor is at most 2 already (a heap limit
 * under 2 GiB, as in a container with a memory limit).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** Source partitions of one process from which the heap's growth is held. */
export const MANY_PARTITIONS = 2000;

/** V8's heap limit from which its own growing factor can exceed 2 (MemoryController's largest heap class). */
export const LARGE_HEAP_BYTES = 2 * 1024 ** 3;

const HELD = '--heap-growing-percent=100';
/** 0: V8's own factor again. */
const RELEASED = '--heap-growing-percent=0';

/** True when the process was started with its own `--heap-growing-percent` (node flag or NODE_OPTIONS). */
export function operatorSetsHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
}

export interface HeapGrowthOptions {
  readonly setFlags?: (flags: string) => void;
  readonly heapLimitBytes?: number;
  readonly operatorSet?: boolean;
}

/** Holds V8's heap growth at 2 while the process fetches many partitions (see above). */
export class HeapGrowth {
  private held = false;
  private readonly setFlags: (flags: string) => void;
  /** Whether this process may hold the factor at all. */
  readonly applies: boolean;

  constructor(options: HeapGrowthOptions = {}) {
    this.setFlags = options.setFlags ?? setFlagsFromString;
    const limit = options.heapLimitBytes ?? getHeapStatistics().heap_size_limit;
    this.applies = !(options.operatorSet ?? operatorSetsHeapGrowth()) && limit >= LARGE_HEAP_BYTES;
  }

  /** Follows the source partitions the process's flows fetch now; true while the factor is held. */
  follow(partitions: number): boolean {
    const hold = this.applies && partitions >= MANY_PARTITIONS;
    if (hold !== this.held) {
      this.setFlags(hold ? HELD : RELEASED);
      this.held = hold;
    }
    return this.held;
  }

  /** V8's own factor again (the run ended). */
  release(): void {
    this.follow(0);
  }
}
