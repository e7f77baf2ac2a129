import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The catalog vocabulary (issue 15):
 * - stores.vocabulary: a store's overrides (JSON of categories, departments, colours; null for none);
 * - search_docs.concepts: the audience and colour family the vocabulary resolved for each product
 *   (PostgreSQL also puts them in the tsvector, weight D). Every store's search index is then rebuilt
 *   from the change log by the search follower (its cursor goes back to 0), so documents carry them.
 */
async function resetSearch(db: Kysely<unknown>) {
  await sql`DELETE FROM search_docs`.execute(db);
  await sql`DELETE FROM search_vocab`.execute(db);
  await sql`DELETE FROM feed_cursors WHERE consumer = 'search'`.execute(db);
}

export function vocabularyMigration(dialect: DialectName): Migration {
  return {
    async up(db) {
      await db.schema.alterTable('stores').addColumn('vocabulary', 'text').execute();
      await db.schema
        .alterTable('search_docs')
        .addColumn('concepts', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      if (dialect === 'sqlite') await sql`DELETE FROM search_fts`.execute(db);
      await resetSearch(db);
    },
    async down(db) {
      await db.schema.alterTable('stores').dropColumn('vocabulary').execute();
      await db.schema.alterTable('search_docs').dropColumn('concepts').execute();
    },
  };
}
