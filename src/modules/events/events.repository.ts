import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { Trx } from '../../storage/transactions.js';
import { chunked } from '../../storage/chunks.js';
import { rowStamp } from '../../storage/row-stamps.js';
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
  if (counts.length === 0) return;
  const changed = await rowStamp(db, 'product_event_days', storeId);
  for (const chunk of chunked(db, counts, { paramsPerItem: 8, maxItems: 500 })) {
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
          changed,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['store_id', 'product_code', 'day']).doUpdateSet({
          changed: sql`excluded.changed`,
          views: sql`product_event_days.views + excluded.views`,
          clicks: sql`product_event_days.clicks + excluded.clicks`,
          carts: sql`product_event_days.carts + excluded.carts`,
          purchases: sql`product_event_days.purchases + excluded.purchases`,
        }),
      )
      .execute();
  }
}

export const actorDayKey = (actor: string, productCode: string, day: string, type: string) =>
  `${actor}\u0000${productCode}\u0000${day}\u0000${type}`;

/**
 * Claims each (actor, product, day, type) not claimed before: the keys returned (actorDayKey) are
 * the ones this call took, each once even when it comes several times.
 */
export async function claimActorDays(
  db: Trx,
  storeId: string,
  keys: Array<{ actor: string; productCode: string; day: string; type: string }>,
): Promise<Set<string>> {
  const unique = new Map(keys.map((k) => [actorDayKey(k.actor, k.productCode, k.day, k.type), k]));
  // In key order, as every writer takes them: concurrent claims never deadlock.
  const ordered = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, k]) => k);
  const claimed = new Set<string>();
  for (const chunk of chunked(db, ordered, { paramsPerItem: 5, maxItems: 500 })) {
    const rows = await db
      .insertInto('event_actor_days')
      .values(
        chunk.map((k) => ({
          store_id: storeId,
          actor: k.actor,
          product_code: k.productCode,
          day: k.day,
          type: k.type,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .returning(['actor', 'product_code', 'day', 'type'])
      .execute();
    for (const row of rows) claimed.add(actorDayKey(row.actor, row.product_code, row.day, row.type));
  }
  return claimed;
}

/** Complete the look reads at most this many of a product's latest baskets. */
const MAX_BASKETS_READ = 1000;

/**
 * Products added to cart or bought in the same baskets as `productCode` (its latest
 * MAX_BASKETS_READ), with the number of baskets holding both (at least `minSupport`), most first.
 * The event types are written as the partial indexes are (migration 0019), so both engines use them.
 */
export async function boughtWith(db: Db, storeId: string, productCode: string, minSupport: number, limit: number) {
  // Two indexed steps, not one self-join: on PostgreSQL with statistics taken before the first
  // events, the planner joined every cart event of the store to every other (5.6 s a call at 3,000
  // cart events, in the soak), and nothing bounded the join as baskets grew.
  const baskets = (
    await db
      .selectFrom('shopper_events')
      .select(['basket', sql<string>`max(occurred_at)`.as('latest')])
      .where('store_id', '=', storeId)
      .where('product_code', '=', productCode)
      .where(sql<boolean>`type in ('add_to_cart', 'purchase')`)
      .where('basket', 'is not', null)
      .groupBy('basket')
      .orderBy('latest', 'desc')
      .orderBy('basket')
      .limit(MAX_BASKETS_READ)
      .execute()
  ).map((row) => row.basket!);
  if (baskets.length < minSupport) return [];
  const rows = await db
    .selectFrom('shopper_events')
    .select(['product_code as code', sql<number>`count(distinct basket)`.as('support')])
    .where('store_id', '=', storeId)
    .where('basket', 'in', baskets)
    .where(sql<boolean>`type in ('add_to_cart', 'purchase')`)
    .where('product_code', '<>', productCode)
    .where('product_code', 'is not', null)
    .groupBy('product_code')
    .having(sql`count(distinct basket)`, '>=', minSupport)
    .orderBy('support', 'desc')
    .orderBy('product_code')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ code: row.code!, support: Number(row.support) }));
}

/** A shopper's latest product events, newest first: their taste. */
export function latestProductEventsOf(db: Db, storeId: string, shopperHash: string, limit: number) {
  return db
    .selectFrom('shopper_events')
    .select(['type', 'product_code', 'occurred_at'])
    .where('store_id', '=', storeId)
    .where('shopper_hash', '=', shopperHash)
    .where('product_code', 'is not', null)
    .orderBy('occurred_at', 'desc')
    .limit(limit)
    .execute();
}

/** Drops an actor's claims (after an erasure). */
export async function forgetActor(db: Db, storeId: string, actor: string) {
  await db.deleteFrom('event_actor_days').where('store_id', '=', storeId).where('actor', '=', actor).execute();
}

/** A shopper's product events, for erasure. */
export function eventsOfShopper(db: Db, storeId: string, shopperHash: string) {
  return db
    .selectFrom('shopper_events')
    .select(['type', 'product_code', 'day', 'counted'])
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
/** The counters of the days from `day` on, of the rows `changed` keeps (src/storage/row-stamps.ts). */
export function daysSince(db: Db, storeId: string, day: string, changed: RawBuilder<SqlBool>) {
  return db
    .selectFrom('product_event_days')
    .select(['product_code', 'day', 'views', 'clicks', 'carts', 'purchases', 'changed'])
    .where('store_id', '=', storeId)
    .where('day', '>=', day)
    .where(changed)
    .execute();
}

/**
 * Drops events and counters older than `day`, store by store (events are indexed by store and day),
 * and flood-cap claims older than `claimsDay` (no event that old is taken any more).
 */
export async function pruneBefore(db: Db, day: string, claimsDay: string): Promise<number> {
  let deleted = 0;
  for (const { id } of await db.selectFrom('stores').select('id').execute()) {
    const events = await db
      .deleteFrom('shopper_events')
      .where('store_id', '=', id)
      .where('day', '<', day)
      .executeTakeFirst();
    deleted += Number(events.numDeletedRows);
    await db.deleteFrom('product_event_days').where('store_id', '=', id).where('day', '<', day).execute();
  }
  await db.deleteFrom('event_actor_days').where('day', '<', claimsDay).execute();
  return deleted;
}
