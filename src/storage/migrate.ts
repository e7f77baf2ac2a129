import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { StorageHandle } from './dialect.js';
import * as init from './migrations/0001-init.js';
import * as assets from './migrations/0002-assets.js';

/** One ordered list of migrations that runs on both engines. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-init': init,
  '0002-assets': assets,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema up to date; safe to run from several processes (Kysely takes a lock). */
export async function migrateToLatest(storage: StorageHandle): Promise<string[]> {
  const migrator = new Migrator({ db: storage.db, provider, ...(storage.schema ? { migrationTableSchema: storage.schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
