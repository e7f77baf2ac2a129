import { BoundedCache } from './bounded-cache.js';
import { StoreGenerations, type StoreAtSeq } from './store-generations.js';

export type { StoreAtSeq };

interface Entry {
  seq: number;
  value: Promise<unknown>;
  bytes: number;
}

/**
 * What an entry is taken to weigh until its value is known, and a small aggregate's weight: its key,
 * the cache's entry, the entry object and its promise.
 */
const SMALL_VALUE_BYTES = 300;

/**
 * Caches per-store results (totals, group counts, listing pages) for as long as the store's change
 * sequence has not moved. Every catalog write bumps the sequence in its transaction, so a cached value
 * is never stale, on this process or another sharing the database. The sequence is the one read with
 * the store at the start of the request (with its token), so a hit costs no query at all. Bounded by
 * estimated memory, least recently used first out; a budget of 0 caches nothing. When a store's
 * sequence moves, its entries of the older sequence are dropped at once: no request can use them, and
 * kept until the budget pushed them out they would fill it for as long as writes come.
 */
export class SeqCache {
  readonly #entries: BoundedCache<Entry> | undefined;
  /** Per store: the sequence its entries were computed at (older ones are dropped), and their ids. */
  readonly #generations = new StoreGenerations((id) => this.#entries?.delete(id));
  #hits = 0;
  #misses = 0;

  constructor(name = 'aggregates', maxBytes = 16 * 1024 * 1024) {
    this.#entries =
      maxBytes > 0
        ? new BoundedCache<Entry>(
            name,
            maxBytes,
            (entry, id) => id.length + entry.bytes,
            (id) => this.#generations.forget(id),
          )
        : undefined;
  }

  /**
   * Requests that miss together share one computation (the promise is kept at once): under load,
   * every request arriving while an aggregate over millions of rows is computed would otherwise
   * compute it too. A computation that fails is forgotten, so the next request tries again.
   * `sizeOf` estimates the value's memory once it is known (default: a small aggregate).
   */
  get<T>(store: StoreAtSeq, key: string, compute: () => Promise<T>, sizeOf?: (value: T) => number): Promise<T> {
    const entries = this.#entries;
    if (!entries) {
      this.#misses++;
      return compute();
    }
    const id = entryId(store, key);
    // The sequence was read before computing: a value is never newer-labelled than what it counted.
    const seq = store.changeSeq;
    const cached = entries.get(id);
    if (cached && cached.seq === seq) {
      this.#hits++;
      return cached.value as Promise<T>;
    }
    this.#misses++;
    const value = compute();
    // A request that read the store before its latest write keeps nothing: the newer entries stay.
    if (!this.#generations.keep(store, String(seq), id)) return value;
    entries.set(id, { seq, value, bytes: SMALL_VALUE_BYTES });
    value.then(
      (resolved) => {
        // Weighed again once the value is known (a new entry object: the cache re-weighs on set).
        if (sizeOf && entries.peek(id)?.value === value)
          entries.set(id, { seq, value, bytes: SMALL_VALUE_BYTES + sizeOf(resolved) });
      },
      () => {
        if (entries.peek(id)?.value === value) entries.delete(id);
      },
    );
    return value;
  }

  /** Whether a value (or its computation) is kept for the store as it is now. */
  has(store: StoreAtSeq, key: string): boolean {
    return this.#entries?.peek(entryId(store, key))?.seq === store.changeSeq;
  }

  /** Entries kept now (for tests). */
  get size() {
    return this.#entries?.stats().entries ?? 0;
  }

  /** Drops every entry (a closing process). */
  close() {
    this.#entries?.close();
    this.#generations.clear();
  }

  /** Lookups answered from the cache and computed, since start, and the memory held (for /metrics). */
  stats() {
    return { hits: this.#hits, misses: this.#misses, bytes: this.#entries?.stats().bytes ?? 0 };
  }
}

/** A store's entry under `key`, apart from every other store's. */
const entryId = (store: StoreAtSeq, key: string) => `${store.id}\u0000${key}`;
