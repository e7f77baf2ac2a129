import type { Insertable } from 'kysely';
import type { Executor, StorageDialect } from '../../storage/database.js';
import type { ProductsTable } from '../../storage/schema.js';

export type ProductRow = Insertable<ProductsTable>;

/** Rows for the given codes, locked for the rest of the transaction where the engine has row locks. */
export async function lockProducts(db: Executor, dialect: StorageDialect, storeId: string, codes: string[]) {
  const rows = [];
  for (let i = 0; i < codes.length; i += 1000) {
    rows.push(...await dialect.lockRows(
      db.selectFrom('products').select(['product_code', 'status', 'attributes'])
        .where('store_id', '=', storeId).where('product_code', 'in', codes.slice(i, i + 1000)).orderBy('product_code'),
    ).execute());
  }
  return rows;
}

/**
 * Claims codes that do not exist yet with a placeholder row, returning the codes this transaction
 * created. A concurrent writer of the same code waits on the unique key, then finds the row: so
 * inserted/updated counts stay exact and no code is ever stored twice.
 */
export async function claimNewCodes(db: Executor, dialect: StorageDialect, storeId: string, codes: string[], now: string): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (const chunk of chunksOf(codes, 12, dialect.maxParameters)) for (const code of await claimChunk(db, storeId, chunk, now)) claimed.add(code);
  return claimed;
}

async function claimChunk(db: Executor, storeId: string, codes: string[], now: string): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await db.insertInto('products')
    .values(codes.map((code) => ({
      store_id: storeId, product_code: code, parent_code: null, status: 'new', title: null, category: null, department: null,
      price: null, currency: null, attributes: '{}', created_at: now, updated_at: now,
    })))
    .onConflict((oc) => oc.columns(['store_id', 'product_code']).doNothing())
    .returning('product_code')
    .execute();
  return rows.map((row) => row.product_code);
}

export async function deleteProducts(db: Executor, storeId: string, codes: string[]) {
  for (let i = 0; i < codes.length; i += 1000) {
    const chunk = codes.slice(i, i + 1000);
    await db.deleteFrom('product_problems').where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
    await db.deleteFrom('products').where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
  }
}

/** Rows per multi-row statement, under the engine's bind-parameter limit. */
const chunksOf = <T>(rows: T[], columns: number, maxParameters: number) => {
  const size = Math.max(1, Math.floor(maxParameters / columns));
  return Array.from({ length: Math.ceil(rows.length / size) }, (_, i) => rows.slice(i * size, (i + 1) * size));
};

/** Writes full product rows over existing (or just-claimed) ones. */
export async function writeProducts(db: Executor, dialect: StorageDialect, rows: ProductRow[]) {
  for (const chunk of chunksOf(rows, 12, dialect.maxParameters)) await writeProductChunk(db, chunk);
}

async function writeProductChunk(db: Executor, rows: ProductRow[]) {
  if (rows.length === 0) return;
  await db.insertInto('products').values(rows)
    .onConflict((oc) => oc.columns(['store_id', 'product_code']).doUpdateSet((eb) => ({
      parent_code: eb.ref('excluded.parent_code'),
      status: eb.ref('excluded.status'),
      title: eb.ref('excluded.title'),
      category: eb.ref('excluded.category'),
      department: eb.ref('excluded.department'),
      price: eb.ref('excluded.price'),
      currency: eb.ref('excluded.currency'),
      attributes: eb.ref('excluded.attributes'),
      updated_at: eb.ref('excluded.updated_at'),
    })))
    .execute();
}

export async function replaceProblems(db: Executor, dialect: StorageDialect, storeId: string, problemsByCode: Map<string, readonly string[]>) {
  const codes = [...problemsByCode.keys()];
  for (const chunk of chunksOf(codes, 1, dialect.maxParameters - 1)) {
    await db.deleteFrom('product_problems').where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
  }
  const rows = codes.flatMap((code) => problemsByCode.get(code)!.map((reason) => ({ store_id: storeId, product_code: code, reason })));
  for (const chunk of chunksOf(rows, 3, dialect.maxParameters)) if (chunk.length > 0) await db.insertInto('product_problems').values(chunk).execute();
}

export async function recordSkuRejections(db: Executor, row: { id: string; store_id: string; rejected_at: string; count: number }) {
  await db.insertInto('sku_rejections').values(row).execute();
}

export function existingCodes(db: Executor, dialect: StorageDialect, storeId: string, codes: string[]) {
  return dialect.lockRows(
    db.selectFrom('products').select(['product_code']).where('store_id', '=', storeId).where('product_code', 'in', codes).orderBy('product_code'),
  ).execute();
}

export async function countProducts(db: Executor, storeId: string, status?: string): Promise<number> {
  let query = db.selectFrom('products').select((eb) => eb.fn.countAll().as('n')).where('store_id', '=', storeId);
  if (status) query = query.where('status', '=', status);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

export function listStatuses(db: Executor, storeId: string, page: { status?: string; offset: number; limit: number }) {
  let query = db.selectFrom('products').select(['product_code', 'category', 'status']).where('store_id', '=', storeId);
  if (page.status) query = query.where('status', '=', page.status);
  return query.orderBy('product_code').limit(page.limit).offset(page.offset).execute();
}

export function listProducts(db: Executor, storeId: string, page: { status?: string; codes?: string[]; offset: number; limit: number }) {
  let query = db.selectFrom('products').select(['product_code', 'status', 'attributes', 'created_at', 'updated_at']).where('store_id', '=', storeId);
  if (page.status) query = query.where('status', '=', page.status);
  if (page.codes) query = query.where('product_code', 'in', page.codes);
  return query.orderBy('product_code').limit(page.limit).offset(page.offset).execute();
}

export function problemsFor(db: Executor, storeId: string, codes: string[]) {
  if (codes.length === 0) return Promise.resolve([]);
  return db.selectFrom('product_problems').select(['product_code', 'reason']).where('store_id', '=', storeId).where('product_code', 'in', codes).execute();
}

export function countProblemsByReason(db: Executor, storeId: string) {
  return db.selectFrom('product_problems').select(['reason', (eb) => eb.fn.countAll().as('n')])
    .where('store_id', '=', storeId).groupBy('reason').execute();
}

export async function countSkuRejectionsSince(db: Executor, storeId: string, since: string): Promise<number> {
  const row = await db.selectFrom('sku_rejections').select((eb) => eb.fn.sum<number>('count').as('n'))
    .where('store_id', '=', storeId).where('rejected_at', '>=', since).executeTakeFirst();
  return Number(row?.n ?? 0);
}
