import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import {
  bareRouteWith,
  fmt,
  freshDatabase,
  load,
  machineLine,
  postgresAvailable,
  recordSection,
  startServerProcess,
} from './lib/harness.js';

// Spine benchmark: authenticated GET /v1/stores against a bare Fastify route serving the same body, same
// run, same load; on SQLite (the ratio's target) and, when it is reachable, PostgreSQL.
const seconds = Number(process.env.BENCH_SECONDS ?? 10);

async function measure(engine: 'sqlite' | 'postgres') {
  const db = await freshDatabase(engine);
  const container = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
  await migrateToLatest(container.storage);
  const store = await container.stores.createStore({
    workspaceName: 'Bench',
    name: 'Bench Store',
    channels: ['web', 'app'],
    countries: ['FR'],
  });
  await container.close();
  const vitrine = await startServerProcess('vitrine', { DATABASE_URL: db.url, VITRINE_RATE_LIMIT: '100000000' });
  try {
    const url = `http://127.0.0.1:${vitrine.port}/v1/stores?store_uuid=${store.store_uuid}`;
    const headers = { authorization: `Bearer ${store.api_token}` };
    const sample = await (await fetch(url, { headers })).text();
    await load(url, { seconds: 2, headers });
    const result = await load(url, { seconds, headers });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`Vitrine answered ${result.non2xx} non-2xx and ${result.errors} errors`);
    return { engine, result, sample };
  } finally {
    await vitrine.stop();
    await db.drop();
  }
}

const sqlite = await measure('sqlite');
const postgres = (await postgresAvailable()) ? await measure('postgres') : undefined;
if (!postgres) console.log('stores.bench: PostgreSQL not reachable, its row SKIPPED');
// The bare route answers the very body Vitrine answers, so the ratio measures Vitrine's work, not payload size.
const bareResult = await bareRouteWith(sqlite.sample, seconds);
const ratio = sqlite.result.rps / bareResult.rps;
const row = (label: string, r: { rps: number; p50: number; p99: number }) =>
  `| ${label} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${fmt((r.rps / bareResult.rps) * 100, 1)} % |`;
const table = [
  '| route (50 connections, autocannon in its own process) | req/s | p50 ms | p99 ms | / bare |',
  '|---|---:|---:|---:|---:|',
  row('bare Fastify `GET /` (the same JSON body, fixed)', bareResult),
  row('Vitrine `GET /v1/stores` (token lookup, rate limit, store scope), SQLite', sqlite.result),
  ...(postgres ? [row('the same on PostgreSQL (on the same two cores)', postgres.result)] : []),
  '',
  `Ratio Vitrine / bare on SQLite: **${fmt(ratio * 100, 1)} %** (target ≥ 50 %). ${seconds} s per route after a 2 s warm-up; LOG_LEVEL=warn; ${machineLine()}.`,
].join('\n');
console.log(table);
recordSection('Spine: GET /v1/stores vs a bare Fastify route', table);
