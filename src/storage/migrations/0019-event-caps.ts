import { sql, type Kysely } from 'kysely';

/**
 * Issue 41, the flood cap and baskets. The flood cap: each actor (a shopper, else a session, else a client address) counts at
 * most once per product, day and event type in the daily counters. `event_actor_days` holds the keys
 * that counted (insert-or-ignore decides, race-free); `shopper_events.counted` says whether an event
 * added to the counters, so an erasure takes back exactly what it added. Baskets: `basket` (the
 * session, else the shopper) groups the products added to cart or bought together, for complete the
 * look; indexed from a product to its baskets and from a basket to its products.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shopper_events')
    .addColumn('counted', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('shopper_events').addColumn('basket', 'text').execute();
  await sql`update shopper_events set basket = coalesce(session_id, shopper_hash)`.execute(db);
  await db.schema
    .createIndex('shopper_events_basket_idx')
    .on('shopper_events')
    .columns(['store_id', 'basket'])
    .execute();
  await db.schema
    .createIndex('shopper_events_product_idx')
    .on('shopper_events')
    .columns(['store_id', 'product_code', 'type'])
    .execute();
  await db.schema
    .createTable('event_actor_days')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_actor_days_pk', ['store_id', 'actor', 'product_code', 'day', 'type'])
    .execute();
  await db.schema.createIndex('event_actor_days_day_idx').on('event_actor_days').column('day').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('event_actor_days').execute();
  await db.schema.dropIndex('shopper_events_product_idx').execute();
  await db.schema.dropIndex('shopper_events_basket_idx').execute();
  await db.schema.alterTable('shopper_events').dropColumn('basket').execute();
  await db.schema.alterTable('shopper_events').dropColumn('counted').execute();
}
