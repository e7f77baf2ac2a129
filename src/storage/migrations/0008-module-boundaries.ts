import { sql, type Kysely } from 'kysely';

/**
 * Module boundaries (issue 14):
 * - collection_hidden_products: the codes of a store that are not visible (hidden status, or deleted),
 *   kept by the collections follower from the change log, so collection queries no longer join the
 *   products table. A table of its own rather than a flag on every membership: a product write then
 *   touches one row here instead of each of its memberships;
 * - imports get a lease (claimed_by, claimed_until) like the image queue, so a crashed import is
 *   taken over when its lease lapses rather than after a fixed hour.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('collection_hidden_products')
    .addColumn('store_id', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('collection_hidden_products_pk', ['store_id', 'product_code'])
    .execute();
  await sql`INSERT INTO collection_hidden_products (store_id, product_code)
    SELECT store_id, product_code FROM products WHERE status NOT IN ('new', 'active')`.execute(db);
  await db.schema.alterTable('imports').addColumn('claimed_by', 'text').execute();
  await db.schema.alterTable('imports').addColumn('claimed_until', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('collection_hidden_products').ifExists().execute();
  await db.schema.alterTable('imports').dropColumn('claimed_by').execute();
  await db.schema.alterTable('imports').dropColumn('claimed_until').execute();
}
