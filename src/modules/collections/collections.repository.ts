import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import { chunked } from '../../storage/chunks.js';

export interface CollectionRow {
  parent_id: string | null;
  status: string;
  auto_refresh: number;
  is_static: number;
  document: string;
  updated_at: string;
}

export interface MemberRow {
  store_id: string;
  collection_id: string;
  product_code: string;
}

export interface SortKeyRow {
  store_id: string;
  sort_spec: string;
  product_code: string;
  sort_key: string;
}

export function listForWrite(db: Db, storeId: string) {
  return db.selectFrom('collections').select(['id', 'parent_id', 'document']).where('store_id', '=', storeId).execute();
}

/** Every collection of a store, oldest first (the listing order). */
export function listDocuments(db: Db, storeId: string) {
  return db
    .selectFrom('collections')
    .select(['id', 'document'])
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findCollection(db: Db, storeId: string, id: string) {
  return db
    .selectFrom('collections')
    .select(['id', 'parent_id'])
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function childrenOf(db: Db, storeId: string, id: string) {
  return db
    .selectFrom('collections')
    .select(['id', 'document'])
    .where('store_id', '=', storeId)
    .where('parent_id', '=', id)
    .execute();
}

export async function insertCollection(db: Db, storeId: string, id: string, row: CollectionRow, now: string) {
  await db
    .insertInto('collections')
    .values({ store_id: storeId, id, created_at: now, ...row })
    .execute();
}

export async function updateCollection(db: Db, storeId: string, id: string, row: Partial<CollectionRow>) {
  await db.updateTable('collections').set(row).where('store_id', '=', storeId).where('id', '=', id).execute();
}

export async function deleteCollection(db: Db, storeId: string, id: string) {
  await db.deleteFrom('collection_members').where('store_id', '=', storeId).where('collection_id', '=', id).execute();
  await db.deleteFrom('collections').where('store_id', '=', storeId).where('id', '=', id).execute();
}

export async function clearMembers(db: Db, storeId: string, collectionId: string) {
  await db
    .deleteFrom('collection_members')
    .where('store_id', '=', storeId)
    .where('collection_id', '=', collectionId)
    .execute();
}

export async function insertMembers(db: Db, rows: MemberRow[]) {
  for (const chunk of chunked(db, rows, { paramsPerItem: 3, maxItems: 1000 }))
    await db
      .insertInto('collection_members')
      .values(chunk)
      .onConflict((oc) => oc.columns(['store_id', 'collection_id', 'product_code']).doNothing())
      .execute();
}

/** The stored sort keys of the given products under one sort spec. */
export async function sortKeysOf(db: Db, storeId: string, spec: string, codes: readonly string[]) {
  const keys = new Map<string, string>();
  for (const chunk of chunked(db, codes, { maxItems: 500 })) {
    const rows = await db
      .selectFrom('collection_sort_keys')
      .select(['product_code', 'sort_key'])
      .where('store_id', '=', storeId)
      .where('sort_spec', '=', spec)
      .where('product_code', 'in', chunk)
      .execute();
    for (const row of rows) keys.set(row.product_code, row.sort_key);
  }
  return keys;
}

/** Writes sort keys (new ones, or a product's new key under a spec). */
export async function upsertSortKeys(db: Db, rows: SortKeyRow[]) {
  for (const chunk of chunked(db, rows, { paramsPerItem: 4, maxItems: 1000 }))
    await db
      .insertInto('collection_sort_keys')
      .values(chunk)
      .onConflict((oc) =>
        oc
          .columns(['store_id', 'sort_spec', 'product_code'])
          .doUpdateSet((eb) => ({ sort_key: eb.ref('excluded.sort_key') })),
      )
      .execute();
}

/** Forgets the sort keys of products that no longer exist. */
export async function deleteSortKeys(db: Db, storeId: string, codes: readonly string[]) {
  for (const chunk of chunked(db, codes, { maxItems: 500 }))
    await db
      .deleteFrom('collection_sort_keys')
      .where('store_id', '=', storeId)
      .where('product_code', 'in', chunk)
      .execute();
}

/** Rule collections that follow the catalog (autoRefresh, not static). */
export function liveRuleCollections(db: Db, storeId: string) {
  return db
    .selectFrom('collections')
    .select(['id', 'document'])
    .where('store_id', '=', storeId)
    .where('auto_refresh', '=', 1)
    .where('is_static', '=', 0)
    .execute();
}

/** Changes when a live rule collection is created, changed or deleted: what the compiled rules are cached by. */
export async function liveRulesSignature(db: Db, storeId: string): Promise<string> {
  const row = await db
    .selectFrom('collections')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.max('updated_at').as('at'),
      eb.fn.sum<number>(eb.fn('length', ['document'])).as('size'),
    ])
    .where('store_id', '=', storeId)
    .where('auto_refresh', '=', 1)
    .where('is_static', '=', 0)
    .executeTakeFirst();
  return `${Number(row?.n ?? 0)}|${row?.at ?? ''}|${Number(row?.size ?? 0)}`;
}

/** Every membership of the given products (what the follower diffs against). */
export async function membershipRowsOf(db: Db, storeId: string, codes: string[]): Promise<MemberRow[]> {
  const rows: MemberRow[] = [];
  for (const chunk of chunked(db, codes, { maxItems: 500 })) {
    rows.push(
      ...(await db
        .selectFrom('collection_members')
        .select(['store_id', 'collection_id', 'product_code'])
        .where('store_id', '=', storeId)
        .where('product_code', 'in', chunk)
        .execute()),
    );
  }
  return rows;
}

/**
 * Removes the given memberships, many products at once: one statement per chunk instead of one per
 * product (on PostgreSQL, one round trip where a price change moving 40 products took 40). The pairs
 * are matched as a row value against a VALUES list, which both engines look up through the primary key.
 */
export async function deleteMembershipRows(db: Db, storeId: string, rows: ReadonlyArray<MemberRow>) {
  for (const chunk of chunked(db, rows, { paramsPerItem: 2, maxItems: 1000 })) {
    const pairs = sql.join(chunk.map((row) => sql`(${row.collection_id}, ${row.product_code})`));
    await sql`delete from collection_members where store_id = ${storeId}
      and (collection_id, product_code) in (values ${pairs})`.execute(db);
  }
}

export async function hasCollections(db: Db, storeId: string): Promise<boolean> {
  return (
    (await db.selectFrom('collections').select('id').where('store_id', '=', storeId).limit(1).executeTakeFirst()) !==
    undefined
  );
}

/** Replaces a store's hidden codes (when its first collection is created). */
export async function resetVisibility(db: Db, storeId: string, hidden: string[]) {
  await db.deleteFrom('collection_hidden_products').where('store_id', '=', storeId).execute();
  await markVisibility(db, storeId, [], hidden);
}

/** Records which of the given codes are visible (new, active) and which are not (other statuses, deleted). */
export async function markVisibility(db: Db, storeId: string, visible: string[], hidden: string[]) {
  for (const chunk of chunked(db, visible, { maxItems: 500 })) {
    await db
      .deleteFrom('collection_hidden_products')
      .where('store_id', '=', storeId)
      .where('product_code', 'in', chunk)
      .execute();
  }
  for (const chunk of chunked(db, hidden, { paramsPerItem: 2, maxItems: 500 })) {
    await db
      .insertInto('collection_hidden_products')
      .values(chunk.map((product_code) => ({ store_id: storeId, product_code })))
      .onConflict((oc) => oc.columns(['store_id', 'product_code']).doNothing())
      .execute();
  }
}

/**
 * Whether any of the store's products is hidden. When none is, the member reads leave out their
 * hidden-product probe: PostgreSQL plans that probe against a vacuumed empty table as a nested loop
 * that scans the table once per membership (the counts of 2,000 collections over 2.1 million
 * memberships: 2.7 s, against 0.5 s with the hash anti-join it picks once the table has rows).
 */
async function anyHidden(db: Db, storeId: string): Promise<boolean> {
  const row = await db
    .selectFrom('collection_hidden_products')
    .select('product_code')
    .where('store_id', '=', storeId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function visibleMemberCounts(db: Db, storeId: string): Promise<Map<string, number>> {
  let query = db
    .selectFrom('collection_members')
    .select(['collection_id', (eb) => eb.fn.countAll().as('n')])
    .where('store_id', '=', storeId);
  if (await anyHidden(db, storeId)) query = query.where((eb) => eb.not(eb.exists(hiddenMember(eb))));
  const rows = await query.groupBy('collection_id').execute();
  return new Map(rows.map((row) => [row.collection_id, Number(row.n)]));
}

/** (collection, product) pairs for the given products. */
export async function membershipsOf(db: Db, storeId: string, codes: string[]) {
  const rows = [];
  for (const chunk of chunked(db, codes, { maxItems: 500 })) {
    rows.push(
      ...(await db
        .selectFrom('collection_members')
        .select(['collection_id', 'product_code'])
        .where('store_id', '=', storeId)
        .where('product_code', 'in', chunk)
        .execute()),
    );
  }
  return rows;
}

/**
 * A page of a collection's visible members in sort order (their shared keys under `spec`; by
 * product_code when the collection has no dynamic sort), leaving out `excluded` (its heroes).
 */
export async function pageOfVisibleMembers(
  db: Db,
  storeId: string,
  collectionId: string,
  spec: string,
  excluded: string[],
  page: { offset: number; limit: number },
) {
  let query = db
    .selectFrom('collection_members')
    .where('collection_members.store_id', '=', storeId)
    .where('collection_members.collection_id', '=', collectionId);
  if (await anyHidden(db, storeId)) query = query.where((eb) => eb.not(eb.exists(hiddenMember(eb))));
  if (excluded.length > 0) query = query.where('collection_members.product_code', 'not in', excluded);
  const ordered =
    spec === ''
      ? query.select('collection_members.product_code').orderBy('collection_members.product_code')
      : query
          .innerJoin('collection_sort_keys as k', (join) =>
            join
              .onRef('k.store_id', '=', 'collection_members.store_id')
              .on('k.sort_spec', '=', spec)
              .onRef('k.product_code', '=', 'collection_members.product_code'),
          )
          .select('collection_members.product_code')
          .orderBy('k.sort_key')
          .orderBy('collection_members.product_code');
  const rows = await ordered.limit(page.limit).offset(page.offset).execute();
  return rows.map((row) => row.product_code);
}

/** The probe that tells a membership's product is hidden (one primary-key lookup in a small table). */
function hiddenMember(eb: ExpressionBuilder<Database, 'collection_members'>) {
  return eb
    .selectFrom('collection_hidden_products as h')
    .select('h.product_code')
    .whereRef('h.store_id', '=', 'collection_members.store_id')
    .whereRef('h.product_code', '=', 'collection_members.product_code');
}
