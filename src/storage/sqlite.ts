import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { StorageDialect, StorageHandle } from './dialect.js';

export const sqliteDialect: StorageDialect = {
  name: 'sqlite',
  supportsRowLocks: false,
  maxParameters: 32_000,
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) { return query; },
};

/** `sqlite:<path>` or `sqlite::memory:`. */
export function openSqlite(url: string): StorageHandle {
  const target = url.slice('sqlite:'.length) || ':memory:';
  if (target !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  const connection = new SqliteDatabase(target);
  // WAL lets readers run beside the writer; the busy timeout covers a second process (the CLI) writing.
  connection.pragma('journal_mode = WAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  return {
    db,
    dialect: sqliteDialect,
    description: `sqlite:${target}`,
    close: () => db.destroy(),
  };
}
