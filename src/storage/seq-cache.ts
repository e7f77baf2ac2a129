import type { ChangeFeed } from '../jobs/change-feed.js';

const MAX_ENTRIES = 10_000;

/**
 * Caches per-store aggregates (totals, group counts) for as long as the store's change sequence has
 * not moved. Every catalog write bumps the sequence in its transaction, so a cached value is never
 * stale, on this process or another sharing the database: it costs one primary-key read instead of
 * a scan.
 */
export class SeqCache {
  readonly #entries = new Map<string, { seq: number; value: unknown }>();

  constructor(private readonly changes: ChangeFeed) {}

  async get<T>(storeId: string, key: string, compute: () => Promise<T>): Promise<T> {
    const id = `${storeId}\u0000${key}`;
    // Read the sequence before computing: a value is never newer-labelled than what it counted.
    const seq = await this.changes.latest(storeId);
    const cached = this.#entries.get(id);
    if (cached && cached.seq === seq) return cached.value as T;
    const value = await compute();
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(id, { seq, value });
    return value;
  }
}
