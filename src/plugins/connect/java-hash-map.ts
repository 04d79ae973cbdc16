/**
 * A string-keyed map that iterates in the order Java's `java.util.HashMap` (JDK 17) does, because
 * Connect's schemaless values are HashMaps and JsonConverter writes a map's fields in its
 * iteration order: by bucket (the key's `String.hashCode`, spread as HashMap spreads it, modulo
 * the table size), and in insertion order within a bucket. The table size follows HashMap's
 * growth (16, doubled past 0.75 full) and its constructors: `new HashMap<>()`,
 * `new HashMap<>(n)` and the copy constructor, which SMTs use to build their results.
 *
 * `createLinked` gives a LinkedHashMap instead, which iterates in insertion order.
 *
 * Not modelled: buckets of 8 or more keys in a table of 64 or more, which Java turns into trees
 * (another order within that bucket), and JDK 19+'s smaller copy-constructor tables.
 */
const MAXIMUM_CAPACITY = 1 << 30;

export class JavaHashMap<V = unknown> {
  private readonly entries = new Map<string, V>();
  /** 0 until the first put, as Java allocates the table lazily. */
  private capacity = 0;
  /** Before the table exists: the capacity it will have (0 = the default 16). */
  private threshold: number;

  private constructor(
    threshold: number,
    /** A `java.util.LinkedHashMap`: iterates in insertion order (Flatten builds one). */
    readonly linked = false,
  ) {
    this.threshold = threshold;
  }

  /** `new LinkedHashMap<>()`. */
  static createLinked<V>(): JavaHashMap<V> {
    return new JavaHashMap<V>(0, true);
  }

  /** `new HashMap<>()`. */
  static create<V>(): JavaHashMap<V> {
    return new JavaHashMap<V>(0);
  }

  /** `new HashMap<>(initialCapacity)`. */
  static withCapacity<V>(initialCapacity: number): JavaHashMap<V> {
    return new JavaHashMap<V>(tableSizeFor(initialCapacity));
  }

  /** `new HashMap<>(map)`: sized for the map, then filled in its iteration order. */
  static copyOf<V>(map: JavaHashMap<V>): JavaHashMap<V> {
    const copy = JavaHashMap.create<V>();
    const size = map.size;
    if (size > 0) {
      const t = Math.trunc(Math.fround(Math.fround(size / 0.75) + 1));
      if (t > copy.threshold) copy.threshold = tableSizeFor(t);
    }
    for (const [key, value] of map) copy.set(key, value);
    return copy;
  }

  /** A map filled from `[key, value]` pairs with `new HashMap<>()`. */
  static of<V>(pairs: Iterable<readonly [string, V]>): JavaHashMap<V> {
    const map = JavaHashMap.create<V>();
    for (const [key, value] of pairs) map.set(key, value);
    return map;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** `undefined` when absent (Java's `get` gives null for both; see `has`). */
  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): this {
    if (this.capacity === 0) this.resize();
    const isNew = !this.entries.has(key);
    this.entries.set(key, value);
    if (isNew && this.entries.size > this.threshold) this.resize();
    return this;
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Entries in HashMap's iteration order. */
  *[Symbol.iterator](): IterableIterator<[string, V]> {
    if (this.linked) {
      yield* this.entries;
      return;
    }
    const mask = this.capacity - 1;
    const buckets = new Map<number, [string, V][]>();
    for (const entry of this.entries) {
      const index = spread(javaStringHash(entry[0])) & mask;
      let bucket = buckets.get(index);
      if (bucket === undefined) buckets.set(index, (bucket = []));
      bucket.push(entry);
    }
    for (const index of [...buckets.keys()].sort((a, b) => a - b)) yield* buckets.get(index)!;
  }

  keys(): string[] {
    return [...this].map(([key]) => key);
  }

  /** HashMap.resize(): the first table, or twice the size. */
  private resize(): void {
    const oldCap = this.capacity;
    const oldThr = this.threshold;
    let newCap: number;
    let newThr = 0;
    if (oldCap > 0) {
      if (oldCap >= MAXIMUM_CAPACITY) {
        this.threshold = 2 ** 31 - 1;
        return;
      }
      newCap = oldCap * 2;
      if (newCap < MAXIMUM_CAPACITY && oldCap >= 16) newThr = oldThr * 2;
    } else if (oldThr > 0) {
      newCap = oldThr;
    } else {
      newCap = 16;
      newThr = 12;
    }
    if (newThr === 0) newThr = Math.trunc(Math.fround(newCap * 0.75));
    this.capacity = newCap;
    this.threshold = newThr;
  }
}

/** Java's `String.hashCode` over UTF-16 code units, as a 32-bit int. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

function spread(h: number): number {
  return h ^ (h >>> 16);
}

/** HashMap.tableSizeFor: the power of two at or above `cap` (1 for 0). */
function tableSizeFor(cap: number): number {
  if (cap <= 1) return 1;
  let n = 1;
  while (n < cap) n *= 2;
  return Math.min(n, MAXIMUM_CAPACITY);
}
