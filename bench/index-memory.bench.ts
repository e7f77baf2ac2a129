import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { openCacheStats } from '../src/storage/bounded-cache.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { generateCatalog } from './lib/catalog-generator.js';
import { buildQueries } from './lib/search-queries.js';
import { fmt, machineLine, readStyles, recordSection, skipWithoutShared, waitForBackground } from './lib/harness.js';

// What the in-memory indexes of many small stores cost, against what the index budgets count for them
// (issue 42, item 3: the group's RSS within the configured budgets). One process, one SQLite file of
// BENCH_INDEX_MEMORY_STORES stores (default 40) × 2,000 generated products; after the background work
// has indexed them, each phase calls one endpoint on every store, and the heap grown by the phase (after a
// full garbage collection) is set beside what the budgets' estimates grew by (openCacheStats).
if (skipWithoutShared('index-memory.bench')) process.exit(0);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const STORES = Number(process.env.BENCH_INDEX_MEMORY_STORES ?? 40);
const PER_STORE = 2000;
const rows = readStyles();
const queries = [...new Set(buildQueries(rows, 40, 5).map((q) => q.text))];

function heapNow() {
  for (let i = 0; i < 3; i++) gc();
  const usage = process.memoryUsage();
  return {
    heap: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external + usage.arrayBuffers,
    rss: usage.rss,
  };
}

function estimates(): Map<string, number> {
  return new Map(openCacheStats().map((stats) => [stats.name, stats.bytes]));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-index-memory-'));
// The environment's budgets (VITRINE_*_MB) apply, to see what a budget changes.
const config = loadConfig(process.env, {
  logLevel: 'silent',
  dataDir: dir,
  databaseUrl: `sqlite://${path.join(dir, 'vitrine.db')}`,
  rateLimitPerMinute: 100_000_000,
});
const container = createContainer(config);
await migrateToLatest(container.storage);
const tenants: Array<{ id: string; token: string; codes: string[] }> = [];
let slice: Array<Record<string, string>> = [];
for (const product of generateCatalog(rows, STORES * PER_STORE, 42)) {
  slice.push(product);
  if (slice.length < PER_STORE) continue;
  const created = await container.stores.createStore({ workspaceName: `T ${tenants.length}`, name: 'S' });
  const store = await container.stores.getStore(created.store_uuid);
  for (let i = 0; i < slice.length; i += 100) await container.products.upsertProducts(store, slice.slice(i, i + 100));
  tenants.push({
    id: store.id,
    token: created.api_token,
    codes: [slice[1].product_code, slice[PER_STORE - 2].product_code],
  });
  slice = [];
}
const app = await buildApp(container, { logger: false });
// On a port of its own for the wait: the followers catch up with the load (the gauge the other benches wait on).
await app.listen({ port: 0, host: '127.0.0.1' });
await container.workers.start('api', { offload: true }, () => {});
await waitForBackground(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);

const phases: Array<{ name: string; url: (t: (typeof tenants)[number], k: number) => string }> = [
  {
    name: 'search',
    url: (t, k) => `/v1/search?store_uuid=${t.id}&query=${encodeURIComponent(queries[k % queries.length])}&limit=20`,
  },
  {
    name: 'search, second query',
    url: (t, k) =>
      `/v1/search?store_uuid=${t.id}&query=${encodeURIComponent(queries[(k + 7) % queries.length])}&limit=20`,
  },
  {
    name: 'complete the look',
    url: (t) => `/v1/complementary?store_uuid=${t.id}&product_code=${encodeURIComponent(t.codes[0])}&limit=6`,
  },
  { name: 'status listing', url: (t) => `/v1/products/status?store_uuid=${t.id}&limit=50` },
  {
    name: 'similar',
    url: (t) => `/v1/similar?store_uuid=${t.id}&product_code=${encodeURIComponent(t.codes[1])}&limit=6`,
  },
  { name: 'storefront listing', url: (t) => `/v1/products?store_uuid=${t.id}&limit=24` },
];

const lines: string[] = [];
let before = heapNow();
let estimatedBefore = estimates();
for (const phase of phases) {
  for (let k = 0; k < tenants.length; k++) {
    const t = tenants[k];
    const res = await app.inject({
      method: 'GET',
      url: phase.url(t, k),
      headers: { authorization: `Bearer ${t.token}` },
    });
    if (res.statusCode !== 200) throw new Error(`${phase.url(t, k)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  const after = heapNow();
  const estimatedAfter = estimates();
  const grown = [...estimatedAfter]
    .map(([name, bytes]) => [name, bytes - (estimatedBefore.get(name) ?? 0)] as const)
    .filter(([, bytes]) => bytes !== 0);
  const estimated = grown.reduce((sum, [, bytes]) => sum + bytes, 0);
  const measured = after.heap + after.external - before.heap - before.external;
  const perStore = (bytes: number) => fmt(bytes / tenants.length / 1024);
  lines.push(
    `| ${phase.name} | ${perStore(after.heap - before.heap)} | ${perStore(after.external - before.external)} | ${perStore(estimated)} | ${estimated >= 10 * 1024 * tenants.length ? fmt(measured / estimated, 2) : '–'} | ${grown.map(([name, bytes]) => `${name} ${perStore(bytes)}`).join(', ') || '–'} | ${fmt((after.rss - before.rss) / tenants.length / 1024)} |`,
  );
  console.log(
    `index-memory.bench: ${lines.at(-1)} (process: heap ${fmt(after.heap / 2 ** 20)} of ${fmt(after.heapTotal / 2 ** 20)} MB, external ${fmt(after.external / 2 ** 20)} MB, RSS ${fmt(after.rss / 2 ** 20)} MB)`,
  );
  before = after;
  estimatedBefore = estimatedAfter;
}
await app.close();
await container.close();
fs.rmSync(dir, { recursive: true, force: true });

recordSection(
  'Index memory of small stores',
  [
    `\`npm run bench -- index-memory\` (bench/index-memory.bench.ts): ${fmt(STORES)} stores × ${fmt(PER_STORE)} generated products in one`,
    'SQLite file, one process. Each phase calls one endpoint on every store; the heap it grew by (after a full',
    'garbage collection) beside what the index budgets counted for it (their estimates, `openCacheStats`; the ratio where they count 10 KB a store or more). KB per store.',
    '',
    '| phase | heap KB | external KB | estimated KB | measured / estimated | estimates grown | RSS KB |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...lines,
    '',
    machineLine(),
  ].join('\n'),
);
