import { setImmediate } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db, StorageHandle } from '../../storage/database.js';

const COLUMNS = ['product_code', 'status', 'attributes'] as const;
const ROWID_PAGE = 5_000;

/** Codes after `after` (exclusive) up to `upTo` (inclusive), in the database's order; either end open. */
export interface CodeRange {
  after?: string;
  upTo?: string;
}

export interface StoredProductRow {
  product_code: string;
  status: string;
  /** JSON text. */
  attributes: string;
}

/** The store's products a page at a time, and how their order relates to product_code order. */
export interface StoragePages {
  /** Whether the pages come in product_code order. */
  inCodeOrder: boolean;
  pages: AsyncGenerator<StoredProductRow[]>;
  /**
   * Where they do not (SQLite): once the pages are read, the products read (their place in the order
   * read) in product_code order, as the code index listed them when the read began.
   */
  codeOrder?: () => Int32Array;
}

/**
 * Every product of a store, a page at a time, in whichever order reads them fastest, and whether that
 * is product_code order. SQLite keeps a table's rows in rowid order, and a store's rows in code order
 * are a random seek each: 1M products took 5.4 s to read in code order, 1.3 s by rowid (the store's
 * rowids read from its code index, sorted, then fetched a page at a time). PostgreSQL pages in code order.
 */
export function pagesInStorageOrder(
  storage: StorageHandle,
  storeId: string,
  pageSize: number,
  range: CodeRange = {},
): StoragePages {
  const db = storage.db;
  if (storage.dialect.name !== 'sqlite')
    return { inCodeOrder: true, pages: pagesInCodeOrder(db, storeId, pageSize, range) };
  const listing = { inCodeOrder: [] as number[], read: [] as number[] };
  return {
    inCodeOrder: false,
    pages: pagesByRowid(db, storeId, pageSize, range, listing),
    codeOrder: () => readInCodeOrder(listing.read, listing.inCodeOrder),
  };
}

async function* pagesInCodeOrder(
  db: Db,
  storeId: string,
  pageSize: number,
  range: CodeRange,
): AsyncGenerator<StoredProductRow[]> {
  yield* keysetPages(range, pageSize, (after) =>
    inRange(db, storeId, range, after, pageSize).select(COLUMNS).execute(),
  );
}

/**
 * The store's products after `after` (within the range's upper end, the database comparing in its own
 * order), in code order, at most `limit`: the caller selects the columns.
 */
function inRange(db: Db, storeId: string, range: CodeRange, after: string, limit: number) {
  return db
    .selectFrom('products')
    .where('store_id', '=', storeId)
    .where('product_code', '>', after)
    .$if(range.upTo !== undefined, (query) => query.where('product_code', '<=', range.upTo!))
    .orderBy('product_code')
    .limit(limit);
}

/** Pages of `read(after)` in code order through the range, each after the last code of the one before. */
async function* keysetPages<Row extends { product_code: string }>(
  range: CodeRange,
  pageSize: number,
  read: (after: string) => Promise<Row[]>,
): AsyncGenerator<Row[]> {
  for (let after = range.after ?? ''; ;) {
    const rows = await read(after);
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1].product_code;
  }
}

/**
 * The products by rowid; `listing` gets the rowids in code order (as listed first) and those read, in
 * the order read: what `codeOrder` needs to place them in code order without their codes.
 */
async function* pagesByRowid(
  db: Db,
  storeId: string,
  pageSize: number,
  range: CodeRange,
  listing: { inCodeOrder: number[]; read: number[] },
): AsyncGenerator<StoredProductRow[]> {
  // The rowids from the code index, 5,000 at a time (1M in one statement held the process for 2 s).
  const ids = listing.inCodeOrder;
  const rowids = (after: string) =>
    inRange(db, storeId, range, after, ROWID_PAGE)
      .select([sql<number>`rowid`.as('id'), 'product_code'])
      .execute();
  for await (const rows of keysetPages(range, ROWID_PAGE, rowids)) {
    for (const row of rows) ids.push(Number(row.id));
    await setImmediate();
  }
  const sorted = Float64Array.from(ids).sort();
  for (let at = 0; at < sorted.length; at += pageSize) {
    const page = [...sorted.subarray(at, at + pageSize)];
    // By rowid alone: with the store's condition beside it, SQLite walked the store's code index for
    // each page (1M products: 220 s). The store is checked here instead (a rowid may have been reused).
    // A product deleted since its rowid was read is absent; one added since is not read (the index's
    // change log follow applies both).
    const rows = await db
      .selectFrom('products')
      // Whether the row is the store's, compared by the database: no string for each row's store id.
      .select([...COLUMNS, sql<number>`store_id = ${storeId}`.as('ours'), sql<number>`rowid`.as('id')])
      .where(sql`rowid`, 'in', page)
      .execute();
    const ours = rows.filter((row) => row.ours === 1);
    for (const row of ours) listing.read.push(Number(row.id));
    yield ours;
  }
}

/**
 * The products read (their index in `read`, the rowids in the order read), in the order of
 * `inCodeOrder` (the rowids as the code index listed them); one listed but not read is left out. One
 * sort and a binary search each, where a code → row map of a 1M store took a second and 40 MB.
 */
function readInCodeOrder(read: readonly number[], inCodeOrder: readonly number[]): Int32Array {
  const byRowid = Int32Array.from(read.keys()).sort((a, b) => read[a] - read[b]);
  const order = new Int32Array(read.length);
  let count = 0;
  for (const rowid of inCodeOrder) {
    let low = 0;
    let high = byRowid.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (read[byRowid[middle]] < rowid) low = middle + 1;
      else high = middle;
    }
    if (low < byRowid.length && read[byRowid[low]] === rowid) order[count++] = byRowid[low];
  }
  return order.slice(0, count);
}

/**
 * A store's product codes in the database's product_code order (the listing's order), from the code
 * index alone, a page at a time (1M codes in one statement held the process for about a second).
 */
export async function* codePagesInOrder(
  db: Db,
  storeId: string,
  pageSize: number,
  range: CodeRange = {},
): AsyncGenerator<string[]> {
  const codes = (after: string) => inRange(db, storeId, range, after, pageSize).select('product_code').execute();
  for await (const rows of keysetPages(range, pageSize, codes)) yield rows.map((row) => row.product_code);
}

/**
 * The store's codes cut into ranges of about `size` products each, in the database's code order: each
 * cut found `size` codes after the one before (one walk of the code index in all, a statement per cut).
 */
export async function codeRanges(db: Db, storeId: string, size: number): Promise<CodeRange[]> {
  const cuts: string[] = [];
  for (;;) {
    const cut = await db
      .selectFrom('products')
      .select('product_code')
      .where('store_id', '=', storeId)
      .$if(cuts.length > 0, (query) => query.where('product_code', '>', cuts[cuts.length - 1]))
      .orderBy('product_code')
      .limit(1)
      .offset(size - 1)
      .executeTakeFirst();
    if (cut === undefined) break;
    cuts.push(cut.product_code);
  }
  return [...cuts, undefined].map((upTo, k) => ({
    ...(k > 0 ? { after: cuts[k - 1] } : {}),
    ...(upTo ? { upTo } : {}),
  }));
}

/** The store's products counted up to `limit`: what a large store costs is bounded by the limit. */
export async function countProductsUpTo(db: Db, storeId: string, limit: number): Promise<number> {
  const some = db.selectFrom('products').select('product_code').where('store_id', '=', storeId);
  const counted = db.selectFrom(some.limit(limit).as('some')).select((eb) => eb.fn.countAll().as('n'));
  return Number((await counted.executeTakeFirstOrThrow()).n);
}
