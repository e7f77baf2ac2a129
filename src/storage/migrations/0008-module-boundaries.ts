import { sql, type Kysely } from 'kysely';

/**
 * Module boundaries (issue 14):
 * - collection_members.visible: collections keep their members' visibility themselves (from the
 *   change log), so their queries no longer join the products table. The member order index gains
 *   `visible` instead of a new index (member writes maintain no more indexes than before): it serves
 *   a collection's visible members in sort order and, index only, every collection's visible count;
 * - imports get a lease (claimed_by, claimed_until) like the image queue, so a crashed import is
 *   taken over when its lease lapses rather than after a fixed hour.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('collection_members')
    .addColumn('visible', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await sql`UPDATE collection_members SET visible = 0 WHERE NOT EXISTS (
    SELECT 1 FROM products p WHERE p.store_id = collection_members.store_id AND p.product_code = collection_members.product_code
      AND p.status IN ('new', 'active'))`.execute(db);
  await db.schema.dropIndex('collection_members_order_idx').execute();
  await db.schema
    .createIndex('collection_members_order_idx')
    .on('collection_members')
    .columns(['store_id', 'collection_id', 'visible', 'sort_key', 'product_code'])
    .execute();
  await db.schema.alterTable('imports').addColumn('claimed_by', 'text').execute();
  await db.schema.alterTable('imports').addColumn('claimed_until', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('collection_members_order_idx').execute();
  await db.schema
    .createIndex('collection_members_order_idx')
    .on('collection_members')
    .columns(['store_id', 'collection_id', 'sort_key', 'product_code'])
    .execute();
  await db.schema.alterTable('collection_members').dropColumn('visible').execute();
  await db.schema.alterTable('imports').dropColumn('claimed_by').execute();
  await db.schema.alterTable('imports').dropColumn('claimed_until').execute();
}
