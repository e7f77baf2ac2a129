import type { Kysely } from 'kysely';

/**
 * Issue 43: a store's catalog language (BCP 47 primary tag), and the language its text index was
 * built in. They differ while a language switch is re-indexing the store: queries keep being analysed
 * in the index's language until the rebuilt index commits.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('stores')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .execute();
  await db.schema
    .alterTable('stores')
    .addColumn('index_language', 'text', (c) => c.notNull().defaultTo('en'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').dropColumn('index_language').execute();
  await db.schema.alterTable('stores').dropColumn('language').execute();
}
