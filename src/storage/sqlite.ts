import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  sql,
  Kysely,
  RawNode,
  SelectQueryNode,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SelectQueryBuilder,
  type SqliteDatabase as KyselySqliteDatabase,
} from 'kysely';
import type { Database } from './schema.js';
import type { StorageDialect, StorageHandle } from './dialect.js';
import { BackgroundCheckpointer, type HoldWriter } from './sqlite-checkpointer.js';
import { withDialect } from './dialect.js';

export const sqliteDialect: StorageDialect = {
  name: 'sqlite',
  supportsRowLocks: false,
  roundTripPerStatement: false,
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
  analyze: () => Promise.resolve(),
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

type Prepare = (sql: string) => SqliteDatabase.Statement;

/** Kysely's one-holder-at-a-time lock of the writer connection (as in its own SQLite driver). */
class ConnectionMutex {
  #held: Promise<void> | undefined;
  #release: (() => void) | undefined;

  async lock() {
    while (this.#held) await this.#held;
    this.#held = new Promise((resolve) => (this.#release = resolve));
  }

  unlock() {
    const release = this.#release;
    this.#held = this.#release = undefined;
    release?.();
  }
}

type RowFactory = (values: unknown[]) => Record<string, unknown>;
const rowFactories = new WeakMap<SqliteDatabase.Statement, RowFactory>();

/**
 * The rows of a statement that returns data, as objects. better-sqlite3 builds each row object
 * column by column, which measured 1.5× slower on 300-row pages than reading the rows as arrays
 * and building the objects here with one literal per statement (its columns known once prepared).
 */
function rowsOf(statement: SqliteDatabase.Statement, parameters: readonly unknown[]): Record<string, unknown>[] {
  let make = rowFactories.get(statement);
  if (!make) {
    const names = statement.columns().map((column) => JSON.stringify(column.name));
    // The names are the statement's own column names, quoted as JSON string literals.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    make = new Function('row', `return {${names.map((name, i) => `${name}: row[${i}]`).join(', ')}};`) as RowFactory;
    statement.raw(true);
    rowFactories.set(statement, make);
  }
  return (statement.all(...parameters) as unknown[][]).map(make);
}

function run<R>(prepare: Prepare, query: CompiledQuery): QueryResult<R> {
  const statement = prepare(query.sql);
  if (statement.reader) return { rows: rowsOf(statement, query.parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(...query.parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/** A query that only reads: a Kysely select, or raw SQL that is one SELECT. */
const isPlainRead = (query: CompiledQuery) =>
  SelectQueryNode.is(query.query) || (RawNode.is(query.query) && /^\s*select\b/i.test(query.sql));

/**
 * One use of the database by Kysely: a single query, or a transaction. Plain reads outside a
 * transaction run on the read connection at once (committed data, what PostgreSQL's read committed
 * gives too); anything else takes the writer connection, waiting for its current holder.
 */
class RoutedConnection implements DatabaseConnection {
  #holdsWriter = false;

  constructor(private readonly driver: RoutingSqliteDriver) {}

  async takeWriter() {
    if (this.#holdsWriter) return;
    await this.driver.writerLock.lock();
    this.#holdsWriter = true;
  }

  releaseWriter() {
    if (!this.#holdsWriter) return;
    this.#holdsWriter = false;
    this.driver.writerLock.unlock();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.#holdsWriter && this.driver.reads && isPlainRead(query)) return run<R>(this.driver.reads, query);
    await this.takeWriter();
    const result = run<R>(this.driver.writes, query);
    this.driver.wrote();
    return result;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not used on SQLite');
  }
}

/**
 * Kysely's SQLite driver, with two differences. Reads outside transactions do not queue behind the
 * writer: a request's lookup no longer waits for a background follower's transaction to commit.
 * Write transactions take the write lock when they begin (BEGIN IMMEDIATE), so that the busy timeout
 * applies: with several processes on one file (`vitrine serve --processes N`, the CLI beside the
 * server), a deferred transaction that read first and then wants to write is refused at once with
 * SQLITE_BUSY instead of waiting for the other writer.
 */
class RoutingSqliteDriver implements Driver {
  readonly writerLock = new ConnectionMutex();

  constructor(
    readonly writes: Prepare,
    readonly reads: Prepare | undefined,
    readonly checkpointer: BackgroundCheckpointer | undefined,
    private readonly close: () => void,
    /** Called after every statement on the writer (the committed version is no longer the one read). */
    private readonly afterWrite: () => void,
    /** Whether the writer is inside a transaction (SQLite ends one itself on a full disk or an I/O error). */
    private readonly inTransaction: () => boolean = () => true,
  ) {}

  wrote() {
    this.checkpointer?.wrote();
    this.afterWrite();
  }

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this);
  }

  async beginTransaction(connection: RoutedConnection) {
    await connection.takeWriter();
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: RoutedConnection) {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: RoutedConnection) {
    // SQLite rolled the transaction back itself (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM): a ROLLBACK
    // now would fail and hide the error that explains what happened.
    if (!this.inTransaction()) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: RoutedConnection) {
    connection.releaseWriter();
  }

  async destroy() {
    this.close();
  }
}

class RoutingSqliteDialect extends SqliteDialect {
  constructor(private readonly driver: RoutingSqliteDriver) {
    super({ database: {} as KyselySqliteDatabase });
  }

  override createDriver() {
    return this.driver;
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
  // A log that grew large (a big import) is cut back to this size once it has been copied in full.
  connection.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  // An in-memory database cannot be opened twice: there, reads go through the writer like the rest.
  const reader = target === ':memory:' ? undefined : new SqliteDatabase(target, { readonly: true });
  reader?.pragma('busy_timeout = 5000');
  const prepareRead = reader && statementCache(reader);
  // Holds the writer as a write transaction would: the cluster's lock when there is one, then this process's.
  const holdWriter: HoldWriter = async (work) => {
    const held = async () => {
      await driver.writerLock.lock();
      try {
        await work();
      } finally {
        driver.writerLock.unlock();
      }
    };
    await (handle.writeGate ? handle.writeGate(held) : held());
  };
  const dataVersion = reader?.prepare('PRAGMA data_version').pluck();
  // Read once per turn of the event loop: the requests of one turn arrived before its first read,
  // so a commit another process acknowledged before a client sent one of them is already counted.
  // This process's own writes forget it at once (driver.wrote), so they are seen by the next request.
  let versionThisTurn: number | undefined;
  const forgetVersion = () => {
    versionThisTurn = undefined;
  };
  const checkpointer = reader && new BackgroundCheckpointer(path.resolve(target), connection, holdWriter);
  const driver = new RoutingSqliteDriver(
    statementCache(connection),
    prepareRead,
    checkpointer,
    () => connection.close(),
    forgetVersion,
    () => connection.inTransaction,
  );
  const db = withDialect(new Kysely<Database>({ dialect: new RoutingSqliteDialect(driver) }), sqliteDialect);
  const handle: StorageHandle = {
    db,
    dialect: sqliteDialect,
    description: `sqlite:${target}`,
    ...(target !== ':memory:' && { reopen: { url } }),
    readCommitted: prepareRead
      ? async <Row>(query: CompiledQuery<Row>) => rowsOf(prepareRead(query.sql), query.parameters) as Row[]
      : async <Row>(query: CompiledQuery<Row>) => (await db.executeQuery(query)).rows,
    committedVersion:
      dataVersion &&
      (() => {
        if (versionThisTurn === undefined) {
          versionThisTurn = dataVersion.get() as number;
          setImmediate(forgetVersion);
        }
        return versionThisTurn;
      }),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
      reader?.close();
    },
  };
  return handle;
}

/**
 * `sqlite:<path>` opened by another thread to read only (StorageHandle.reopen): one read-only
 * connection, no checkpointer (the process that opened the database writes and checkpoints it).
 */
export function openSqliteReader(url: string): StorageHandle {
  const target = url.slice('sqlite:'.length);
  if (target === '' || target === ':memory:') throw new Error('an in-memory SQLite database cannot be opened twice');
  const connection = new SqliteDatabase(target, { readonly: true });
  connection.pragma('busy_timeout = 5000');
  const prepare = statementCache(connection);
  const driver = new RoutingSqliteDriver(
    prepare,
    prepare,
    undefined,
    () => connection.close(),
    () => {},
    () => connection.inTransaction,
  );
  const db = withDialect(new Kysely<Database>({ dialect: new RoutingSqliteDialect(driver) }), sqliteDialect);
  return {
    db,
    dialect: sqliteDialect,
    description: `sqlite:${target} (read only)`,
    reopen: { url },
    readCommitted: async <Row>(query: CompiledQuery<Row>) => rowsOf(prepare(query.sql), query.parameters) as Row[],
    close: () => db.destroy(),
  };
}
