import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  sql,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDialectConfig,
  type SelectQueryBuilder,
  type SqliteDatabase as KyselySqliteDatabase,
} from 'kysely';
import type { Database } from './schema.js';
import type { StorageDialect, StorageHandle } from './dialect.js';
import { withDialect } from './dialect.js';

export const sqliteDialect: StorageDialect = {
  name: 'sqlite',
  supportsRowLocks: false,
  maxParameters: 32_000,
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) {
    return query;
  },
  likeAnyCase(column: string, pattern: string) {
    return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
  },
  claimRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) {
    return query;
  },
};

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a simple
 * lookup. Reusing prepared statements by SQL text is safe here because the driver only calls
 * all()/run() on them (never two iterations of one statement at once).
 */
function statementCache(connection: SqliteDatabase.Database) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = connection.prepare(sql);
      // Multi-row inserts produce many distinct texts: evict the oldest beyond the bound.
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
    }
    return statement;
  };
}

function withStatementCache(connection: SqliteDatabase.Database): KyselySqliteDatabase {
  const prepare = statementCache(connection);
  return {
    close: () => {
      connection.close();
    },
    prepare: (sql: string) => prepare(sql),
  };
}

/**
 * Write transactions take the write lock when they begin (BEGIN IMMEDIATE), so that the busy timeout
 * applies: with several processes on one file (`vitrine serve --processes N`, the CLI beside the
 * server), a deferred transaction that read first and then wants to write is refused at once with
 * SQLITE_BUSY instead of waiting for the other writer.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.settings);
  }
}

/** `sqlite:<path>` or `sqlite::memory:`. */
export function openSqlite(url: string): StorageHandle {
  const target = url.slice('sqlite:'.length) || ':memory:';
  if (target !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  const connection = new SqliteDatabase(target);
  // WAL lets readers run beside the writer. Another process holding the write lock (a second API
  // process, the CLI) is waited for briefly here — the wait blocks this process's event loop, so it
  // is short — and a transaction still refused is retried without blocking (inTransaction).
  connection.pragma('journal_mode = WAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 200');
  connection.pragma('synchronous = NORMAL');
  const db = withDialect(
    new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(connection) }) }),
    sqliteDialect,
  );
  // An in-memory database cannot be opened twice: there, reads go through Kysely like the rest.
  const reader = target === ':memory:' ? undefined : new SqliteDatabase(target, { readonly: true });
  reader?.pragma('busy_timeout = 5000');
  const prepareRead = reader && statementCache(reader);
  const dataVersion = reader?.prepare('PRAGMA data_version').pluck();
  return {
    db,
    dialect: sqliteDialect,
    description: `sqlite:${target}`,
    readCommitted: prepareRead
      ? async <Row>(query: CompiledQuery<Row>) => prepareRead(query.sql).all(...query.parameters) as Row[]
      : async <Row>(query: CompiledQuery<Row>) => (await db.executeQuery(query)).rows,
    committedVersion: dataVersion && (() => dataVersion.get() as number),
    close: async () => {
      await db.destroy();
      reader?.close();
    },
  };
}
