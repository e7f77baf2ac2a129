import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { FTS_COLUMNS, ftsTableOf } from '../../search/sqlite-text-index.js';

/**
 * SQLite: one FTS5 table per store instead of one for all (issue 22). bm25 weighs terms by their
 * rarity in the table, so a shared table let one workspace's catalog change another's scores.
 * PostgreSQL ranks with ts_rank, which reads only the document: nothing to change there.
 */
export function searchPerStoreMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      const { rows } = await sql<{ store_id: string }>`SELECT DISTINCT store_id FROM search_docs`.execute(db);
      for (const { store_id: storeId } of rows) {
        const table = sql.table(ftsTableOf(storeId));
        await sql`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(${sql.raw(FTS_COLUMNS)})`.execute(db);
        await sql`INSERT INTO ${table} (rowid, title, category, other)
          SELECT f.rowid, f.title, f.category, f.other FROM search_fts f JOIN search_docs d ON d.id = f.rowid
          WHERE d.store_id = ${storeId}`.execute(db);
      }
      await sql`DROP TABLE IF EXISTS search_fts`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await sql`CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(${sql.raw(FTS_COLUMNS)})`.execute(db);
      const { rows } = await sql<{ store_id: string }>`SELECT DISTINCT store_id FROM search_docs`.execute(db);
      for (const { store_id: storeId } of rows) {
        const table = sql.table(ftsTableOf(storeId));
        await sql`INSERT INTO search_fts (rowid, title, category, other) SELECT rowid, title, category, other FROM ${table}`.execute(
          db,
        );
        await sql`DROP TABLE IF EXISTS ${table}`.execute(db);
      }
    },
  };
}
