import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import {
  bareRouteWith,
  fmt,
  freshDatabase,
  load,
  machineLine,
  recordSection,
  startServerProcess,
} from './lib/harness.js';

// Spine benchmark: authenticated GET /v1/stores against a bare Fastify route serving the same body, same run, same load.
const db = await freshDatabase('sqlite');
const container = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
await migrateToLatest(container.storage);
const store = await container.stores.createStore({
  workspaceName: 'Bench',
  name: 'Bench Store',
  channels: ['web', 'app'],
  countries: ['FR'],
});
await container.close();

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const vitrine = await startServerProcess('vitrine', { DATABASE_URL: db.url, VITRINE_RATE_LIMIT: '100000000' });
try {
  const url = `http://127.0.0.1:${vitrine.port}/v1/stores?store_uuid=${store.store_uuid}`;
  const headers = { authorization: `Bearer ${store.api_token}` };
  const sample = await (await fetch(url, { headers })).text();
  await load(url, { seconds: 2, headers });
  const vitrineResult = await load(url, { seconds, headers });
  if (vitrineResult.non2xx > 0 || vitrineResult.errors > 0)
    throw new Error(`Vitrine answered ${vitrineResult.non2xx} non-2xx and ${vitrineResult.errors} errors`);
  await vitrine.stop();
  // The bare route answers the very body Vitrine answers, so the ratio measures Vitrine's work, not payload size.
  const bareResult = await bareRouteWith(sample, seconds);
  const ratio = vitrineResult.rps / bareResult.rps;
  const table = [
    '| route (50 connections, autocannon in its own process) | req/s | p50 ms | p99 ms |',
    '|---|---:|---:|---:|',
    `| bare Fastify \`GET /\` (the same JSON body, fixed) | ${fmt(bareResult.rps)} | ${bareResult.p50} | ${bareResult.p99} |`,
    `| Vitrine \`GET /v1/stores\` (token lookup, rate limit, store scope, SQLite) | ${fmt(vitrineResult.rps)} | ${vitrineResult.p50} | ${vitrineResult.p99} |`,
    '',
    `Ratio Vitrine / bare: **${fmt(ratio * 100, 1)} %** (target ≥ 50 %). ${seconds} s per route after a 2 s warm-up; LOG_LEVEL=warn; ${machineLine()}.`,
  ].join('\n');
  console.log(table);
  recordSection('Spine: GET /v1/stores vs a bare Fastify route', table);
} finally {
  if (vitrine.child.exitCode === null) await vitrine.stop();
  await db.drop();
}
