import { sql } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { Trx } from '../../storage/transactions.js';
import { chunked } from '../../storage/chunks.js';
import type { ShopperEventsTable } from '../../storage/schema.js';

/** Inserts events; an event_id the store already has is left as it is. Returns the ids stored now. */
export async function insertEvents(db: Trx, rows: ShopperEventsTable[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (const chunk of chunked(db, rows, { paramsPerItem: 13, maxItems: 500 })) {
    const inserted = await db
      .insertInto('shopper_events')
      .values(chunk)
      .onConflict((oc) => oc.columns(['store_id', 'event_id']).doNothing())
      .returning('event_id')
      .execute();
    for (const row of inserted) stored.add(row.event_id);
  }
  return stored;
}

export interface DayCounts {
  productCode: string;
  day: string;
  views: number;
  clicks: number;
  carts: number;
  purchases: number;
}

/** Adds to (or, with negative counts, takes from) the per-product, per-day counters. */
export async function addToDays(db: Trx, storeId: string, counts: DayCounts[]) {
  for (const chunk of chunked(db, counts, { paramsPerItem: 7, maxItems: 500 })) {
    await db
      .insertInto('product_event_days')
      .values(
        chunk.map((c) => ({
          store_id: storeId,
          product_code: c.productCode,
          day: c.day,
          views: c.views,
          clicks: c.clicks,
          carts: c.carts,
          purchases: c.purchases,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['store_id', 'product_code', 'day']).doUpdateSet({
          views: sql`product_event_days.views + excluded.views`,
          clicks: sql`product_event_days.clicks + excluded.clicks`,
          carts: sql`product_event_days.carts + excluded.carts`,
          purchases: sql`product_event_days.purchases + excluded.purchases`,
        }),
      )
      .execute();
  }
}

/** A shopper's product events, for erasure. */
export function eventsOfShopper(db: Db, storeId: string, shopperHash: string) {
  return db
    .selectFrom('shopper_events')
    .select(['type', 'product_code', 'day'])
    .where('store_id', '=', storeId)
    .where('shopper_hash', '=', shopperHash)
    .execute();
}

export async function deleteEventsOfShopper(db: Db, storeId: string, shopperHash: string): Promise<number> {
  const result = await db
    .deleteFrom('shopper_events')
    .where('store_id', '=', storeId)
    .where('shopper_hash', '=', shopperHash)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Drops counters left at zero everywhere (after an erasure). */
export async function deleteEmptyDays(db: Db, storeId: string) {
  await db
    .deleteFrom('product_event_days')
    .where('store_id', '=', storeId)
    .where('views', '<=', 0)
    .where('clicks', '<=', 0)
    .where('carts', '<=', 0)
    .where('purchases', '<=', 0)
    .execute();
}

/** A product's counters over days, for reading signals (and tests). */
export function daysOf(db: Db, storeId: string, productCode: string) {
  return db
    .selectFrom('product_event_days')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('product_code', '=', productCode)
    .orderBy('day')
    .execute();
}

/** Every product's counters since `day` (inclusive), for the store's signals. */
export function daysSince(db: Db, storeId: string, day: string) {
  return db
    .selectFrom('product_event_days')
    .select(['product_code', 'day', 'views', 'clicks', 'carts', 'purchases'])
    .where('store_id', '=', storeId)
    .where('day', '>=', day)
    .execute();
}

/** Drops events and counters older than `day`, every store at once. */
export async function pruneBefore(db: Db, day: string): Promise<number> {
  const events = await db.deleteFrom('shopper_events').where('day', '<', day).executeTakeFirst();
  await db.deleteFrom('product_event_days').where('day', '<', day).execute();
  return Number(events.numDeletedRows);
}
