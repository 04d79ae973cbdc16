/**
 * A map that holds at most `capacity` entries and, when full, forgets the one used least
 * recently (a `get` that finds an entry counts as a use). What the JSON envelope converter keeps
 * its read schemas in, as Connect's JsonConverter keeps its own in an LRU cache.
 */
export class LruCache<K, V> {
  /** In order of use, least recent first (a Map iterates in insertion order). */
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`an LRU cache holds at least one entry, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
