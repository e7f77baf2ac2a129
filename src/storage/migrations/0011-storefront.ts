import type { Kysely } from 'kysely';

/**
 * Storefront access (issue 17): publishable keys (a token scope and the stores it names) and the
 * browser origins each store allows (CORS).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_tokens')
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo('full'))
    .execute();
  await db.schema.alterTable('api_tokens').addColumn('store_ids', 'text').execute();
  await db.schema
    .alterTable('stores')
    .addColumn('allowed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').dropColumn('allowed_origins').execute();
  await db.schema.alterTable('api_tokens').dropColumn('store_ids').execute();
  await db.schema.alterTable('api_tokens').dropColumn('scope').execute();
}
