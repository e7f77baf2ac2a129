import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type autocannonModule from 'autocannon';
import pg from 'pg';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { CreateStoreInput } from '../../src/modules/stores/stores.service.js';

export const SHARED = path.resolve('../shared');
export const STYLES_CSV = path.join(SHARED, 'datasets/fashion-catalog/styles.csv');
export const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

// The load generator is developer tooling installed under tools/ (`npm ci --prefix tools`, done by `npm run bench`).
const autocannon = createRequire(path.resolve('tools/package.json'))('autocannon') as typeof autocannonModule;

export interface ServerProcess {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * BENCH_PROFILE_DIR set: node flags that make a process (and the API processes `vitrine serve` forks
 * from it) write a CPU profile there when it stops. Node refuses --cpu-prof in NODE_OPTIONS.
 */
export const profilerFlags = (): string[] =>
  process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];

/** Starts `build/bench/servers/<name>.js` in its own process; it prints `READY <port>` when listening. */
export function startServerProcess(name: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const script = path.resolve(`build/bench/servers/${name}.js`);
  // `npm run profile`: Vitrine's servers run under the CPU profiler (the bare route is not of interest).
  const flags = name === 'vitrine' ? profilerFlags() : [];
  const child = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /READY (\d+)/.exec(buffer);
      if (match) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({
          port: Number(match[1]),
          child,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/**
 * The requests taken in turn by all connections together. autocannon gives each connection the list
 * from its start, so in a 10 s run every connection would only reach the first hundred or so entries
 * (the search bench measured its first query family alone: 1.87 ms of server time each against
 * 1.37 ms over all 1,140 queries).
 */
function inTurn(requests: autocannonModule.Request[]): autocannonModule.Request[] {
  let next = 0;
  return [{ setupRequest: (request) => ({ ...request, ...requests[next++ % requests.length] }) }];
}

/** autocannon against one URL; the server runs in another process. */
export async function load(
  url: string,
  options: {
    headers?: Record<string, string>;
    connections?: number;
    seconds?: number;
    /** Spread over the whole run: each request goes to the next connection free, in list order. */
    requests?: autocannonModule.Request[];
  } = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: options.connections ?? 50,
    duration: options.seconds ?? 10,
    headers: options.headers,
    ...(options.requests ? { requests: inTurn(options.requests) } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** A fresh database for one benchmark run: a SQLite file in a temp dir, or a PostgreSQL schema. */
export async function freshDatabase(dialect: 'sqlite' | 'postgres'): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-bench-'));
    return {
      url: `sqlite:${path.join(dir, 'bench.db')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${schema}`);
  return {
    url: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    drop: () => run(`DROP SCHEMA ${schema} CASCADE`),
  };
}

/**
 * The engines a bench runs: those named in `variable` (comma-separated), else both; PostgreSQL only
 * when it is reachable (the bench says its half was skipped).
 */
export async function benchEngines(bench: string, variable: string): Promise<Array<'sqlite' | 'postgres'>> {
  const named = process.env[variable]?.split(',').map((engine) => engine.trim()) ?? ['sqlite', 'postgres'];
  const engines = named.filter(
    (engine): engine is 'sqlite' | 'postgres' => engine === 'sqlite' || engine === 'postgres',
  );
  if (!engines.includes('postgres') || (await postgresAvailable())) return engines;
  console.log(`${bench}: PostgreSQL not reachable, its half SKIPPED`);
  return engines.filter((engine) => engine !== 'postgres');
}

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

export interface CatalogRow {
  id: string;
  gender: string;
  masterCategory: string;
  subCategory: string;
  articleType: string;
  baseColour: string;
  season: string;
  year: string;
  usage: string;
  productDisplayName: string;
}

/**
 * Reads styles.csv as its README says to read every row: split on the first 9 commas, the rest of the
 * line is productDisplayName (22 lines carry unquoted commas there).
 */
export function readStyles(): CatalogRow[] {
  const lines = fs
    .readFileSync(STYLES_CSV, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0);
  const header = lines[0].split(',');
  return lines.slice(1).map((line) => {
    const parts: string[] = [];
    let rest = line;
    for (let i = 0; i < header.length - 1; i++) {
      const comma = rest.indexOf(',');
      parts.push(rest.slice(0, comma));
      rest = rest.slice(comma + 1);
    }
    parts.push(rest);
    return Object.fromEntries(header.map((name, i) => [name, parts[i]])) as unknown as CatalogRow;
  });
}

/** The deterministic price the benchmarks add (styles.csv has none): 5.00 to 204.99 from the id. */
export function deterministicPrice(id: string): string {
  return (5 + ((Number(id) * 7919) % 20000) / 100).toFixed(2);
}

/** A catalog row as a Vitrine product (canonical fields of the default mapping profile). */
export function toProduct(row: CatalogRow): Record<string, string> {
  return {
    product_code: row.id,
    'Product Name': row.productDisplayName,
    Department: row.gender,
    Category: row.articleType,
    'Sub Category': row.subCategory,
    Colour: row.baseColour,
    Season: row.season,
    Usage: row.usage,
    'Selling Price': deterministicPrice(row.id),
    Currency: 'INR',
    'Image URL 1': `https://images.example/${row.id}.jpg`,
  };
}

/** The mapping profile that reads styles.csv's own headers into Vitrine's canonical fields. */
export const STYLES_MAPPING = {
  fields: {
    id: 'product_code',
    productDisplayName: 'Product Name',
    articleType: 'Category',
    gender: 'Department',
    baseColour: 'Colour',
    subCategory: 'Sub Category',
    season: 'Season',
    usage: 'Usage',
  },
  required: [],
};

/**
 * Posts every batch to POST /v1/products from 4 concurrent clients, as an integration would; any
 * failed answer or item stops the run. Returns the products stored (inserted + updated).
 */
export async function ingestBatches(
  base: string,
  storeUuid: string,
  headers: Record<string, string>,
  batches: Array<Record<string, string>[]>,
): Promise<number> {
  let next = 0;
  let stored = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        const res = await fetch(`${base}/v1/products?store_uuid=${storeUuid}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(batch),
        });
        const body = (await res.json()) as { data: { inserted: number; updated: number; failed: number } };
        if (res.status !== 200 || body.data.failed > 0)
          throw new Error(`ingest failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        stored += body.data.inserted + body.data.updated;
      }
    }),
  );
  return stored;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function machineLine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), Node ${process.version}`;
}

/** Replaces (or appends) the section `## <title>` of BENCHMARKS.md. */
export function recordSection(title: string, body: string) {
  // A profiled run (npm run profile) is slowed by the profiler: its figures are not recorded.
  if (process.env.BENCH_PROFILE_DIR) return;
  const file = path.resolve('BENCHMARKS.md');
  const current = fs.existsSync(file)
    ? fs.readFileSync(file, 'utf8')
    : "# Benchmarks\n\nProduced by `npm run bench` on the project's 2-core machine. Each section is rewritten by its benchmark.\n";
  const section = `## ${title}\n\n${body.trim()}\n`;
  const pattern = new RegExp(`## ${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n[\\s\\S]*?(?=\\n## |$)`);
  const next = pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}`;
  fs.writeFileSync(file, next.endsWith('\n') ? next : `${next}\n`);
}

export function skipWithoutShared(name: string): boolean {
  if (fs.existsSync(STYLES_CSV)) return false;
  console.log(`${name}: SKIPPED, ${STYLES_CSV} not found (benchmarks read ../shared/datasets)`);
  return true;
}

/** Gives PostgreSQL's planner statistics after a bulk load, as an operator would (a no-op on SQLite). */
/**
 * What PostgreSQL's autovacuum does after a bulk load, done at once: VACUUM (ANALYZE) of the tables
 * of this bench's schema. The planner gets its statistics, and the visibility map lets index-only
 * scans skip the table. The PostgreSQL of this machine runs with `autovacuum = off`: after ANALYZE
 * alone, every index-only scan still fetched its rows from the table (the collection follower's
 * membership read: 5,641 heap fetches and 178 ms, 14 ms once vacuumed).
 */
export async function vacuumAnalyzeIfPostgres(container: Container) {
  if (container.storage.dialect.name !== 'postgres') return;
  const db = container.storage.db;
  const { rows } = await sql<{
    name: string;
  }>`select quote_ident(tablename) as name from pg_tables where schemaname = current_schema()`.execute(db);
  if (rows.length > 0) await sql.raw(`vacuum (analyze) ${rows.map((row) => row.name).join(', ')}`).execute(db);
}

/** A fresh database with one store holding `products`, written through the product service. */
export async function storeWithProducts(
  engine: 'sqlite' | 'postgres',
  products: Array<Record<string, unknown>>,
  storeInput: Partial<CreateStoreInput> = {},
) {
  const db = await freshDatabase(engine);
  const container = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
  await migrateToLatest(container.storage);
  const created = await container.stores.createStore({ workspaceName: 'Bench', name: 'Bench Store', ...storeInput });
  const store = await container.stores.getStore(created.store_uuid);
  for (let i = 0; i < products.length; i += 100)
    await container.products.upsertProducts(store, products.slice(i, i + 100));
  await vacuumAnalyzeIfPostgres(container);
  return { db, container, created, store };
}

/** The bare Fastify route serving exactly `body`, loaded like the route it is compared with. */
/**
 * Waits until every change-log follower of the server has applied everything (the `vitrine_change_log_lag`
 * gauges of /metrics are all 0), so that a read is measured on a server that is not still indexing the
 * load before it. Returns the seconds it waited.
 */
export async function waitForBackground(base: string, timeoutMs = 300_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const response = await fetch(`${base}/metrics`);
    const text = await response.text();
    const lags = [...text.matchAll(/^vitrine_change_log_lag\{[^}]*\} (\d+)/gm)].map((match) => Number(match[1]));
    // A scrape that failed (a busy process did not answer the primary in time) says nothing.
    if (response.ok && lags.length > 0 && lags.every((lag) => lag === 0)) return (performance.now() - started) / 1000;
    if (performance.now() - started > timeoutMs)
      throw new Error(`background work still behind after ${timeoutMs / 1000} s: ${lags.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function bareRouteWith(body: string, seconds: number): Promise<LoadResult> {
  const bodyFile = path.join(os.tmpdir(), `vitrine-bare-body-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(bodyFile, body);
  const bare = await startServerProcess('bare', { BARE_BODY_FILE: bodyFile });
  try {
    await load(`http://127.0.0.1:${bare.port}/`, { seconds: 2 });
    return await load(`http://127.0.0.1:${bare.port}/`, { seconds });
  } finally {
    await bare.stop();
    fs.rmSync(bodyFile, { force: true });
  }
}

/** A process and every process below it (Linux /proc). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const members = [root];
  for (let i = 0; i < members.length; i++)
    for (const [pid, parent] of parents) if (parent === members[i]) members.push(pid);
  return members;
}

/** RSS in MB of a process and every process below it. */
export function groupRss(root: number): number {
  return processRss(root).reduce((sum, process) => sum + process.mb, 0);
}

/** The RSS in MB and the threads of each process of a group, named by its role in `vitrine serve`. */
export function processRss(root: number): Array<{ pid: number; role: string; mb: number; threads: number }> {
  const rows = [];
  for (const pid of processTree(root)) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      const threads = Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      const index = /(?:^|\0)VITRINE_PROCESS_INDEX=(\d+)/.exec(env)?.[1];
      rows.push({ pid, role: index !== undefined ? `api ${index}` : 'primary', mb: kb / 1024, threads });
    } catch {
      // gone meanwhile
    }
  }
  return rows;
}

/** How many processes a process and those below it are. */
export function countProcesses(root: number): number {
  return processTree(root).length;
}
