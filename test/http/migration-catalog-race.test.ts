import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase, type StorageHandle } from '../../src/storage/database.js';
import { migrateToLatest, pendingMigrations } from '../../src/storage/migrate.js';
import { POSTGRES_SKIP, POSTGRES_URL } from '../helpers/backends.js';

// Kysely's migrator finds its own table by listing the tables of every schema of the database: on a
// PostgreSQL server shared with others (CI runs test files side by side, each in schemas of its own),
// a schema dropped between that listing and the columns' read failed `vitrine migrate --dry-run` with
// "schema … does not exist" (CI runs, even with a retry). Both commands look up the migration tables by
// name in their own schema instead.

describe('migrations while other clients create and drop schemas', { skip: POSTGRES_SKIP }, () => {
  const schema = `race_${randomBytes(5).toString('hex')}`;
  let storage: StorageHandle;
  let admin: pg.Client;

  before(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    storage = openDatabase(POSTGRES_URL, { schema });
  });
  after(async () => {
    await storage.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });

  it('lists the pending migrations and runs them without failing on a schema dropped meanwhile', async () => {
    let churning = true;
    // Another client: schemas with a few tables each, created and dropped as fast as the server goes.
    const churn = (async () => {
      const other = new pg.Client({ connectionString: POSTGRES_URL });
      await other.connect();
      try {
        for (let i = 0; churning; i++) {
          const name = `${schema}_churn${i % 4}`;
          await other.query(
            `CREATE SCHEMA IF NOT EXISTS ${name}; CREATE TABLE IF NOT EXISTS ${name}.a (x int, y text); CREATE TABLE IF NOT EXISTS ${name}.b (x int)`,
          );
          await other.query(`DROP SCHEMA ${name} CASCADE`);
        }
      } finally {
        await other.end();
      }
    })();
    try {
      const first = await pendingMigrations(storage);
      assert.ok(first.length > 0);
      for (let i = 0; i < 40; i++) assert.deepEqual(await pendingMigrations(storage), first);
      assert.deepEqual(await migrateToLatest(storage), first);
      for (let i = 0; i < 10; i++) assert.deepEqual(await pendingMigrations(storage), []);
    } finally {
      churning = false;
      await churn;
    }
  });
});
