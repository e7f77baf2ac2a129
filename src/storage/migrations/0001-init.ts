import type { Kysely } from 'kysely';

/** Workspaces, stores, tokens, products, quality problems, Missing-SKU rejections and the change log. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('stores')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('website', 'text')
    .addColumn('countries', 'text', (c) => c.notNull())
    .addColumn('channels', 'text', (c) => c.notNull())
    .addColumn('default_channel', 'text', (c) => c.notNull())
    .addColumn('taxonomy', 'text', (c) => c.notNull())
    .addColumn('linked_store_id', 'text')
    .addColumn('mapping_profile', 'text')
    .addColumn('change_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('stores_workspace_idx').on('stores').columns(['workspace_id', 'id']).execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('parent_code', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('category', 'text')
    .addColumn('department', 'text')
    .addColumn('price', 'text')
    .addColumn('currency', 'text')
    .addColumn('attributes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('products_pk', ['store_id', 'product_code'])
    .execute();
  // Covering indexes for the status listing (with and without a status filter): no table lookups per row.
  await db.schema
    .createIndex('products_status_idx')
    .on('products')
    .columns(['store_id', 'status', 'product_code', 'category'])
    .execute();
  await db.schema
    .createIndex('products_listing_idx')
    .on('products')
    .columns(['store_id', 'product_code', 'status', 'category'])
    .execute();
  await db.schema
    .createIndex('products_parent_idx')
    .on('products')
    .columns(['store_id', 'parent_code', 'product_code'])
    .execute();

  await db.schema
    .createTable('product_problems')
    .addColumn('store_id', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_problems_pk', ['store_id', 'product_code', 'reason'])
    .execute();
  await db.schema
    .createIndex('product_problems_reason_idx')
    .on('product_problems')
    .columns(['store_id', 'reason'])
    .execute();

  await db.schema
    .createTable('sku_rejections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('rejected_at', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sku_rejections_store_idx')
    .on('sku_rejections')
    .columns(['store_id', 'rejected_at'])
    .execute();

  await db.schema
    .createTable('change_log')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('entity_key', 'text', (c) => c.notNull())
    .addColumn('op', 'text', (c) => c.notNull())
    .addColumn('status', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('change_log_pk', ['store_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'change_log',
    'sku_rejections',
    'product_problems',
    'products',
    'api_tokens',
    'stores',
    'workspaces',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
