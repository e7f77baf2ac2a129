import type { Kysely } from 'kysely';

/**
 * Issue 40: a store's merchandising rules for search and browse (pin, hide, boost, bury), as JSON.
 * Read with the store at the start of each request, like its synonyms.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').addColumn('search_rules', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').dropColumn('search_rules').execute();
}
