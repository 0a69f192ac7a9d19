// A map that keeps the `limit` entries used last: the run traces the app holds (each can be megabytes with its
// prompt and candidates), so a long session of asking and browsing runs stays bounded.

export class Lru<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`an LRU needs room for at least one entry, not ${limit}`);
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const v = this.entries.get(key);
    if (v === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, v);
    return v;
  }

  /** Stores the value as the most recently used, dropping the least recently used beyond the limit. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
