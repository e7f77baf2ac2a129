import type { Kysely } from 'kysely';

/**
 * The change feed as a product (issue 19): the changed field names on each change-log entry, the
 * retention floor of each store's log (the last sequence pruned), webhook subscriptions with their
 * delivery cursor, lease and health, and the delivery log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('change_log').addColumn('fields', 'text').execute();
  await db.schema
    .alterTable('stores')
    .addColumn('change_floor', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    // The signing secret: the receiver needs the same bytes, so it is stored as issued (shown once).
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('cursor_seq', 'bigint', (c) => c.notNull())
    .addColumn('replay_after', 'bigint')
    .addColumn('replay_upto', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', 'text')
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_subscriptions_store_idx')
    .on('webhook_subscriptions')
    .columns(['store_id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('first_seq', 'bigint', (c) => c.notNull())
    .addColumn('last_seq', 'bigint', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('replay', 'integer', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_subscription_idx')
    .on('webhook_deliveries')
    .columns(['subscription_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').ifExists().execute();
  await db.schema.dropTable('webhook_subscriptions').ifExists().execute();
  await db.schema.alterTable('stores').dropColumn('change_floor').execute();
  await db.schema.alterTable('change_log').dropColumn('fields').execute();
}
