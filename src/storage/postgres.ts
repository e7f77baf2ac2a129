import { createRequire } from 'node:module';
import type pgModule from 'pg';
import { Kysely, PostgresDialect, sql, type CompiledQuery, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { StorageDialect, StorageHandle } from './dialect.js';
import { withDialect } from './dialect.js';
import { ReplicaSet, walPosition, type ReplicaSetOptions } from './replicas.js';
import { currentReadRoute, isReplicaRead, RoutingDriver } from './read-routing.js';

// The driver is loaded when a PostgreSQL database is opened: SQLite deployments and the CLI's quick
// commands do not pay for it.
let driver: typeof pgModule | undefined;
function pgDriver(): typeof pgModule {
  if (!driver) {
    driver = createRequire(import.meta.url)('pg') as typeof pgModule;
    // COUNT(*) and bigint columns come back as strings by default; every value we keep fits in a double.
    driver.types.setTypeParser(driver.types.builtins.INT8, (value) => Number(value));
  }
  return driver;
}

export const postgresDialect: StorageDialect = {
  name: 'postgres',
  supportsRowLocks: true,
  roundTripPerStatement: true,
  maxParameters: 65_000,
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) {
    return query.forUpdate();
  },
  likeAnyCase(column: string, pattern: string) {
    return sql<boolean>`${sql.ref(column)} ilike ${pattern} escape '\\'`;
  },
  claimRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) {
    return query.forUpdate().skipLocked();
  },
  async analyze(db, tables) {
    // A user that does not own a table gets a warning, not an error: the planner then keeps what it has.
    await sql`ANALYZE ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
  },
};

export interface PostgresOptions {
  /** Schema to work in (tests use one schema each); it is created when missing. */
  schema?: string;
  poolSize?: number;
  /** Read replicas (DATABASE_READ_URLS): a routed request's reads may go there (src/storage/read-routing.ts). */
  readUrls?: readonly string[];
  /** A replica further behind than this is skipped (VITRINE_REPLICA_MAX_LAG_MS; default 2,000). */
  replicaMaxLagMs?: number;
  /** Replaces the look at each replica (tests inject lag with it). */
  replicaProbe?: ReplicaSetOptions['probe'];
}

/** The URL without credentials, for logs, /readyz and the start-up banner. */
function describe(url: string, schema?: string): string {
  const safe = new URL(url);
  return `${safe.protocol}//${safe.username ? `${safe.username}@` : ''}${safe.host}${safe.pathname}${schema ? ` (schema ${schema})` : ''}`;
}

/** A connection pool to `url`, each new connection started with our session settings. */
function openPool(url: string, schema: string | undefined, size: number): pgModule.Pool {
  const connection = new URL(url);
  const urlOptions = connection.searchParams.get('options');
  // Session settings travel as startup options, so a new connection has them before its first query
  // (after the URL's own `options`, which pg would otherwise let override these):
  // - PostgreSQL's default random_page_cost (4) assumes spinning disks and makes the planner scan a
  //   whole table rather than use the search index (GIN) for common words: text search on the 44k
  //   catalog then takes twice as long. 1.1 is the usual setting for SSDs and cached data.
  // - a schema of our own (tests) as the search_path.
  const startupOptions = [urlOptions, '-c random_page_cost=1.1', schema ? `-c search_path=${schema}` : undefined]
    .filter(Boolean)
    .join(' ');
  connection.searchParams.delete('options');
  const pool = new (pgDriver().Pool)({
    connectionString: url.includes('?') ? connection.toString() : url,
    max: size,
    // An unreachable database answers 502 within 2 s, not after a long connect.
    connectionTimeoutMillis: 1_500,
    keepAlive: true,
    options: startupOptions,
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // A connection that dies while a request holds it (the server restarts, a backend is terminated)
  // emits 'error' on its client; unheard, that would end the process. The query in flight fails
  // (502) and the pool replaces the connection.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** The primary's current WAL position: every transaction committed before the call is at or before it. */
async function currentPosition(pool: pgModule.Pool): Promise<bigint> {
  const { rows } = await pool.query<{ position: string }>('SELECT pg_current_wal_lsn()::text AS position');
  return walPosition(rows[0].position) ?? 0n;
}

export function openPostgres(url: string, options: PostgresOptions = {}): StorageHandle {
  // The schema: given, or the first search_path entry of the URL's `options` (`-c search_path=x`), else public.
  const fromUrl = /search_path=([A-Za-z0-9_]+)/.exec(new URL(url).searchParams.get('options') ?? '')?.[1];
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const poolSize = options.poolSize ?? 10;
  const pool = openPool(url, schema, poolSize);
  const readUrls = options.readUrls ?? [];
  const replicas =
    readUrls.length === 0
      ? undefined
      : new ReplicaSet(
          readUrls.map((readUrl) => ({ pool: openPool(readUrl, schema, poolSize), target: describe(readUrl) })),
          {
            maxLagMs: options.replicaMaxLagMs ?? 2_000,
            primaryPosition: () => currentPosition(pool),
            probe: options.replicaProbe,
          },
        );
  // With replicas, a routed request's reads may leave the primary (read-routing.ts); without, the
  // plain driver, and nothing on the query path changes.
  const dialect = new PostgresDialect({ pool });
  if (replicas) {
    const primaryDriver = dialect.createDriver();
    dialect.createDriver = () => new RoutingDriver(primaryDriver, () => replicas.countPrimary());
  }
  const db = withDialect(new Kysely<Database>({ dialect }), postgresDialect);
  const replicaPool = (query: CompiledQuery) =>
    replicas && isReplicaRead(query) ? (currentReadRoute()?.replica ?? undefined) : undefined;
  return {
    db,
    dialect: postgresDialect,
    schema: schema ?? fromUrl ?? 'public',
    readCommitted: async <Row>(query: CompiledQuery<Row>, name?: string) => {
      if (name === undefined || replicaPool(query)) return (await db.executeQuery(query)).rows;
      // Named: each pooled connection parses and plans it once (a fixed set of names, so a bounded
      // number of prepared statements per connection). Run on the pool like Kysely's own queries.
      return (await pool.query({ name, text: query.sql, values: [...query.parameters] })).rows as Row[];
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ...(replicas && { replicas, writePosition: () => currentPosition(pool) }),
    description: describe(url, schema),
    reopen: { url, schema },
    close: async () => {
      await replicas?.close();
      await db.destroy();
    },
  };
}
