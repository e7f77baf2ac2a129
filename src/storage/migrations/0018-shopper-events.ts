import type { Kysely } from 'kysely';

/**
 * Issue 41, first part: shopper events in. The raw events (deduplicated by the client's event_id,
 * the shopper only as a keyed hash) and their per-product, per-day counters, which is what signals
 * read: storage grows with products × days, not with events. A per-store key for the shopper hash.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').addColumn('shopper_key', 'text').execute();
  await db.schema
    .createTable('shopper_events')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text')
    .addColumn('shopper_hash', 'text')
    .addColumn('session_id', 'text')
    .addColumn('query', 'text')
    .addColumn('hits', 'integer')
    .addColumn('position', 'integer')
    .addColumn('quantity', 'integer')
    .addColumn('price', 'double precision')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('shopper_events_pk', ['store_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('shopper_events_shopper_idx')
    .on('shopper_events')
    .columns(['store_id', 'shopper_hash'])
    .execute();
  await db.schema
    .createIndex('shopper_events_time_idx')
    .on('shopper_events')
    .columns(['store_id', 'occurred_at'])
    .execute();
  // Retention prunes by day across stores.
  await db.schema.createIndex('shopper_events_day_idx').on('shopper_events').column('day').execute();
  await db.schema
    .createTable('product_event_days')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('carts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('purchases', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('product_event_days_pk', ['store_id', 'product_code', 'day'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('product_event_days').execute();
  await db.schema.dropTable('shopper_events').execute();
  await db.schema.alterTable('stores').dropColumn('shopper_key').execute();
}
