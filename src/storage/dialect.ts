import type { CompiledQuery, Kysely, RawBuilder, SelectQueryBuilder, Transaction } from 'kysely';
import type { Database } from './schema.js';
import type { ReplicaSet } from './replicas.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * What really differs between the two engines, as capability flags and small helpers, so that
 * repositories stay one code path (STYLE §6: checks on the engine name live only under storage/).
 */
export interface StorageDialect {
  readonly name: DialectName;
  /** SQLite serialises writers on one connection; PostgreSQL needs explicit row locks. */
  readonly supportsRowLocks: boolean;
  /**
   * Each statement is a round trip to a server (PostgreSQL), not a call into the process (SQLite):
   * where two statements can be one, it pays on such an engine, while SQLite may run the simpler pair faster.
   */
  readonly roundTripPerStatement: boolean;
  /** Most bind parameters one statement may carry, so batches can be chunked. */
  readonly maxParameters: number;
  /** Adds FOR UPDATE where the engine has it; a no-op on SQLite, whose single writer already serialises. */
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Job claims: FOR UPDATE SKIP LOCKED on PostgreSQL (workers never wait on each other's rows); a no-op on SQLite. */
  claimRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * `column LIKE pattern` in any letter case, backslash escaping: SQLite's LIKE already ignores ASCII
   * case (a lower() on every row would only cost), PostgreSQL has ILIKE.
   */
  likeAnyCase(column: string, pattern: string): RawBuilder<boolean>;
  /**
   * Refreshes the planner's statistics of tables (PostgreSQL ANALYZE; SQLite plans by its indexes
   * without them, and is left alone): see storage/table-statistics.ts.
   */
  analyze(db: Kysely<Database>, tables: readonly string[]): Promise<void>;
}

export interface StorageHandle {
  /** The root executor, carrying its dialect (see `Db`). */
  readonly db: Kysely<Database> & { readonly dialect: StorageDialect };
  readonly dialect: StorageDialect;
  /**
   * Runs a compiled read on a connection that sees committed data only. On a SQLite file this is a
   * second, read-only connection used synchronously (no driver mutex or pool round trip): the
   * per-request lookups use it. Elsewhere it is an ordinary query. `name`: a statement of fixed SQL
   * that the caller runs on every request; PostgreSQL then prepares it once per connection under that
   * name instead of parsing and planning it each time.
   */
  readCommitted<Row>(query: CompiledQuery<Row>, name?: string): Promise<Row[]>;
  /**
   * A number that changes whenever any connection commits (SQLite: data_version on the read
   * connection, read once per turn of the event loop and again after this process writes), so
   * per-request lookups can be reused until something changes.
   * Absent where that cannot be known without a round trip (PostgreSQL, in-memory SQLite).
   */
  committedVersion?: () => number;
  /** PostgreSQL: the schema the tables live in (migrations check their own tables there). */
  readonly schema?: string;
  /**
   * SQLite with several API processes: runs a write transaction once this process holds the
   * cluster's write lock (see cluster.ts); absent, transactions run at once.
   */
  writeGate?: <T>(work: () => Promise<T>) => Promise<T>;
  /** PostgreSQL with DATABASE_READ_URLS: the read replicas and their health (src/storage/replicas.ts). */
  readonly replicas?: ReplicaSet;
  /** With replicas: the primary's WAL position now, which a replica must reach to show what was written so far. */
  writePosition?(): Promise<bigint>;
  /** PostgreSQL: the connection pool's use, for /metrics. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /** Describes the target without credentials, for logs and the start-up banner. */
  readonly description: string;
  /**
   * How another thread opens the same database (read only: `openDatabase(url, { schema, readOnly })`);
   * absent where it cannot (an in-memory SQLite database).
   */
  readonly reopen?: { url: string; schema?: string };
  close(): Promise<void>;
}

/** Kysely at the root or inside a transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * What repositories take: a query executor that knows its engine, so callers never pass the dialect
 * along (STYLE §6). `storage.db` is one; `inTransaction` hands its work one.
 */
export type Db = Executor & { readonly dialect: StorageDialect };

/** Attaches the dialect to a Kysely instance or transaction (a non-enumerable own property). */
export function withDialect<E extends Executor>(
  executor: E,
  dialect: StorageDialect,
): E & { readonly dialect: StorageDialect } {
  return Object.defineProperty(executor, 'dialect', { value: dialect, enumerable: false, configurable: true }) as E & {
    readonly dialect: StorageDialect;
  };
}
