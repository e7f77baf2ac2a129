import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Text search: per-store synonyms, the change-log followers' cursors, the vocabulary for
 * typo candidates, and the engine's own full-text index (SQLite FTS5 / PostgreSQL tsvector + GIN).
 */
export function searchMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('stores').addColumn('synonyms', 'text').execute();

      // Each follower of the change log (search index, collections, …) keeps its cursor per store here.
      await db.schema
        .createTable('feed_cursors')
        .addColumn('consumer', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('feed_cursors_pk', ['consumer', 'store_id'])
        .execute();

      await db.schema
        .createTable('search_vocab')
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('term', 'text', (c) => c.notNull())
        // Approximate document frequency (counted as products are indexed), to prefer common words among typo candidates.
        .addColumn('df', 'integer', (c) => c.notNull())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('search_vocab_pk', ['store_id', 'term'])
        .execute();
      await db.schema.createIndex('search_vocab_seq_idx').on('search_vocab').columns(['store_id', 'seq']).execute();

      if (dialect === 'sqlite') {
        await db.schema
          .createTable('search_docs')
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('store_id', 'text', (c) => c.notNull())
          .addColumn('product_code', 'text', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('title_terms', 'text', (c) => c.notNull())
          .addUniqueConstraint('search_docs_code_unique', ['store_id', 'product_code'])
          .execute();
        // Prefixes of 2-4 characters are indexed for typed-ahead words; the store is filtered through search_docs.
        await sql`CREATE VIRTUAL TABLE search_fts USING fts5(title, category, other, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4')`.execute(
          db,
        );
      } else {
        await db.schema
          .createTable('search_docs')
          .addColumn('store_id', 'text', (c) => c.notNull())
          .addColumn('product_code', 'text', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('title_terms', 'text', (c) => c.notNull())
          .addColumn('tsv', sql`tsvector`, (c) => c.notNull())
          .addPrimaryKeyConstraint('search_docs_pk', ['store_id', 'product_code'])
          .execute();
        await sql`CREATE INDEX search_docs_tsv_idx ON search_docs USING gin (tsv)`.execute(db);
      }
    },
    async down(db: Kysely<unknown>) {
      if (dialect === 'sqlite') await sql`DROP TABLE IF EXISTS search_fts`.execute(db);
      for (const table of ['search_docs', 'search_vocab', 'feed_cursors'])
        await db.schema.dropTable(table).ifExists().execute();
      await db.schema.alterTable('stores').dropColumn('synonyms').execute();
    },
  };
}
