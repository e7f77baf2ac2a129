import { sql, type Insertable } from 'kysely';
import type { Db } from '../../storage/database.js';
import { chunked } from '../../storage/chunks.js';
import { VISIBLE_STATUSES } from '../../catalog/statuses.js';
import type { ProductsTable } from '../../storage/schema.js';

export type ProductRow = Insertable<ProductsTable>;

export type LockedProductRow = Awaited<ReturnType<typeof lockProducts>>[number];

/** Rows for the given codes, locked for the rest of the transaction where the engine has row locks. */
export async function lockProducts(db: Db, storeId: string, codes: string[]) {
  const rows = [];
  for (const chunk of chunked(db, codes, { maxItems: 1000 })) {
    rows.push(
      ...(await db.dialect
        .lockRows(
          db
            .selectFrom('products')
            .select(['product_code', 'status', 'attributes', 'updated_at'])
            .where('store_id', '=', storeId)
            .where('product_code', 'in', chunk)
            .orderBy('product_code'),
        )
        .execute()),
    );
  }
  return rows;
}

/**
 * Inserts the rows of products that do not exist yet, leaving any code already stored alone (on
 * conflict nothing), and returns the codes this transaction created. A concurrent writer of the same
 * code waits on the primary key, then finds the row. The rows go in code order, as every writer
 * locks them, so two batches sharing new codes wait for each other instead of deadlocking.
 */
export async function insertNewProducts(db: Db, rows: ProductRow[]): Promise<Set<string>> {
  const created = new Set<string>();
  const ordered = [...rows].sort((a, b) =>
    a.product_code < b.product_code ? -1 : a.product_code > b.product_code ? 1 : 0,
  );
  for (const chunk of chunked(db, ordered, { paramsPerItem: 12 })) {
    const inserted = await db
      .insertInto('products')
      .values(chunk)
      .onConflict((oc) => oc.columns(['store_id', 'product_code']).doNothing())
      .returning('product_code')
      .execute();
    for (const row of inserted) created.add(row.product_code);
  }
  return created;
}

export async function deleteProducts(db: Db, storeId: string, codes: string[]) {
  for (const chunk of chunked(db, codes, { maxItems: 1000 })) {
    await db
      .deleteFrom('product_problems')
      .where('store_id', '=', storeId)
      .where('product_code', 'in', chunk)
      .execute();
    await db.deleteFrom('products').where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
  }
}

/** Writes full product rows, over the stored ones where they exist. */
export async function writeProducts(db: Db, rows: ProductRow[]) {
  for (const chunk of chunked(db, rows, { paramsPerItem: 12 })) await writeProductChunk(db, chunk);
}

async function writeProductChunk(db: Db, rows: ProductRow[]) {
  if (rows.length === 0) return;
  await db
    .insertInto('products')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['store_id', 'product_code']).doUpdateSet((eb) => ({
        parent_code: eb.ref('excluded.parent_code'),
        status: eb.ref('excluded.status'),
        title: eb.ref('excluded.title'),
        category: eb.ref('excluded.category'),
        department: eb.ref('excluded.department'),
        price: eb.ref('excluded.price'),
        currency: eb.ref('excluded.currency'),
        attributes: eb.ref('excluded.attributes'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

export async function replaceProblems(db: Db, storeId: string, problemsByCode: Map<string, readonly string[]>) {
  const codes = [...problemsByCode.keys()];
  for (const chunk of chunked(db, codes)) {
    await db
      .deleteFrom('product_problems')
      .where('store_id', '=', storeId)
      .where('product_code', 'in', chunk)
      .execute();
  }
  const rows = codes.flatMap((code) =>
    problemsByCode.get(code)!.map((reason) => ({ store_id: storeId, product_code: code, reason })),
  );
  for (const chunk of chunked(db, rows, { paramsPerItem: 3 }))
    await db.insertInto('product_problems').values(chunk).execute();
}

export async function recordSkuRejections(
  db: Db,
  row: { id: string; store_id: string; rejected_at: string; count: number },
) {
  await db.insertInto('sku_rejections').values(row).execute();
}

export function existingCodes(db: Db, storeId: string, codes: string[]) {
  return db.dialect
    .lockRows(
      db
        .selectFrom('products')
        .select(['product_code'])
        .where('store_id', '=', storeId)
        .where('product_code', 'in', codes)
        .orderBy('product_code'),
    )
    .execute();
}

export async function countProducts(db: Db, storeId: string, status?: string): Promise<number> {
  let query = db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('store_id', '=', storeId);
  if (status) query = query.where('status', '=', status);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

export function listStatuses(
  db: Db,
  storeId: string,
  page: { status?: string; offset: number; limit: number; after?: string; from?: string },
) {
  let query = db.selectFrom('products').select(['product_code', 'category', 'status']).where('store_id', '=', storeId);
  if (page.status) query = query.where('status', '=', page.status);
  if (page.after !== undefined) query = query.where('product_code', '>', page.after);
  if (page.from !== undefined) query = query.where('product_code', '>=', page.from);
  return query.orderBy('product_code').limit(page.limit).offset(page.offset).execute();
}

/**
 * The product codes at positions 0, every, 2·every, … of the status listing (all statuses, or one), in
 * one statement: each step skips `every` entries of the covering index from the previous code.
 */
export async function listStatusMarks(db: Db, storeId: string, status: string | undefined, every: number) {
  const withStatus = status === undefined ? sql`` : sql`AND status = ${status}`;
  const { rows } = await sql<{ code: string | null }>`
    WITH RECURSIVE marks(code) AS (
      SELECT min(product_code) FROM products WHERE store_id = ${storeId} ${withStatus}
      UNION ALL
      SELECT (
        SELECT product_code FROM products
        WHERE store_id = ${storeId} ${withStatus} AND product_code > marks.code
        ORDER BY product_code LIMIT 1 OFFSET ${every - 1}
      ) FROM marks WHERE marks.code IS NOT NULL
    )
    SELECT code FROM marks WHERE code IS NOT NULL`.execute(db);
  return rows.map((row) => row.code!);
}

export interface ProductFilter {
  status?: string;
  codes?: string[];
  /** A quality reason the product fails now. */
  reason?: string;
  /** Code prefix or title substring, any case. */
  text?: string;
}

/** LIKE pattern text with its wildcards taken literally (escaped with a backslash). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function filteredProducts(db: Db, storeId: string, filter: ProductFilter) {
  let query = db.selectFrom('products').where('store_id', '=', storeId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.codes) query = query.where('product_code', 'in', filter.codes);
  if (filter.reason) {
    // From the problems of that reason (its index), not a probe per product of the store: a reason
    // few products fail read every product row (245 ms at 1M products).
    const reason = filter.reason;
    query = query.where('products.product_code', 'in', (eb) =>
      eb
        .selectFrom('product_problems')
        .select('product_problems.product_code')
        .where('product_problems.store_id', '=', storeId)
        .where('product_problems.reason', '=', reason),
    );
  }
  if (filter.text) {
    const text = likeLiteral(filter.text);
    query = query.where((eb) =>
      eb.or([
        db.dialect.likeAnyCase('products.product_code', `${text}%`),
        db.dialect.likeAnyCase('products.title', `%${text}%`),
      ]),
    );
  }
  return query;
}

export async function countFilteredProducts(db: Db, storeId: string, filter: ProductFilter): Promise<number> {
  const row = await filteredProducts(db, storeId, filter)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function listProducts(
  db: Db,
  storeId: string,
  page: ProductFilter & { offset: number; limit: number; from?: string },
) {
  let query = filteredProducts(db, storeId, page);
  if (page.from !== undefined) query = query.where('product_code', '>=', page.from);
  const columns = ['product_code', 'status', 'attributes', 'created_at', 'updated_at'] as const;
  if (page.text === undefined)
    return query.select(columns).orderBy('product_code').limit(page.limit).offset(page.offset).execute();
  // A name filter finds its page's codes in the listing index (code, status, title) and reads only
  // their rows: a name few products have no longer reads every row of the store (1M: 389 ms).
  const codes = query.select('products.product_code').orderBy('product_code').limit(page.limit).offset(page.offset);
  return db
    .selectFrom('products')
    .select(columns)
    .where('store_id', '=', storeId)
    .where('product_code', 'in', codes)
    .orderBy('product_code')
    .execute();
}

/**
 * One chunk of the products a filter selects, code and attributes only, in product_code order after
 * `after` (keyset paging: a scan of the whole catalog holds one chunk at a time).
 */
export function scanAttributes(
  db: Db,
  storeId: string,
  filter: ProductFilter,
  after: string | undefined,
  limit: number,
) {
  let query = filteredProducts(db, storeId, filter).select(['product_code', 'attributes']);
  if (after !== undefined) query = query.where('product_code', '>', after);
  return query.orderBy('product_code').limit(limit).execute();
}

export function problemsFor(db: Db, storeId: string, codes: string[]) {
  if (codes.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_problems')
    .select(['product_code', 'reason'])
    .where('store_id', '=', storeId)
    .where('product_code', 'in', codes)
    .execute();
}

export function countProblemsByReason(db: Db, storeId: string) {
  return db
    .selectFrom('product_problems')
    .select(['reason', (eb) => eb.fn.countAll().as('n')])
    .where('store_id', '=', storeId)
    .groupBy('reason')
    .execute();
}

export async function countSkuRejectionsSince(db: Db, storeId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('sku_rejections')
    .select((eb) => eb.fn.sum<number>('count').as('n'))
    .where('store_id', '=', storeId)
    .where('rejected_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

// ---- the products read port's queries (see products.read-port.ts) ------------------------------

const RECORD_COLUMNS = ['product_code', 'status', 'parent_code', 'attributes', 'created_at'] as const;

/** Products by code, any status, in chunks the engine accepts. */
export async function findByCodes(db: Db, storeId: string, codes: readonly string[], visibleOnly: boolean) {
  const rows = [];
  for (const chunk of chunked(db, codes, { maxItems: 500 })) {
    let query = db
      .selectFrom('products')
      .select(RECORD_COLUMNS)
      .where('store_id', '=', storeId)
      .where('product_code', 'in', chunk);
    if (visibleOnly) query = query.where('status', 'in', [...VISIBLE_STATUSES]);
    rows.push(...(await query.execute()));
  }
  return rows;
}

/**
 * The codes among `codes` that are stored (visible ones only, or any status), no attributes read:
 * search filters every page of hits through this, events check their products with it.
 */
export async function findCodes(db: Db, storeId: string, codes: readonly string[], visibleOnly: boolean) {
  const found = new Set<string>();
  for (const chunk of chunked(db, codes, { maxItems: 500 })) {
    let query = db
      .selectFrom('products')
      .select('product_code')
      .where('store_id', '=', storeId)
      .where('product_code', 'in', chunk);
    if (visibleOnly) query = query.where('status', 'in', [...VISIBLE_STATUSES]);
    for (const row of await query.execute()) found.add(row.product_code);
  }
  return found;
}

/** One page of a store's products in product_code order, after `after`. */
export function pageByCode(db: Db, storeId: string, page: { after: string; limit: number; visibleOnly: boolean }) {
  let query = db
    .selectFrom('products')
    .select(RECORD_COLUMNS)
    .where('store_id', '=', storeId)
    .where('product_code', '>', page.after);
  if (page.visibleOnly) query = query.where('status', 'in', [...VISIBLE_STATUSES]);
  return query.orderBy('product_code').limit(page.limit).execute();
}

/** Visible products whose product_code (or parent_code) is exactly `value`. */
export function findVisibleByExactCode(db: Db, storeId: string, value: string, limit: number) {
  // One statement, two lookups rather than one OR, so each uses its index (the code's, the parent's).
  const lookup = (column: 'product_code' | 'parent_code') =>
    db
      .selectFrom('products')
      .select(['product_code', 'title'])
      .where('store_id', '=', storeId)
      .where(column, '=', value)
      .where('status', 'in', [...VISIBLE_STATUSES])
      .orderBy('product_code')
      .limit(limit);
  return db
    .selectFrom(lookup('product_code').as('by_code'))
    .selectAll()
    .unionAll(db.selectFrom(lookup('parent_code').as('by_parent')).selectAll())
    .execute();
}

/** Display fields of products by code. */
export async function findSummaries(db: Db, storeId: string, codes: readonly string[], visibleOnly: boolean) {
  const rows = [];
  for (const chunk of chunked(db, codes, { maxItems: 500 })) {
    let query = db
      .selectFrom('products')
      .select(['product_code', 'attributes'])
      .where('store_id', '=', storeId)
      .where('product_code', 'in', chunk);
    if (visibleOnly) query = query.where('status', 'in', [...VISIBLE_STATUSES]);
    rows.push(...(await query.execute()));
  }
  return rows;
}

/** Codes among `codes` that name a product or a parent code of the store. */
export async function findKnownParentCodes(db: Db, storeId: string, codes: readonly string[]) {
  const known = new Set<string>();
  for (const chunk of chunked(db, codes, { maxItems: 500 })) {
    const [own, parents] = await Promise.all([
      db
        .selectFrom('products')
        .select('product_code as code')
        .where('store_id', '=', storeId)
        .where('product_code', 'in', chunk)
        .execute(),
      db
        .selectFrom('products')
        .select('parent_code as code')
        .distinct()
        .where('store_id', '=', storeId)
        .where('parent_code', 'in', chunk)
        .execute(),
    ]);
    for (const row of [...own, ...parents]) if (row.code !== null) known.add(row.code);
  }
  return known;
}

/** One page of products for an export, in product_code order after `after`. */
export function pageForExport(db: Db, storeId: string, page: { after: string; status?: string; limit: number }) {
  let query = db
    .selectFrom('products')
    .select(['product_code', 'status', 'attributes'])
    .where('store_id', '=', storeId)
    .where('product_code', '>', page.after);
  if (page.status) query = query.where('status', '=', page.status);
  return query.orderBy('product_code').limit(page.limit).execute();
}
