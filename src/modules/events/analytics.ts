import { sql } from 'kysely';
import type { Db } from '../../storage/database.js';
import { InvalidInputError } from '../../errors.js';

/** A query's numbers over a period. */
export interface QueryStats {
  query: string;
  searches: number;
  clicks: number;
  click_through: number;
  conversions: number;
}

export interface SearchAnalytics {
  from: string;
  to: string;
  top_queries: QueryStats[];
  zero_result_queries: Array<{ query: string; searches: number }>;
  unclicked_queries: Array<{ query: string; searches: number }>;
}

/** Queries a list holds at most. */
const TOP = 50;
/** Searches a query needs before "nobody clicks it" says something. */
const UNCLICKED_MIN_SEARCHES = 3;

/** A period's bounds as days (YYYY-MM-DD, inclusive); default the last 7 days up to today. */
export function periodOf(
  from: string | undefined,
  to: string | undefined,
  now = new Date(),
): { from: string; to: string } {
  const day = (value: string | undefined, name: string, fallback: Date) => {
    if (value === undefined || value === '') return fallback.toISOString().slice(0, 10);
    const parsed = new Date(value);
    if (Number.isNaN(parsed.getTime()))
      throw new InvalidInputError(`query parameter '${name}' must be a date (YYYY-MM-DD)`, name);
    return parsed.toISOString().slice(0, 10);
  };
  const period = { from: day(from, 'from', new Date(now.getTime() - 6 * 86_400_000)), to: day(to, 'to', now) };
  if (period.from > period.to) throw new InvalidInputError("query parameter 'from' must not be after 'to'", 'from');
  return period;
}

/**
 * What shoppers searched for over a period (raw events; queries with case and spaces folded): the top queries with
 * their searches, clicks, click-through (the sessions, else shoppers, that clicked a result of the
 * query, over its searches: at most 1) and conversions (add to cart or purchase
 * events naming the query), the queries that found nothing, and those whose results nobody clicked.
 */
export async function searchAnalytics(
  db: Db,
  storeId: string,
  period: { from: string; to: string },
): Promise<SearchAnalytics> {
  const rows = await db
    .selectFrom('shopper_events')
    .select([
      sql<string>`query`.as('q'),
      'type',
      sql<number>`count(*)`.as('n'),
      // Who acted: the session, else the shopper; an event of neither is alone.
      sql<number>`count(distinct coalesce(basket, event_id))`.as('actors'),
      sql<number>`sum(case when hits = 0 then 1 else 0 end)`.as('zero'),
    ])
    .where('store_id', '=', storeId)
    .where('day', '>=', period.from)
    .where('day', '<=', period.to)
    .where('query', 'is not', null)
    .groupBy(['query', 'type'])
    .execute();
  const byQuery = new Map<
    string,
    { searches: number; zero: number; clicks: number; clickers: number; conversions: number }
  >();
  for (const row of rows) {
    // Queries as shoppers typed them, read alike: case and runs of spaces folded.
    const q = row.q.trim().toLowerCase().replace(/\s+/g, ' ');
    let entry = byQuery.get(q);
    if (!entry) byQuery.set(q, (entry = { searches: 0, zero: 0, clicks: 0, clickers: 0, conversions: 0 }));
    const n = Number(row.n);
    if (row.type === 'search') {
      entry.searches += n;
      entry.zero += Number(row.zero);
    } else if (row.type === 'click') {
      entry.clicks += n;
      entry.clickers += Number(row.actors);
    } else if (row.type === 'add_to_cart' || row.type === 'purchase') entry.conversions += n;
  }
  const all = [...byQuery].map(([q, e]) => ({ q, ...e }));
  const bySearches = (a: { searches: number; q: string }, b: { searches: number; q: string }) =>
    b.searches - a.searches || (a.q < b.q ? -1 : a.q > b.q ? 1 : 0);
  return {
    ...period,
    top_queries: all
      .filter((e) => e.searches > 0)
      .sort(bySearches)
      .slice(0, TOP)
      .map((e) => ({
        query: e.q,
        searches: e.searches,
        clicks: e.clicks,
        click_through: Math.round(Math.min(1, e.clickers / e.searches) * 1000) / 1000,
        conversions: e.conversions,
      })),
    zero_result_queries: all
      .filter((e) => e.zero > 0)
      .map((e) => ({ q: e.q, searches: e.zero }))
      .sort(bySearches)
      .slice(0, TOP)
      .map((e) => ({ query: e.q, searches: e.searches })),
    unclicked_queries: all
      .filter((e) => e.searches - e.zero >= UNCLICKED_MIN_SEARCHES && e.clicks === 0)
      .sort(bySearches)
      .slice(0, TOP)
      .map((e) => ({ query: e.q, searches: e.searches })),
  };
}

export interface ProductAnalytics {
  from: string;
  to: string;
  trending: Array<{ product_code: string; trend: number }>;
  viewed_not_bought: Array<{ product_code: string; views: number; clicks: number; carts: number }>;
}

/** The products most viewed over a period that nobody bought (the daily counters). */
export async function viewedNotBought(db: Db, storeId: string, period: { from: string; to: string }) {
  const rows = await db
    .selectFrom('product_event_days')
    .select([
      'product_code',
      sql<number>`sum(views)`.as('views'),
      sql<number>`sum(clicks)`.as('clicks'),
      sql<number>`sum(carts)`.as('carts'),
      sql<number>`sum(purchases)`.as('purchases'),
    ])
    .where('store_id', '=', storeId)
    .where('day', '>=', period.from)
    .where('day', '<=', period.to)
    .groupBy('product_code')
    .execute();
  return rows
    .filter((row) => Number(row.purchases) === 0 && Number(row.views) > 0)
    .map((row) => ({
      product_code: row.product_code,
      views: Number(row.views),
      clicks: Number(row.clicks),
      carts: Number(row.carts),
    }))
    .sort((a, b) => b.views - a.views || (a.product_code < b.product_code ? -1 : 1))
    .slice(0, TOP);
}
