import type { Kysely } from 'kysely';

/**
 * The collections follower reads a product's memberships with their sort keys to write only what
 * changed (issue 18). With the sort key in the per-product index, that read is covered by it; without,
 * SQLite (no statistics) preferred the covering sort-order index and scanned every membership of the store.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('collection_members_product_idx').execute();
  await db.schema
    .createIndex('collection_members_product_idx')
    .on('collection_members')
    .columns(['store_id', 'product_code', 'collection_id', 'sort_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('collection_members_product_idx').execute();
  await db.schema
    .createIndex('collection_members_product_idx')
    .on('collection_members')
    .columns(['store_id', 'product_code'])
    .execute();
}
