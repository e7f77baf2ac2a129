import { sql, type Kysely } from 'kysely';

/** The events that put products in a basket together (complete the look reads only these). */
const IN_BASKETS = sql<boolean>`type in ('add_to_cart', 'purchase')`;

/**
 * Issue 41, the flood cap, baskets and leaner event indexes.
 * - Flood cap: each actor (a shopper, else a session, else a client address) counts at most once
 *   per product, day and event type in the daily counters. `event_actor_days` holds the keys that
 *   counted (insert-or-ignore decides, race-free); `shopper_events.counted` says whether an event
 *   added to the counters, so an erasure takes back exactly what it added.
 * - Baskets: `basket` (the session, else the shopper) groups the products added to cart or bought
 *   together, for complete the look; indexed from a product to its baskets and back, for cart and
 *   purchase events only.
 * - Every event index is paid on ingest: the shopper index holds identified shoppers only, and one
 *   (store_id, day) index serves analytics and retention, where two served them before.
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
    .where(IN_BASKETS)
    .execute();
  await db.schema
    .createIndex('shopper_events_product_idx')
    .on('shopper_events')
    .columns(['store_id', 'product_code'])
    .where(IN_BASKETS)
    .execute();
  await db.schema.dropIndex('shopper_events_shopper_idx').execute();
  await db.schema
    .createIndex('shopper_events_shopper_idx')
    .on('shopper_events')
    .columns(['store_id', 'shopper_hash'])
    .where(sql<boolean>`shopper_hash is not null`)
    .execute();
  await db.schema.dropIndex('shopper_events_time_idx').execute();
  await db.schema.dropIndex('shopper_events_day_idx').execute();
  await db.schema
    .createIndex('shopper_events_store_day_idx')
    .on('shopper_events')
    .columns(['store_id', 'day'])
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
  await db.schema.dropIndex('shopper_events_store_day_idx').execute();
  await db.schema.createIndex('shopper_events_day_idx').on('shopper_events').column('day').execute();
  await db.schema
    .createIndex('shopper_events_time_idx')
    .on('shopper_events')
    .columns(['store_id', 'occurred_at'])
    .execute();
  await db.schema.dropIndex('shopper_events_shopper_idx').execute();
  await db.schema
    .createIndex('shopper_events_shopper_idx')
    .on('shopper_events')
    .columns(['store_id', 'shopper_hash'])
    .execute();
  await db.schema.dropIndex('shopper_events_product_idx').execute();
  await db.schema.dropIndex('shopper_events_basket_idx').execute();
  await db.schema.alterTable('shopper_events').dropColumn('basket').execute();
  await db.schema.alterTable('shopper_events').dropColumn('counted').execute();
}
