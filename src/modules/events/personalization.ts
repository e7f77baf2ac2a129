import { LRUCache } from 'lru-cache';
import type { StorageHandle } from '../../storage/database.js';
import type { CatalogListing } from '../products/product-cards.js';
import type { AttributeColumns } from '../../catalog/attribute-columns.js';
import { resolveColour } from '../../catalog/vocabulary/colours.js';
import { EVENT_COUNTER, TREND_WEIGHTS } from './signals.js';
import * as repo from './events.repository.js';

/** A shopper's taste reads their latest this many product events. */
export const TASTE_EVENTS = 500;
/** A taste is re-read at most this often per shopper and process (at once after their own events here). */
const TASTE_FRESH_MS = 5000;
/** Tastes kept per process (least recently used out). */
const TASTES_KEPT = 20_000;

/** What a taste is made of: the category, colour family, brand and price band of what they looked at. */
const DIMENSIONS = ['category', 'colour', 'brand', 'price'] as const;
type Dimension = (typeof DIMENSIONS)[number];

/** A product event's weight in a taste: its weight in the trend. */
const weightOf = (type: string): number => {
  const counter = EVENT_COUNTER[type as keyof typeof EVENT_COUNTER];
  return counter ? TREND_WEIGHTS[counter] : 0;
};

/**
 * A shopper's affinity to a product, 0..1: per dimension the share of their weighted, time-decayed
 * events on the product's value (its category, colour family, brand, price band), averaged over the
 * dimensions their events have, then divided by the best any product could score (their favourite
 * value in every dimension). Built from their own events only; an erased shopper has none.
 */
export class ShopperTaste {
  readonly #affinities = new WeakMap<object, (row: number) => number>();
  readonly #byCode = new WeakMap<object, { affinity: (code: string) => number }>();

  constructor(
    /** Per dimension, each value's share of the shopper's weight (the shares of a dimension sum to 1). */
    readonly shares: ReadonlyMap<Dimension, ReadonlyMap<string, number>>,
  ) {}

  /** The affinity of each row of a listing (0 for a product with none of the shopper's values). */
  affinity(listing: CatalogListing): (row: number) => number {
    let found = this.#affinities.get(listing.snapshot);
    if (!found) this.#affinities.set(listing.snapshot, (found = this.#compile(listing)));
    return found;
  }

  /** The same by product code (0 for a code not listed); one object per listing version. */
  byCode(listing: CatalogListing): { affinity: (code: string) => number } {
    let found = this.#byCode.get(listing.snapshot);
    if (!found) {
      const affinity = this.affinity(listing);
      const { rowOf, rows } = listing;
      found = {
        affinity: (code) => {
          const row = rowOf.get(code);
          return row === undefined || !rows.live[row] ? 0 : affinity(row);
        },
      };
      this.#byCode.set(listing.snapshot, found);
    }
    return found;
  }

  #compile(listing: CatalogListing): (row: number) => number {
    const dims = [...this.shares].filter(([, shares]) => shares.size > 0);
    let best = 0;
    for (const [, shares] of dims) best += Math.max(...shares.values());
    if (best === 0) return () => 0;
    const readers = dims.map(([dimension, shares]) => {
      const value = traitReader(listing, dimension);
      return (row: number) => shares.get(value(row)) ?? 0;
    });
    return (row) => {
      let sum = 0;
      for (const read of readers) sum += read(row);
      return sum / best;
    };
  }
}

/** A product's value in a dimension, by listing row ('' when it has none). */
function traitReader(listing: CatalogListing, dimension: Dimension): (row: number) => string {
  const { columns, rows } = listing;
  if (dimension === 'price') return (row) => priceBand(rows.price[row]);
  const column = columns.column(dimension === 'category' ? 'Category' : dimension === 'brand' ? 'Brand' : 'Colour');
  if (!column) return () => '';
  if (dimension !== 'colour') return (row) => columns.value(column[row]);
  const families = colourFamilies(columns);
  return (row) => {
    const id = column[row];
    let family = families.get(id);
    if (family === undefined) {
      const label = columns.value(id);
      families.set(id, (family = label === '' ? '' : resolveColour(label).family || label));
    }
    return family;
  };
}

/** Colour label ids to families, per attribute dictionary (an id keeps its value for the dictionary's life). */
const familiesByColumns = new WeakMap<AttributeColumns, Map<number, string>>();
function colourFamilies(columns: AttributeColumns): Map<number, string> {
  let found = familiesByColumns.get(columns);
  if (!found) familiesByColumns.set(columns, (found = new Map()));
  return found;
}

/** Half-octave price bands (…, 20–28, 28–40, 40–57, …): neighbours in price share a band. */
function priceBand(price: number): string {
  return Number.isFinite(price) && price > 0 ? String(Math.floor(Math.log2(price) * 2)) : '';
}

/** The shopper's taste from their product events (newest first), against the listing they are read with. */
export function tasteOf(
  events: Array<{ type: string; product_code: string | null; occurred_at: string }>,
  listing: CatalogListing,
  halfLifeHours: number,
  now: number,
): ShopperTaste | undefined {
  const weights = new Map<Dimension, Map<string, number>>(DIMENSIONS.map((d) => [d, new Map()]));
  const readers = DIMENSIONS.map((d) => [d, traitReader(listing, d)] as const);
  let any = false;
  for (const event of events) {
    const row = event.product_code === null ? undefined : listing.rowOf.get(event.product_code);
    if (row === undefined || !listing.rows.live[row]) continue;
    const ageHours = Math.max(0, (now - Date.parse(event.occurred_at)) / 3_600_000);
    const weight = weightOf(event.type) * 2 ** (-ageHours / halfLifeHours);
    if (weight <= 0) continue;
    for (const [dimension, read] of readers) {
      const value = read(row);
      if (value === '') continue;
      const byValue = weights.get(dimension)!;
      byValue.set(value, (byValue.get(value) ?? 0) + weight);
      any = true;
    }
  }
  if (!any) return undefined;
  const shares = new Map<Dimension, Map<string, number>>();
  for (const [dimension, byValue] of weights) {
    let total = 0;
    for (const weight of byValue.values()) total += weight;
    shares.set(dimension, new Map([...byValue].map(([value, weight]) => [value, weight / total])));
  }
  return new ShopperTaste(shares);
}

/**
 * Shoppers' tastes, read from their latest events and kept a few seconds per process (forgotten at
 * once when they send events here): a shopper paging through a collection reads it once.
 */
export class ShopperTastes {
  readonly #kept = new LRUCache<string, { value: Promise<ShopperTaste | undefined> }>({
    max: TASTES_KEPT,
    ttl: TASTE_FRESH_MS,
  });

  constructor(private readonly deps: { storage: StorageHandle; halfLifeHours: number }) {}

  /** The taste of the shopper whose hash is `shopperHash`, against `listing`; undefined without events. */
  of(storeId: string, shopperHash: string, listing: CatalogListing): Promise<ShopperTaste | undefined> {
    const key = `${storeId}\u0000${shopperHash}`;
    const kept = this.#kept.get(key);
    if (kept) return kept.value;
    const value = repo
      .latestProductEventsOf(this.deps.storage.db, storeId, shopperHash, TASTE_EVENTS)
      .then((events) => tasteOf(events, listing, this.deps.halfLifeHours, Date.now()));
    this.#kept.set(key, { value });
    value.catch(() => this.#kept.delete(key));
    return value;
  }

  forget(storeId: string, shopperHashes: Iterable<string>) {
    for (const hash of shopperHashes) this.#kept.delete(`${storeId}\u0000${hash}`);
  }
}
