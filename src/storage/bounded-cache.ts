import { LRUCache } from 'lru-cache';

export interface CacheStats {
  name: string;
  entries: number;
  bytes: number;
  maxBytes: number;
  evictions: number;
}

/**
 * A per-store in-memory index cache bounded by estimated memory (least recently used first out):
 * a process that serves many stores keeps the busiest ones and rebuilds the others on demand.
 * Sizes are estimates the owner gives (`sizeOf`, with the entry's key), re-read each time an entry is set again.
 */
/** Every open cache of this process, for /metrics (a closed one leaves). */
const open = new Set<BoundedCache<unknown>>();

/** The stats of every open cache of this process, summed by name. */
export function openCacheStats(): CacheStats[] {
  const byName = new Map<string, CacheStats>();
  for (const cache of open) {
    const stats = cache.stats();
    const sum = byName.get(stats.name);
    if (!sum) byName.set(stats.name, { ...stats });
    else {
      sum.entries += stats.entries;
      sum.bytes += stats.bytes;
      sum.maxBytes += stats.maxBytes;
      sum.evictions += stats.evictions;
    }
  }
  return [...byName.values()];
}

/**
 * Drops a store's entry from every cache of this process that is keyed by store (the per-store
 * indexes): another process serves the store again, and this copy would only hold memory.
 */
export function dropStoreEverywhere(storeId: string) {
  for (const cache of open) cache.delete(storeId);
}

export class BoundedCache<V> {
  // Values are wrapped afresh on each set: lru-cache re-weighs an entry only when its value object changes.
  readonly #cache: LRUCache<string, { value: V }>;
  #evictions = 0;

  constructor(
    readonly name: string,
    readonly maxBytes: number,
    sizeOf: (value: V, key: string) => number,
    onEvict: (key: string, value: V) => void = () => {},
  ) {
    this.#cache = new LRUCache<string, { value: V }>({
      maxSize: Math.max(1, maxBytes),
      // An entry larger than the whole budget counts as the whole budget: it is kept alone (the store
      // being served needs it) instead of being refused and rebuilt on every request.
      sizeCalculation: (entry, key) =>
        Math.min(Math.max(1, maxBytes), Math.max(1, Math.round(sizeOf(entry.value, key)))),
      dispose: (entry, key, reason) => {
        if (reason === 'evict') this.#evictions++;
        if (reason === 'evict' || reason === 'delete') onEvict(key, entry.value);
      },
    });
    open.add(this as BoundedCache<unknown>);
  }

  get(key: string): V | undefined {
    return this.#cache.get(key)?.value;
  }

  /** The entry without counting it as a use (a background pass must not keep cold entries warm). */
  peek(key: string): V | undefined {
    return this.#cache.peek(key)?.value;
  }

  set(key: string, value: V) {
    this.#cache.set(key, { value });
  }

  delete(key: string) {
    this.#cache.delete(key);
  }

  values(): V[] {
    return [...this.#cache.values()].map((entry) => entry.value);
  }

  stats(): CacheStats {
    return {
      name: this.name,
      entries: this.#cache.size,
      bytes: this.#cache.calculatedSize,
      maxBytes: this.maxBytes,
      evictions: this.#evictions,
    };
  }

  /** Forgets the cache (a closed container). */
  close() {
    this.#cache.clear();
    open.delete(this as BoundedCache<unknown>);
  }
}
