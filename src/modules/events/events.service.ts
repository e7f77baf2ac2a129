import { createHmac, randomUUID } from 'node:crypto';
import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import { PayloadTooLargeError } from '../../errors.js';
import { formatLimit, MAX_EVENT_AGE_DAYS, MAX_EVENTS_BATCH } from '../../catalog/limits.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { StoresService } from '../stores/stores.service.js';
import type { Store } from '../stores/store.js';
import { checkEvent, type EventFailure, type EventInput } from './event-input.js';
import * as repo from './events.repository.js';
import { EVENT_COUNTER, Signals } from './signals.js';
import { ShopperTastes, type ShopperTaste } from './personalization.js';
import type { CatalogListing } from '../products/product-cards.js';
import {
  periodOf,
  searchAnalytics,
  viewedNotBought,
  type ProductAnalytics,
  type SearchAnalytics,
} from './analytics.js';
import { HOUSEKEEPING_FIRST_RUN_MS, PollingWorker, type WorkerErrorLog } from '../../jobs/workers.js';

export interface EventsAnswer {
  accepted: number;
  duplicate: number;
  rejected: number;
  error_info: EventFailure[];
}

/** A pair of products counts for complete the look once this many baskets hold both. */
export const MIN_BASKET_SUPPORT = 2;
/** The most co-bought products read per source product. */
const MAX_BOUGHT_WITH = 100;

/**
 * Shopper events in (issue 41): each checked alone, deduplicated by the client's event_id (a retry
 * counts once), the shopper id kept only as a keyed hash, and product events folded into per-product,
 * per-day counters in the same transaction, so signals read counters, never raw events.
 */
export class EventsService {
  readonly pruner: PollingWorker;
  readonly signals: Signals;
  readonly #tastes: ShopperTastes;
  readonly #boughtWith = new WeakMap<object, Map<string, Promise<Array<{ code: string; support: number }>>>>();

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      products: ProductsReadPort;
      stores: StoresService;
      retentionDays: number;
      trendHalfLifeHours: number;
      signalsRefreshMs: number;
      onError?: WorkerErrorLog;
    },
  ) {
    this.signals = new Signals({
      storage: deps.storage,
      halfLifeHours: deps.trendHalfLifeHours,
      refreshMs: deps.signalsRefreshMs,
    });
    this.#tastes = new ShopperTastes({ storage: deps.storage, halfLifeHours: deps.trendHalfLifeHours });
    this.pruner = new PollingWorker('events.prune', 60 * 60_000, () => this.prune(), deps.onError, {
      firstRunAfterMs: HOUSEKEEPING_FIRST_RUN_MS,
    });
  }

  /** Drops events and counters older than the retention, every store at once. */
  async prune(now = new Date()): Promise<number> {
    const dayOf = (daysAgo: number) => new Date(now.getTime() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    return repo.pruneBefore(this.deps.storage.db, dayOf(this.deps.retentionDays), dayOf(MAX_EVENT_AGE_DAYS + 1));
  }

  /**
   * `sender`: the client's address, the actor of events that name neither a shopper nor a session
   * (the flood cap counts each actor once per product, day and event type).
   */
  async record(store: Store, body: unknown[], sender = '', now = new Date()): Promise<EventsAnswer> {
    if (body.length > MAX_EVENTS_BATCH)
      throw new PayloadTooLargeError(
        `at most ${formatLimit(MAX_EVENTS_BATCH)} events per request, got ${formatLimit(body.length)}`,
      );
    const failures: EventFailure[] = [];
    const events: EventInput[] = [];
    for (const [index, raw] of body.entries()) {
      const checked = checkEvent(raw, index, now);
      if (checked.ok) events.push(checked.event);
      else failures.push(checked.failure);
    }
    const codes = [...new Set(events.flatMap((e) => (e.productCode ? [e.productCode] : [])))];
    const known = await this.deps.products.existingCodes(store.id, codes);
    const valid = events.filter((event) => {
      if (!event.productCode || known.has(event.productCode)) return true;
      failures.push({
        index: event.index,
        event_id: event.eventId,
        reason: 'unknown_product',
        details: `product ${event.productCode} is not in the catalog`,
      });
      return false;
    });
    // The same event_id twice in one batch: the first counts, the next is a duplicate.
    const firsts = new Map<string, EventInput>();
    for (const event of valid) if (!firsts.has(event.eventId)) firsts.set(event.eventId, event);
    const key = valid.length > 0 ? await this.deps.stores.shopperKey(store.id) : '';
    let senderActor: string | undefined;
    const rows = [...firsts.values()].map((e) => {
      const shopper = e.shopperId ? shopperHash(key, e.shopperId) : null;
      return {
        row: {
          store_id: store.id,
          event_id: e.eventId,
          type: e.type,
          product_code: e.productCode,
          shopper_hash: shopper,
          session_id: e.sessionId,
          query: e.query,
          hits: e.hits,
          position: e.position,
          quantity: e.quantity,
          price: e.price,
          day: e.occurredAt.toISOString().slice(0, 10),
          occurred_at: e.occurredAt.toISOString(),
          counted: 0,
          basket: e.sessionId ?? shopper,
        },
        actor:
          shopper ?? (e.sessionId ? `session:${e.sessionId}` : (senderActor ??= `sender:${shopperHash(key, sender)}`)),
      };
    });
    const stored = await inTransaction(this.deps.storage, async (trx) => {
      // From scratch on each attempt: a transaction retried must not keep a rolled-back claim.
      for (const { row } of rows) row.counted = 0;
      // The flood cap: an actor's first event of a type for a product and day counts, the rest are
      // kept (analytics) without adding. A retried event finds its key taken, so it never counts twice.
      const firstOfActor = await repo.claimActorDays(
        trx,
        store.id,
        rows.flatMap(({ row, actor }) =>
          row.product_code ? [{ actor, productCode: row.product_code, day: row.day, type: row.type }] : [],
        ),
      );
      for (const { row, actor } of rows)
        if (row.product_code && firstOfActor.delete(repo.actorDayKey(actor, row.product_code, row.day, row.type)))
          row.counted = 1;
      const inserted = await repo.insertEvents(
        trx,
        rows.map(({ row }) => row),
      );
      await repo.addToDays(
        trx,
        store.id,
        dayCounts(
          rows.map(({ row }) => row).filter((row) => row.counted === 1 && inserted.has(row.event_id)),
          1,
        ),
      );
      return inserted;
    });
    // Signals show the events within VITRINE_SIGNALS_REFRESH_MS, in this process as in the others.
    // Forgetting the store's read here, to show them at once, re-read every counter of the store after
    // each batch: under a steady stream of events the soak's 44k store served a fifth of its capacity.
    if (stored.size > 0) {
      this.#tastes.forget(store.id, new Set(rows.flatMap(({ row }) => (row.shopper_hash ? [row.shopper_hash] : []))));
    }
    return {
      accepted: stored.size,
      duplicate: valid.length - stored.size,
      rejected: failures.length,
      error_info: failures.sort((a, b) => a.index - b.index),
    };
  }

  /**
   * A search the server answered for an identified shopper or session, recorded as that shopper's
   * search event (so search analytics need no client code).
   */
  async recordSearch(store: Store, search: { query: string; hits: number; shopperId?: string; sessionId?: string }) {
    if (!search.shopperId && !search.sessionId) return;
    await this.record(store, [
      {
        event_id: `search-${randomUUID()}`,
        type: 'search',
        query: search.query,
        hits: search.hits,
        ...(search.shopperId ? { shopper_id: search.shopperId } : {}),
        ...(search.sessionId ? { session_id: search.sessionId } : {}),
      },
    ]);
  }

  /** What shoppers searched for over a period (default the last 7 days). */
  async searchAnalytics(store: Store, from?: string, to?: string): Promise<SearchAnalytics> {
    return searchAnalytics(this.deps.storage.db, store.id, periodOf(from, to));
  }

  /** The trending products now, and those most viewed over a period that nobody bought. */
  async productAnalytics(store: Store, from?: string, to?: string): Promise<ProductAnalytics> {
    const period = periodOf(from, to);
    const [signals, viewed] = await Promise.all([
      this.signals.of(store.id),
      viewedNotBought(this.deps.storage.db, store.id, period),
    ]);
    const trending: Array<{ product_code: string; trend: number }> = [];
    signals.forEach((s, product_code) => {
      if (s.trend > 0) trending.push({ product_code, trend: Math.round(s.trend * 1000) / 1000 });
    });
    trending.sort((a, b) => b.trend - a.trend || (a.product_code < b.product_code ? -1 : 1)).splice(50);
    return { ...period, trending, viewed_not_bought: viewed };
  }

  /**
   * A shopper's taste (personalization) against a listing: undefined when they have no product event
   * of a listed product (then nothing is personalised).
   */
  async tasteOf(store: Store, shopperId: string, listing: CatalogListing): Promise<ShopperTaste | undefined> {
    const hash = shopperHash(await this.deps.stores.shopperKey(store.id), shopperId);
    return this.#tastes.of(store.id, hash, listing);
  }

  /**
   * Products added to cart or bought in the same baskets (sessions, else shoppers) as `productCode`,
   * in at least MIN_BASKET_SUPPORT baskets, most baskets first. Asked of the database only when the
   * product has such events in its counters; kept while the store's signals read stands.
   */
  async boughtWith(store: Store, productCode: string): Promise<Array<{ code: string; support: number }>> {
    const signals = await this.signals.of(store.id);
    if (!signals.get(productCode)?.baskets) return [];
    let byProduct = this.#boughtWith.get(signals);
    if (!byProduct) this.#boughtWith.set(signals, (byProduct = new Map()));
    let found = byProduct.get(productCode);
    if (!found) {
      found = repo.boughtWith(this.deps.storage.db, store.id, productCode, MIN_BASKET_SUPPORT, MAX_BOUGHT_WITH);
      byProduct.set(productCode, found);
    }
    return found;
  }

  /** Erases a shopper (right to erasure): their events, and what they added to the counters. */
  async eraseShopper(store: Store, shopperId: string): Promise<{ erased_events: number }> {
    const hash = shopperHash(await this.deps.stores.shopperKey(store.id), shopperId);
    const erased = await inTransaction(this.deps.storage, async (trx) => {
      const rows = await repo.eventsOfShopper(trx, store.id, hash);
      await repo.addToDays(
        trx,
        store.id,
        dayCounts(
          rows.filter((row) => row.counted === 1),
          -1,
        ),
      );
      await repo.forgetActor(trx, store.id, hash);
      await repo.deleteEmptyDays(trx, store.id);
      return repo.deleteEventsOfShopper(trx, store.id, hash);
    });
    this.signals.forget(store.id);
    this.#tastes.forget(store.id, [hash]);
    return { erased_events: erased };
  }
}

/** A shopper id as stored: HMAC-SHA256 with the store's key, so ids are not readable nor comparable across stores. */
export function shopperHash(key: string, shopperId: string): string {
  return createHmac('sha256', key).update(shopperId).digest('base64url');
}

/** Product events summed per product and day, times `sign`. */
function dayCounts(
  rows: Array<{ type: string; product_code: string | null; day: string }>,
  sign: number,
): repo.DayCounts[] {
  const byKey = new Map<string, repo.DayCounts>();
  for (const row of rows) {
    const counter = EVENT_COUNTER[row.type as keyof typeof EVENT_COUNTER];
    if (!counter || !row.product_code) continue;
    const key = `${row.product_code}\u0000${row.day}`;
    let entry = byKey.get(key);
    if (!entry)
      byKey.set(
        key,
        (entry = { productCode: row.product_code, day: row.day, views: 0, clicks: 0, carts: 0, purchases: 0 }),
      );
    entry[counter] += sign;
  }
  // In key order: concurrent batches then lock shared rows in the same order and never deadlock.
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, counts]) => counts);
}
