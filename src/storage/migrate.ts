import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { StorageHandle } from './dialect.js';
import * as init from './migrations/0001-init.js';
import * as assets from './migrations/0002-assets.js';
import { searchMigration } from './migrations/0003-search.js';
import { collectionsMigration } from './migrations/0004-collections.js';
import * as complements from './migrations/0005-complements.js';
import * as imports from './migrations/0006-imports.js';
import { visualMigration } from './migrations/0007-visual.js';
import * as moduleBoundaries from './migrations/0008-module-boundaries.js';
import { vocabularyMigration } from './migrations/0009-vocabulary.js';
import * as media from './migrations/0010-media.js';
import * as storefront from './migrations/0011-storefront.js';
import * as collectionMemberLookup from './migrations/0012-collection-member-lookup.js';
import * as changeFeed from './migrations/0013-change-feed.js';
import { searchPerStoreMigration } from './migrations/0014-search-per-store.js';
import { collectionSortKeysMigration } from './migrations/0015-collection-sort-keys.js';
import * as pinsVersion from './migrations/0016-pins-version.js';
import * as searchRules from './migrations/0017-search-rules.js';
import * as shopperEvents from './migrations/0018-shopper-events.js';
import * as eventCaps from './migrations/0019-event-caps.js';
import * as storeLanguage from './migrations/0020-store-language.js';
import * as tagging from './migrations/0021-tagging.js';
import { eventDayStampsMigration } from './migrations/0022-event-day-stamps.js';
import * as imageLeases from './migrations/0023-image-leases.js';
import * as imageModels from './migrations/0024-image-models.js';
import * as listingTitles from './migrations/0025-listing-titles.js';
import type { DialectName } from './dialect.js';

/** One ordered list of migrations for both engines; the few engine-specific steps get the dialect. */
function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '0001-init': init,
    '0002-assets': assets,
    '0003-search': searchMigration(dialect),
    '0004-collections': collectionsMigration(dialect),
    '0005-complements': complements,
    '0006-imports': imports,
    '0007-visual': visualMigration(dialect),
    '0008-module-boundaries': moduleBoundaries,
    '0009-vocabulary': vocabularyMigration(dialect),
    '0010-media': media,
    '0011-storefront': storefront,
    '0012-collection-member-lookup': collectionMemberLookup,
    '0013-change-feed': changeFeed,
    '0014-search-per-store': searchPerStoreMigration(dialect),
    '0015-collection-sort-keys': collectionSortKeysMigration(dialect),
    '0016-pins-version': pinsVersion,
    '0017-search-rules': searchRules,
    '0018-shopper-events': shopperEvents,
    '0019-event-caps': eventCaps,
    '0020-store-language': storeLanguage,
    '0021-tagging': tagging,
    '0022-event-day-stamps': eventDayStampsMigration(dialect),
    '0023-image-leases': imageLeases,
    '0024-image-models': imageModels,
    '0025-listing-titles': listingTitles,
  };
}

/** Brings the schema up to date; safe to run from several processes (Kysely takes a lock). */
function migratorFor(storage: StorageHandle): Migrator {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(storage.dialect.name) };
  return new Migrator({
    db: storage.dialect.name === 'postgres' ? withOwnTablesIntrospected(storage) : storage.db,
    provider,
    ...(storage.schema ? { migrationTableSchema: storage.schema } : {}),
  });
}

/** The migrations that have not run on this database yet, in the order they would (`vitrine migrate --dry-run`). */
export async function pendingMigrations(storage: StorageHandle): Promise<string[]> {
  const migrations = await migratorFor(storage).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * Brings the schema up to date: each migration in a transaction of its own (both engines' DDL is
 * transactional), so one that fails leaves the database as the previous one left it.
 */
export async function migrateToLatest(storage: StorageHandle, upTo?: string): Promise<string[]> {
  if (!upTo && (await upToDate(storage))) return [];
  const migrator = migratorFor(storage);
  // `upTo` (tests of a migration): stop after that one.
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely's Migrator finds its two tables by introspecting every table and column of the database. On a
 * PostgreSQL server shared with other clients, a schema dropped in the middle of that listing failed it
 * with "schema … does not exist" (CI runs test files side by side, each in schemas of its own; a retry
 * only made it rarer). The Migrator is handed the database with an introspector that looks up those two
 * tables by name in the migration schema (or the search path) alone: a catalog read no other schema's
 * drop can break, and one row instead of every column of every store's tables.
 */
function withOwnTablesIntrospected(storage: StorageHandle): Kysely<unknown> {
  const db = storage.db as unknown as Kysely<unknown>;
  const schema = storage.schema;
  const introspector: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    getMetadata: async () => ({ tables: await introspector.getTables() }),
    getTables: async () => {
      const inSchema = schema ? sql`n.nspname = ${schema}` : sql`n.nspname = ANY (current_schemas(false))`;
      const { rows } = await sql<{ name: string; schema: string }>`
        SELECT c.relname AS name, n.nspname AS schema
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND c.relname IN ('kysely_migration', 'kysely_migration_lock') AND ${inSchema}`.execute(
        db,
      );
      return rows.map((row) => ({ ...row, isView: false, columns: [] }));
    },
  };
  // Every other member is the database's own, bound to it (Kysely keeps its state in private fields).
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspector;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Whether every migration has run, read from Kysely's own table. On SQLite the Migrator finds that table
 * by listing every table of the database with its columns: with a thousand stores (five tables each for
 * the per-store text index) that took 150-200 ms in every process a `vitrine serve` starts.
 */
async function upToDate(storage: StorageHandle): Promise<boolean> {
  const table = storage.schema ? `${storage.schema}.kysely_migration` : 'kysely_migration';
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(table)}`.execute(storage.db);
    const done = new Set(rows.map((row) => row.name));
    const known = Object.keys(migrationsFor(storage.dialect.name));
    // One this release does not know (a newer release's): the Migrator says so, as it always did.
    return done.size === known.length && known.every((name) => done.has(name));
  } catch {
    return false; // no migration table yet: the Migrator creates it
  }
}
