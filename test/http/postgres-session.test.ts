import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/storage/database.js';
import { reusableQuery } from '../../src/storage/reusable-query.js';
import { POSTGRES_SKIP, POSTGRES_URL } from '../helpers/backends.js';

const setting = async (storage: ReturnType<typeof openDatabase>, name: 'random_page_cost' | 'search_path') =>
  (await sql<Record<string, string>>`SHOW ${sql.raw(name)}`.execute(storage.db)).rows[0][name];

describe('PostgreSQL sessions', { skip: POSTGRES_SKIP }, () => {
  it('start with our settings, after the options the URL gives', async () => {
    const plain = openDatabase(POSTGRES_URL);
    const withOptions = openDatabase(
      `${POSTGRES_URL}?options=${encodeURIComponent('-c search_path=elsewhere,public')}`,
    );
    try {
      assert.equal(await setting(plain, 'random_page_cost'), '1.1');
      assert.equal(await setting(withOptions, 'random_page_cost'), '1.1');
      assert.equal(await setting(withOptions, 'search_path'), 'elsewhere,public');
    } finally {
      await plain.close();
      await withOptions.close();
    }
  });

  it('run the per-request lookups as one named statement per connection, with new values each time', async () => {
    const storage = openDatabase(POSTGRES_URL, { poolSize: 1 });
    const lookup = reusableQuery(['n'], (db, p) =>
      db.selectNoFrom((eb) => [eb.cast<string>(eb.val(p.n), 'text').as('echo')]),
    );
    try {
      // One connection: twelve calls, one statement prepared, each call with its own value.
      const echoes = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => (await lookup(storage, { n: `v${i}` }))[0].echo),
      );
      assert.deepEqual(
        echoes,
        Array.from({ length: 12 }, (_, i) => `v${i}`),
      );
      const prepared = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'vitrine_reusable_%'`.execute(
        storage.db,
      );
      assert.equal(prepared.rows[0].n, 1, 'prepared once, run twelve times');
    } finally {
      await storage.close();
    }
  });
});
