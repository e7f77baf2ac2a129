import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { openTestStorage } from '../helpers/test-app.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { ftsTableOf } from '../../src/search/sqlite-text-index.js';

it('moves a SQLite database from the shared full-text table to one table per store, rows intact', async () => {
  const storage = await openTestStorage('sqlite');
  try {
    await migrateToLatest(storage, '0013-change-feed');
    const db = storage.db;
    const stores = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
    let id = 0;
    for (const store of stores)
      for (const code of ['p1', 'p2']) {
        id++;
        await sql`INSERT INTO search_docs (id, store_id, product_code, title, title_terms) VALUES (${id}, ${store}, ${code}, ${'Linen shirt'}, ${'linen shirt'})`.execute(
          db,
        );
        await sql`INSERT INTO search_fts (rowid, title, category, other) VALUES (${id}, ${'linen shirt'}, ${'shirts'}, ${code})`.execute(
          db,
        );
      }
    await migrateToLatest(storage);
    for (const [i, store] of stores.entries()) {
      const { rows } = await sql<{
        rowid: number;
        other: string;
      }>`SELECT rowid, other FROM ${sql.table(ftsTableOf(store))} WHERE ${sql.table(ftsTableOf(store))} MATCH 'linen' ORDER BY rowid`.execute(
        db,
      );
      assert.deepEqual(
        rows.map((r) => [Number(r.rowid), r.other]),
        [
          [i * 2 + 1, 'p1'],
          [i * 2 + 2, 'p2'],
        ],
      );
    }
    const shared = await sql`SELECT name FROM sqlite_master WHERE name = 'search_fts'`.execute(db);
    assert.equal(shared.rows.length, 0, 'the shared table is gone');
  } finally {
    await storage.close();
  }
});
