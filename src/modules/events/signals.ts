import type { StorageHandle } from '../../storage/database.js';
import { readChangedRows, type StampCursor } from '../../storage/row-stamps.js';
import * as repo from './events.repository.js';

/** Which daily counter each product event type adds to. */
export const EVENT_COUNTER = { view: 'views', click: 'clicks', add_to_cart: 'carts', purchase: 'purchases' } as const;

/** Weights of the product events in the trend score: a purchase says most. */
export const TREND_WEIGHTS = { views: 1, clicks: 3, carts: 8, purchases: 20 } as const;
/** `popular` counts purchases over this many days. */
export const POPULAR_DAYS = 30;
/**
 * A re-read that finds no counter written since keeps the signals object of the last read for this
 * long (orders and pages kept per signals object stand); the decay moves a trend by 0.02 % a minute.
 */
const UNCHANGED_KEEP_MS = 60_000;
/**
 * Between full reads a process reads only the counters written since its last read (row stamps).
 * Rows deleted (retention, counters left at zero after an erasure) are no write to read, so every
 * few minutes the read is a full one.
 */
const FULL_READ_MS = 5 * 60_000;

type CounterRow = Awaited<ReturnType<typeof repo.daysSince>>[number];

/** What a process holds of a store's counters between reads. */
interface StoreCounters {
  cursor: StampCursor;
  fullAt: number;
  since: string;
  /** Per product, its counter rows by day. */
  byProduct: Map<string, Map<string, CounterRow>>;
  /** Per product, its signals: updated in place by reads that find a few products changed. */
  signals: Map<string, ProductSignals>;
  /** What the last read that changed something answered. */
  table: SignalTable;
  /** When every product's signals were last computed (their decay): those of products since changed are newer. */
  at: number;
}

interface DayWeights {
  decay: (day: string) => number;
  popularSince: string;
}

export interface ProductSignals {
  /** Σ weight × count × 2^(−age / half-life) over the days with events (age: hours since the day's middle). */
  trend: number;
  /** Purchases over the last POPULAR_DAYS days. */
  popular: number;
  /** Adds to cart and purchases over the days read (complete the look asks for baskets only then). */
  baskets: number;
}

/**
 * One read of a store's signals. Each read that finds something changed answers a new table (orders
 * and pages derived from signals are kept per table) over the one map the process keeps per store,
 * updated in place: a read copied to a new map 44k products' entries every second, the largest source
 * of memory the collector had to promote and sweep under a day of load (issue 45's soak, allocation
 * profile). A table of an earlier read may so show a later value: it is never older than its read.
 */
export class SignalTable {
  constructor(readonly values: ReadonlyMap<string, ProductSignals>) {}

  get(code: string): ProductSignals | undefined {
    return this.values.get(code);
  }

  /** Every product with signals (forEach: no entry array per product). */
  forEach(visit: (signals: ProductSignals, code: string) => void) {
    this.values.forEach(visit);
  }
}

const EMPTY = new SignalTable(new Map());

/**
 * Per-product signals read from the daily counters (never from raw events): the trend score and
 * purchases in 30 days. Kept per store for `refreshMs`; concurrent readers share one read, and a
 * re-read reads only the counters written since the last (issue 45: re-reading all of them each
 * second made every API process slower as the day's events grew).
 */
export class Signals {
  readonly #cache = new Map<string, { at: number; value: Promise<SignalTable> }>();
  readonly #counters = new Map<string, StoreCounters>();
  /** Per store, the read in progress: reads of one store run one after another. */
  readonly #reading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      halfLifeHours: number;
      /** A store's counters are re-read at most this often per process: events show within it. */
      refreshMs: number;
    },
  ) {}

  of(storeId: string, now = Date.now()): Promise<SignalTable> {
    const cached = this.#cache.get(storeId);
    if (cached && now - cached.at < this.deps.refreshMs) return cached.value;
    const previous = this.#reading.get(storeId) ?? Promise.resolve();
    const value = previous.then(
      () => this.#read(storeId, now),
      () => this.#read(storeId, now),
    );
    this.#reading.set(storeId, value);
    this.#cache.set(storeId, { at: now, value });
    value.catch(() => this.#cache.delete(storeId));
    return value;
  }

  /** Forgets a store's signals (after an erasure): the next read is a full one. */
  forget(storeId: string) {
    this.#cache.delete(storeId);
    this.#counters.delete(storeId);
  }

  async #read(storeId: string, now: number): Promise<SignalTable> {
    // Older days weigh less than 1/1000 of today after 10 half-lives: not worth reading.
    const horizonDays = Math.max(POPULAR_DAYS, Math.ceil((10 * this.deps.halfLifeHours) / 24));
    const since = new Date(now - horizonDays * 86_400_000).toISOString().slice(0, 10);
    const held = this.#counters.get(storeId);
    const full = !held || now - held.fullAt >= FULL_READ_MS;
    const { rows, cursor } = await readChangedRows(this.deps.storage, full ? undefined : held.cursor, (db, changed) =>
      repo.daysSince(db, storeId, since, changed),
    );
    const fresh = !full && held.since === since && now - held.at < UNCHANGED_KEEP_MS;
    if (fresh && rows.length === 0) {
      held.cursor = cursor;
      return held.table;
    }
    const counters: StoreCounters = full
      ? { cursor, fullAt: now, since, byProduct: new Map(), signals: new Map(), table: EMPTY, at: now }
      : Object.assign(held, { cursor, since });
    const changed = new Set<string>();
    for (const row of rows) {
      let days = counters.byProduct.get(row.product_code);
      if (!days) counters.byProduct.set(row.product_code, (days = new Map()));
      days.set(row.day, row);
      changed.add(row.product_code);
    }
    const weights = this.#daysAt(now);
    if (fresh) {
      // Only the products with new counts are computed again; the rest keep theirs.
      for (const code of changed) counters.signals.set(code, this.#signalOf(counters.byProduct.get(code)!, weights));
    } else {
      if (!full)
        for (const [code, days] of counters.byProduct) {
          for (const day of days.keys()) if (day < since) days.delete(day);
          if (days.size === 0) counters.byProduct.delete(code);
        }
      counters.signals = new Map();
      for (const [code, days] of counters.byProduct) counters.signals.set(code, this.#signalOf(days, weights));
      counters.at = now;
    }
    // A new table: orders kept per table are computed again.
    counters.table = new SignalTable(counters.signals);
    // A forget() during the read wins: what it read may predate the erasure.
    if (this.#counters.get(storeId) === held) this.#counters.set(storeId, counters);
    return counters.table;
  }

  /** How the days weigh at `now`: the decay of a day's counts (one date parse and power per day), and popular's first day. */
  #daysAt(now: number): DayWeights {
    const decays = new Map<string, number>();
    return {
      popularSince: new Date(now - POPULAR_DAYS * 86_400_000).toISOString().slice(0, 10),
      decay: (day) => {
        let decay = decays.get(day);
        if (decay === undefined) {
          const ageHours = Math.max(0, (now - Date.parse(`${day}T12:00:00Z`)) / 3_600_000);
          decays.set(day, (decay = 2 ** (-ageHours / this.deps.halfLifeHours)));
        }
        return decay;
      },
    };
  }

  #signalOf(days: Map<string, CounterRow>, { decay, popularSince }: DayWeights): ProductSignals {
    const signal = { trend: 0, popular: 0, baskets: 0 };
    for (const row of days.values()) {
      const weighted =
        TREND_WEIGHTS.views * Number(row.views) +
        TREND_WEIGHTS.clicks * Number(row.clicks) +
        TREND_WEIGHTS.carts * Number(row.carts) +
        TREND_WEIGHTS.purchases * Number(row.purchases);
      signal.trend += weighted * decay(row.day);
      if (row.day >= popularSince) signal.popular += Number(row.purchases);
      signal.baskets += Number(row.carts) + Number(row.purchases);
    }
    return signal;
  }
}
