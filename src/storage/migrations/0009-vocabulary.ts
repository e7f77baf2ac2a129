import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * The catalog vocabulary (issue 15):
 * - stores.vocabulary: a store's overrides (JSON of categories, departments, colours; null for none);
 * - the text index gets a `concepts` field of its own, least weighted (the audience and colour family
 *   the vocabulary resolved), so SQLite's FTS table is recreated; every store's search index is then
 *   rebuilt from the change log by the search follower (its cursor goes back to 0).
 */
export function vocabularyMigration(dialect: DialectName): Migration {
  const resetSearch = async (db: Kysely<unknown>) => {
    await sql`DELETE FROM search_docs`.execute(db);
    await sql`DELETE FROM search_vocab`.execute(db);
    await sql`DELETE FROM feed_cursors WHERE consumer = 'search'`.execute(db);
  };
  return {
    async up(db) {
      await db.schema.alterTable('stores').addColumn('vocabulary', 'text').execute();
      if (dialect === 'sqlite') {
        await sql`DROP TABLE IF EXISTS search_fts`.execute(db);
        await sql`CREATE VIRTUAL TABLE search_fts USING fts5(title, category, other, concepts, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4')`.execute(
          db,
        );
      }
      await resetSearch(db);
    },
    async down(db) {
      await db.schema.alterTable('stores').dropColumn('vocabulary').execute();
      if (dialect === 'sqlite') {
        await sql`DROP TABLE IF EXISTS search_fts`.execute(db);
        await sql`CREATE VIRTUAL TABLE search_fts USING fts5(title, category, other, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4')`.execute(
          db,
        );
      }
      await resetSearch(db);
    },
  };
}
