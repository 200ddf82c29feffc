/**
 * A small least-recently-used map. Compiled JSONata expressions are cached by their text so that
 * the admin transform test and the inbox key expressions cannot grow memory without bound, while
 * the handful of configured expressions stay hot.
 */
export class LruCache<K, V> {
  readonly #capacity: number;
  // A Map iterates in insertion order: re-inserting on every hit keeps the oldest entry first.
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`An LRU cache needs a positive integer capacity, got ${capacity}`);
    }
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }
}
