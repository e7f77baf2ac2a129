const MAX_ENTRIES = 10_000;

/** The store as a request read it: its id and its change sequence at that moment. */
export interface StoreAtSeq {
  id: string;
  changeSeq: number;
}

/**
 * Caches per-store aggregates (totals, group counts) for as long as the store's change sequence has
 * not moved. Every catalog write bumps the sequence in its transaction, so a cached value is never
 * stale, on this process or another sharing the database. The sequence is the one read with the
 * store at the start of the request (with its token), so a cache hit costs no query at all.
 */
export class SeqCache {
  readonly #entries = new Map<string, { seq: number; value: Promise<unknown> }>();

  /**
   * Requests that miss together share one computation (the promise is kept at once): under load,
   * every request arriving while an aggregate over millions of rows is computed would otherwise
   * compute it too. A computation that fails is forgotten, so the next request tries again.
   */
  get<T>(store: StoreAtSeq, key: string, compute: () => Promise<T>): Promise<T> {
    const id = `${store.id}\u0000${key}`;
    // The sequence was read before computing: a value is never newer-labelled than what it counted.
    const seq = store.changeSeq;
    const cached = this.#entries.get(id);
    if (cached && cached.seq === seq) return cached.value as Promise<T>;
    const value = compute();
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(id, { seq, value });
    value.catch(() => {
      if (this.#entries.get(id)?.value === value) this.#entries.delete(id);
    });
    return value;
  }
}
