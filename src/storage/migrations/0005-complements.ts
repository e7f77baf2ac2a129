import type { Kysely } from 'kysely';

/** A store's own complement taxonomy (null: the shipped fashion one) and merchandisers' pinned complements. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').addColumn('complements', 'text').execute();
  await db.schema
    .createTable('product_pins')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('pinned', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_pins_pk', ['store_id', 'product_code'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('product_pins').ifExists().execute();
  await db.schema.alterTable('stores').dropColumn('complements').execute();
}
