import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/** Collections (the seed's fields as a JSON document, plus the columns queries need) and their members. */
export function collectionsMigration(dialect: DialectName): Migration {
  return { up: (db) => up(db, dialect), down };
}

async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('collections')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('auto_refresh', 'integer', (c) => c.notNull())
    .addColumn('is_static', 'integer', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('collections_pk', ['store_id', 'id'])
    .execute();

  // Rule members (heroes are read from the document); visibility is checked when reading, so a
  // hidden product comes back by itself when it is visible again.
  await db.schema
    .createTable('collection_members')
    .addColumn('store_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text', (c) => c.notNull())
    // Sort keys are built for code-point order: PostgreSQL must not compare them by locale.
    .addColumn('sort_key', dialect === 'postgres' ? sql`text collate "C"` : 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('collection_members_pk', ['store_id', 'collection_id', 'product_code'])
    .execute();
  await db.schema
    .createIndex('collection_members_order_idx')
    .on('collection_members')
    .columns(['store_id', 'collection_id', 'sort_key', 'product_code'])
    .execute();
  await db.schema
    .createIndex('collection_members_product_idx')
    .on('collection_members')
    .columns(['store_id', 'product_code'])
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('collection_members').ifExists().execute();
  await db.schema.dropTable('collections').ifExists().execute();
}
