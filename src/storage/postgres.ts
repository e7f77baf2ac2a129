import { createRequire } from 'node:module';
import type pgModule from 'pg';
import { Kysely, PostgresDialect, sql, type CompiledQuery, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { StorageDialect, StorageHandle } from './dialect.js';
import { withDialect } from './dialect.js';

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
};

export interface PostgresOptions {
  /** Schema to work in (tests use one schema each); it is created when missing. */
  schema?: string;
  poolSize?: number;
}

export function openPostgres(url: string, options: PostgresOptions = {}): StorageHandle {
  // The schema: given, or the first search_path entry of the URL's `options` (`-c search_path=x`), else public.
  const connection = new URL(url);
  const urlOptions = connection.searchParams.get('options');
  const fromUrl = /search_path=([A-Za-z0-9_]+)/.exec(urlOptions ?? '')?.[1];
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
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
    max: options.poolSize ?? 10,
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
  const db = withDialect(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), postgresDialect);
  const safe = new URL(url);
  safe.password = '';
  return {
    db,
    dialect: postgresDialect,
    schema: schema ?? fromUrl ?? 'public',
    readCommitted: async <Row>(query: CompiledQuery<Row>, name?: string) =>
      name === undefined
        ? (await db.executeQuery(query)).rows
        : // Named: each pooled connection parses and plans it once (a fixed set of names, so a bounded
          // number of prepared statements per connection). Run on the pool like Kysely's own queries.
          ((await pool.query({ name, text: query.sql, values: [...query.parameters] })).rows as Row[]),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    description: `${safe.protocol}//${safe.username ? `${safe.username}@` : ''}${safe.host}${safe.pathname}${schema ? ` (schema ${schema})` : ''}`,
    close: () => db.destroy(),
  };
}
