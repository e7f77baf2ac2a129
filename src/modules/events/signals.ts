import type { StorageHandle } from '../../storage/database.js';
import * as repo from './events.repository.js';

/** Which daily counter each product event type adds to. */
export const EVENT_COUNTER = { view: 'views', click: 'clicks', add_to_cart: 'carts', purchase: 'purchases' } as const;

/** Weights of the product events in the trend score: a purchase says most. */
export const TREND_WEIGHTS = { views: 1, clicks: 3, carts: 8, purchases: 20 } as const;
/** `popular` counts purchases over this many days. */
export const POPULAR_DAYS = 30;
/**
 * A re-read that finds the counters as they were keeps the signals object of the last read for this
 * long (orders and pages kept per signals object stand); the decay moves a trend by 0.02 % a minute.
 */
const UNCHANGED_KEEP_MS = 60_000;

export interface ProductSignals {
  /** Σ weight × count × 2^(−age / half-life) over the days with events (age: hours since the day's middle). */
  trend: number;
  /** Purchases over the last POPULAR_DAYS days. */
  popular: number;
  /** Adds to cart and purchases over the days read (complete the look asks for baskets only then). */
  baskets: number;
}

/**
 * Per-product signals read from the daily counters (never from raw events): the trend score and
 * purchases in 30 days. Kept per store for a second; concurrent readers share one read.
 */
export class Signals {
  readonly #cache = new Map<string, { at: number; value: Promise<Map<string, ProductSignals>> }>();
  /** Per store, the last signals computed, when, and a fingerprint of the counters they were read from. */
  readonly #last = new Map<string, { at: number; fingerprint: string; signals: Map<string, ProductSignals> }>();

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      halfLifeHours: number;
      /** A store's counters are re-read at most this often per process: events show within it. */
      refreshMs: number;
    },
  ) {}

  of(storeId: string, now = Date.now()): Promise<Map<string, ProductSignals>> {
    const cached = this.#cache.get(storeId);
    if (cached && now - cached.at < this.deps.refreshMs) return cached.value;
    const value = this.#read(storeId, now);
    this.#cache.set(storeId, { at: now, value });
    value.catch(() => this.#cache.delete(storeId));
    return value;
  }

  /** Forgets a store's signals (after an erasure): the next read is fresh. */
  forget(storeId: string) {
    this.#cache.delete(storeId);
    this.#last.delete(storeId);
  }

  async #read(storeId: string, now: number): Promise<Map<string, ProductSignals>> {
    // Older days weigh less than 1/1000 of today after 10 half-lives: not worth reading.
    const horizonDays = Math.max(POPULAR_DAYS, Math.ceil((10 * this.deps.halfLifeHours) / 24));
    const since = new Date(now - horizonDays * 86_400_000).toISOString().slice(0, 10);
    const popularSince = new Date(now - POPULAR_DAYS * 86_400_000).toISOString().slice(0, 10);
    const rows = await repo.daysSince(this.deps.storage.db, storeId, since);
    const fingerprint = fingerprintOf(rows);
    const last = this.#last.get(storeId);
    if (last && last.fingerprint === fingerprint && now - last.at < UNCHANGED_KEEP_MS) return last.signals;
    const signals = new Map<string, ProductSignals>();
    for (const row of rows) {
      const ageHours = Math.max(0, (now - Date.parse(`${row.day}T12:00:00Z`)) / 3_600_000);
      const decay = 2 ** (-ageHours / this.deps.halfLifeHours);
      const weighted =
        TREND_WEIGHTS.views * Number(row.views) +
        TREND_WEIGHTS.clicks * Number(row.clicks) +
        TREND_WEIGHTS.carts * Number(row.carts) +
        TREND_WEIGHTS.purchases * Number(row.purchases);
      let entry = signals.get(row.product_code);
      if (!entry) signals.set(row.product_code, (entry = { trend: 0, popular: 0, baskets: 0 }));
      entry.trend += weighted * decay;
      if (row.day >= popularSince) entry.popular += Number(row.purchases);
      entry.baskets += Number(row.carts) + Number(row.purchases);
    }
    this.#last.set(storeId, { at: now, fingerprint, signals });
    return signals;
  }
}

/** The counters read, summed into two order-independent 32-bit hashes and a count. */
function fingerprintOf(
  rows: Array<{ product_code: string; day: string; views: number; clicks: number; carts: number; purchases: number }>,
): string {
  let a = 0;
  let b = 0;
  for (const row of rows) {
    let h = 0x811c9dc5;
    const text = `${row.product_code}\u0000${row.day}\u0000${row.views}\u0000${row.clicks}\u0000${row.carts}\u0000${row.purchases}`;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    a = (a + h) | 0;
    b = (b + (Math.imul(h, 0x5bd1e995) ^ (h >>> 13))) | 0;
  }
  return `${rows.length}:${a >>> 0}:${b >>> 0}`;
}
