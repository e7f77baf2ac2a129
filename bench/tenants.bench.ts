import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContainer, type Container } from '../src/container.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import type { Store } from '../src/modules/stores/store.js';
import { startServe, type ServedVitrine } from '../test/helpers/serve.js';
import { generateCatalog } from './lib/catalog-generator.js';
import { buildQueries, prng } from './lib/search-queries.js';
import { percentile } from './lib/scale-serving.js';
import {
  fmt,
  freshDatabase,
  groupRss,
  processRss,
  machineLine,
  benchEngines,
  readStyles,
  recordSection,
  skipWithoutShared,
  vacuumAnalyzeIfPostgres,
  waitForBackground,
} from './lib/harness.js';

// Many stores in one database (issue 42, item 3): BENCH_TENANTS stores (default 1,000) of
// BENCH_TENANT_PRODUCTS products (default 2,000) each, successive slices of one generated catalog
// (bench/lib/catalog-generator.ts), on both engines:
// - per-store search answers (hits and scores) against the same store alone in a database of its own;
// - the first request to a cold store (a restarted `vitrine serve`, nothing in memory);
// - the process group's RSS while a load generator touches every store, against the configured budgets;
// - `vitrine migrate` and `vitrine backup` at that size.
if (skipWithoutShared('tenants.bench')) process.exit(0);

const STORES = Number(process.env.BENCH_TENANTS ?? 1000);
const PER_STORE = Number(process.env.BENCH_TENANT_PRODUCTS ?? 2000);
const COLD_SAMPLE = Math.min(STORES, 100);
const COMPARED = [0, Math.floor(STORES / 2), STORES - 1];
const rows = readStyles();
const queries = [...new Set(buildQueries(rows, 40, 5).map((q) => q.text))].slice(0, 30);
const SERVE_ENV: Record<string, string> = {
  VITRINE_RATE_LIMIT: '100000000',
  ...JSON.parse(process.env.BENCH_TENANT_ENV ?? '{}'),
};
/** Node's flags for `vitrine serve` (its API processes inherit them), to try V8's memory settings. */
const NODE_ARGS = (process.env.BENCH_TENANT_NODE_ARGS ?? '').split(' ').filter(Boolean);

interface Tenant {
  store: Store;
  token: string;
  /** Two of its product codes (sources for complete the look). */
  codes: string[];
}

/** The products of store `k`: the k-th slice of the generated catalog. */
function* slices(): Generator<Array<Record<string, string>>> {
  let slice: Array<Record<string, string>> = [];
  for (const product of generateCatalog(rows, STORES * PER_STORE, 42)) {
    slice.push(product);
    if (slice.length === PER_STORE) {
      yield slice;
      slice = [];
    }
  }
}

async function load(container: Container, index: number, products: Array<Record<string, string>>): Promise<Tenant> {
  const created = await container.stores.createStore({ workspaceName: `Tenant ${index}`, name: `Store ${index}` });
  const store = await container.stores.getStore(created.store_uuid);
  for (let i = 0; i < products.length; i += 100)
    await container.products.upsertProducts(store, products.slice(i, i + 100));
  return { store, token: created.api_token, codes: [products[1].product_code, products[PER_STORE - 2].product_code] };
}

const call = async (base: string, tenant: Tenant, pathAndQuery: string) => {
  const started = performance.now();
  const response = await fetch(`${base}${pathAndQuery}`, { headers: { authorization: `Bearer ${tenant.token}` } });
  const body = await response.text();
  if (!response.ok) throw new Error(`${pathAndQuery} -> ${response.status} ${body.slice(0, 200)}`);
  const server = Number(/app;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? NaN);
  return { body, ms: performance.now() - started, server };
};

/** The answers of the query list on a store: hits with their scores, as the API gives them. */
async function answers(base: string, tenant: Tenant): Promise<string[]> {
  const out: string[] = [];
  for (const query of queries) {
    const { body } = await call(
      base,
      tenant,
      `/v1/search?store_uuid=${tenant.store.id}&query=${encodeURIComponent(query)}&limit=20`,
    );
    out.push(JSON.stringify((JSON.parse(body) as { data: unknown }).data));
  }
  return out;
}

/** The same store alone in a database of its own, served, and its answers. */
async function aloneAnswers(engine: 'sqlite' | 'postgres', products: Array<Record<string, string>>) {
  const db = await freshDatabase(engine);
  const container = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
  await migrateToLatest(container.storage);
  const tenant = await load(container, 0, products);
  await vacuumAnalyzeIfPostgres(container);
  await container.close();
  const served = await startServe(db.url, SERVE_ENV, [], undefined, NODE_ARGS);
  try {
    await waitForBackground(served.url, 600_000);
    return await answers(served.url, tenant);
  } finally {
    await served.stop();
    await db.drop();
  }
}

/** Runs `work` over every tenant with `concurrency` callers, sampling the group's RSS meanwhile. */
async function touchEveryStore(served: ServedVitrine, tenants: Tenant[], concurrency: number) {
  let next = 0;
  let maxRss = 0;
  const samples: number[] = [];
  maxRss = groupRss(served.process.pid!);
  const sampler = setInterval(() => {
    const rss = groupRss(served.process.pid!);
    samples.push(rss);
    maxRss = Math.max(maxRss, rss);
  }, 1000);
  const times: number[] = [];
  const failures: string[] = [];
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < tenants.length) {
          const tenant = tenants[next++];
          const q = queries[next % queries.length];
          const id = tenant.store.id;
          for (const pathAndQuery of [
            `/v1/search?store_uuid=${id}&query=${encodeURIComponent(q)}&limit=20`,
            `/v1/complementary?store_uuid=${id}&product_code=${encodeURIComponent(tenant.codes[0])}&limit=6`,
            `/v1/products/status?store_uuid=${id}&limit=50`,
            `/v1/similar?store_uuid=${id}&product_code=${encodeURIComponent(tenant.codes[1])}&limit=6`,
          ])
            try {
              times.push((await call(served.url, tenant, pathAndQuery)).server);
            } catch (error) {
              failures.push((error as Error).message.slice(0, 300));
            }
        }
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  times.sort((a, b) => a - b);
  return {
    seconds: (performance.now() - started) / 1000,
    maxRss,
    endRss: groupRss(served.process.pid!),
    maxRssAll: Math.max(maxRss, groupRss(served.process.pid!)),
    failures,
    // The server's own account of what failed (its error lines), for the bench's output.
    errors: served
      .output()
      .split('\n')
      .filter((line) => line.includes('"level":50'))
      .slice(0, 5),
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
  };
}

/** `vitrine backup` of the whole database: SQLite a copy of the file, PostgreSQL pg_dump's custom format. */
function timedBackup(engine: 'sqlite' | 'postgres', databaseUrl: string) {
  const file = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-backup-')),
    engine === 'sqlite' ? 'backup.db' : 'backup.dump',
  );
  try {
    const seconds = cli(databaseUrl, ['backup', file, '--json']);
    return { seconds, mb: fs.statSync(file).size / 1024 / 1024 };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

function cli(databaseUrl: string, args: string[]) {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['bin/vitrine.js', ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`vitrine ${args.join(' ')}: ${result.stderr}`);
  return (performance.now() - started) / 1000;
}

async function runEngine(engine: 'sqlite' | 'postgres') {
  const db = await freshDatabase(engine);
  const container = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
  await migrateToLatest(container.storage);
  const tenants: Tenant[] = [];
  const compared = new Map<number, Array<Record<string, string>>>();
  const loadStarted = performance.now();
  let index = 0;
  for (const products of slices()) {
    if (COMPARED.includes(index)) compared.set(index, products);
    tenants.push(await load(container, index, products));
    if (++index % 100 === 0)
      console.log(
        `tenants.bench: ${engine} ${index} stores loaded, ${fmt((performance.now() - loadStarted) / 1000)} s`,
      );
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  await vacuumAnalyzeIfPostgres(container);
  await container.close();
  try {
    // Indexing: every store's followers from scratch.
    let served = await startServe(db.url, SERVE_ENV, [], undefined, NODE_ARGS);
    const indexSeconds = await waitForBackground(served.url, 3_600_000);
    console.log(`tenants.bench: ${engine} indexed in ${fmt(indexSeconds)} s`);
    const same: boolean[] = [];
    const together = new Map<number, string[]>();
    for (const k of COMPARED) together.set(k, await answers(served.url, tenants[k]));
    await served.stop();

    // Cold stores: a restarted group, the first request of each sampled store.
    served = await startServe(db.url, SERVE_ENV, [], undefined, NODE_ARGS);
    const idleRss = groupRss(served.process.pid!);
    const random = prng(3);
    const cold: Array<{ ms: number; server: number }> = [];
    const sampled = new Set<number>();
    while (sampled.size < COLD_SAMPLE) sampled.add(Math.floor(random() * STORES));
    for (const k of sampled) {
      const tenant = tenants[k];
      cold.push(
        await call(
          served.url,
          tenant,
          `/v1/search?store_uuid=${tenant.store.id}&query=${encodeURIComponent(queries[k % queries.length])}&limit=20`,
        ),
      );
    }
    const coldMs = cold.map((c) => c.ms).sort((a, b) => a - b);
    const slowest = cold
      .map((c, position) => ({ ...c, position }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((c) => `#${c.position + 1} ${fmt(c.ms)} ms (server ${fmt(c.server)} ms)`);
    console.log(`tenants.bench: ${engine} slowest cold searches: ${slowest.join(', ')}`);
    console.log(
      `tenants.bench: ${engine} cold first search p50 ${fmt(percentile(coldMs, 0.5))} ms, p99 ${fmt(percentile(coldMs, 0.99))} ms, max ${fmt(coldMs[coldMs.length - 1])} ms; group RSS at start ${fmt(idleRss)} MB`,
    );
    const touched = await touchEveryStore(served, tenants, 8);
    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    const indexes: string[] = [];
    for (const match of metrics.matchAll(
      /^vitrine_index_memory_bytes\{index="([^"]+)",measure="(bytes|budget|stores)"\} (\S+)/gm,
    ))
      if (match[2] === 'bytes') {
        const budget = new RegExp(`index="${match[1]}",measure="budget"\\} (\\S+)`).exec(metrics)?.[1];
        const stores = new RegExp(`index="${match[1]}",measure="stores"\\} (\\S+)`).exec(metrics)?.[1];
        indexes.push(
          `${match[1]} ${fmt(Number(match[3]) / 1024 / 1024)} of ${fmt(Number(budget) / 1024 / 1024)} MB (${stores} stores)`,
        );
      }
    // Where the group's memory is: the API processes' heaps (used of committed), their buffers, each process's RSS.
    const summed = (name: string) =>
      fmt(Number(new RegExp(`^vitrine_${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN) / 1024 / 1024);
    const memory = `heap ${summed('nodejs_heap_size_used_bytes')} of ${summed('nodejs_heap_size_total_bytes')} MB, external ${summed('nodejs_external_memory_bytes')} MB; RSS by process ${processRss(
      served.process.pid!,
    )
      .map((p) => `${p.role} ${fmt(p.mb)} MB (${p.threads} threads)`)
      .join(', ')}`;
    console.log(`tenants.bench: ${engine} after touching every store: ${memory}`);
    await served.stop();
    console.log(
      `tenants.bench: ${engine} touched every store in ${fmt(touched.seconds)} s, max group RSS ${fmt(touched.maxRssAll)} MB; ${indexes.join('; ')}`,
    );
    if (touched.failures.length > 0)
      console.log(
        `tenants.bench: ${touched.failures.length} failed calls, e.g. ${touched.failures[0]}\n${touched.errors.join('\n')}`,
      );

    for (const k of COMPARED) {
      const alone = await aloneAnswers(engine, compared.get(k)!);
      same.push(JSON.stringify(alone) === JSON.stringify(together.get(k)));
    }
    const migrateSeconds = cli(db.url, ['migrate']);
    const backup = timedBackup(engine, db.url);
    return {
      engine,
      loadSeconds,
      indexSeconds,
      same,
      cold: { p50: percentile(coldMs, 0.5), p99: percentile(coldMs, 0.99), max: coldMs[coldMs.length - 1] },
      idleRss,
      touched,
      migrateSeconds,
      backup,
      indexes,
    };
  } finally {
    await db.drop();
  }
}

const results: Array<Awaited<ReturnType<typeof runEngine>>> = [];
for (const engine of await benchEngines('tenants.bench', 'BENCH_TENANT_ENGINES')) results.push(await runEngine(engine));
const config = loadConfig({});
const budgetMb =
  (config.visualIndexBytes +
    config.complementsIndexBytes +
    config.searchVocabularyBytes +
    config.cardIndexBytes +
    config.searchResultBytes +
    config.listingCacheBytes) /
  1024 /
  1024;
const table = [
  `${fmt(STORES)} stores × ${fmt(PER_STORE)} products (${fmt(STORES * PER_STORE)} in one database; store k holds the k-th slice of the generated catalog), loaded through the product service, indexed by \`vitrine serve\` (its default processes). Answers: ${queries.length} queries on stores ${COMPARED.join(', ')}, compared (hits and scores, as JSON) with the same store alone in a database. Cold: ${COLD_SAMPLE} stores' first search after a restart, end to end. Touch: every store once (search, complete the look, status listing, similar; 8 callers), the group's RSS sampled every second.`,
  '',
  '| engine | load s | indexing s | answers identical | cold first search p50 / p99 / max ms | group RSS at start MB | max while touching every store MB | after MB | touch server-side p50 / p99 ms | touch failures | migrate s | backup s (MB) |',
  '|---|---:|---:|---|---|---:|---:|---:|---|---:|---:|---|',
  ...results.map(
    (r) =>
      `| ${r.engine} | ${fmt(r.loadSeconds)} | ${fmt(r.indexSeconds)} | ${r.same.every(Boolean) ? '**yes**' : `**no** (${r.same.join(', ')})`} | ${fmt(r.cold.p50)} / ${fmt(r.cold.p99)} / **${fmt(r.cold.max)}** | ${fmt(r.idleRss)} | **${fmt(r.touched.maxRssAll)}** | ${fmt(r.touched.endRss)} | ${fmt(r.touched.p50, 2)} / ${fmt(r.touched.p99, 1)} | **${fmt(r.touched.failures.length)}** | ${fmt(r.migrateSeconds, 1)} | ${fmt(r.backup.seconds, 1)} (${fmt(r.backup.mb)}) |`,
  ),
  '',
  ...results.map(
    (r) => `In memory after touching every store (${r.engine}, summed over the processes): ${r.indexes.join('; ')}.`,
  ),
  '',
  `Targets (issue 42): identical answers; a cold store's first request ≤ 200 ms; the group within its budgets (${fmt(budgetMb)} MB of index and cache budgets in all, the sum of VITRINE_*_MB, shared by the API processes, plus each process's own baseline). ${machineLine()}.`,
].join('\n');
console.log(table);
recordSection('Many stores in one database', table);
