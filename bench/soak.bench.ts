import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type autocannonModule from 'autocannon';
import {
  fmt,
  machineLine,
  readStyles,
  recordSection,
  skipWithoutShared,
  startServerProcess,
  storeWithProducts,
  toProduct,
} from './lib/harness.js';
import { buildQueries, prng } from './lib/search-queries.js';

// Soak: the 44k catalog on SQLite, one API process, a mixed load (text search, status listing,
// store details, complete the look, product writes) first at full speed for 10 s to measure
// capacity, then at 80 % of it for BENCH_SOAK_MINUTES (30 for the record; `BENCH_SOAK_MINUTES=2` for a
// quick check), one autocannon run per minute. Per minute: req/s, p50/p99, errors, the server's RSS.
// Passes when RSS after the first minute grows by at most 10 %, p99 stays within 20 % of the first
// minute's (or within 5 ms of it, whichever is larger), and nothing fails.
if (skipWithoutShared('soak.bench')) process.exit(0);
const autocannon = createRequire(path.resolve('tools/package.json'))('autocannon') as typeof autocannonModule;
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 2);

const rows = readStyles();
const products = rows.map((row) => {
  const { 'Image URL 1': _image, ...rest } = toProduct(row);
  return rest;
});
const queries = [...new Set(buildQueries(rows, 60, 5).map((q) => q.text))];

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const { db, container, created } = await storeWithProducts('sqlite', products);
await container.close();
const server = await startServerProcess('vitrine', {
  DATABASE_URL: db.url,
  VITRINE_RATE_LIMIT: '100000000',
  VITRINE_PROCESSES: '1',
});
const headers = { authorization: `Bearer ${created.api_token}`, 'content-type': 'application/json' };
const s = created.store_uuid;
const random = prng(17);
const requests: autocannonModule.Request[] = [];
for (let i = 0; i < 200; i++) {
  const kind = i % 10;
  const code = products[Math.floor(random() * products.length)].product_code;
  if (kind < 5)
    requests.push({
      method: 'GET',
      path: `/v1/search?store_uuid=${s}&query=${encodeURIComponent(queries[i % queries.length])}`,
      headers,
    });
  else if (kind === 5)
    requests.push({
      method: 'GET',
      path: `/v1/products/status?store_uuid=${s}&limit=100&offset=${(i * 37) % 40000}`,
      headers,
    });
  else if (kind === 6) requests.push({ method: 'GET', path: `/v1/stores?store_uuid=${s}`, headers });
  else if (kind === 7)
    requests.push({ method: 'GET', path: `/v1/complementary?store_uuid=${s}&product_code=${code}`, headers });
  else
    requests.push({
      method: 'PUT',
      path: `/v1/products?store_uuid=${s}`,
      headers,
      body: JSON.stringify([{ product_code: code, 'Selling Price': String(10 + (i % 90)) }]),
    });
}

async function run(seconds: number, rate?: number) {
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: 20,
    duration: seconds,
    requests,
    ...(rate ? { overallRate: rate } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

try {
  await run(5); // warm-up: indexes built, caches filled
  const capacity = (await run(10)).rps;
  const rate = Math.round(capacity * 0.8);
  const minutes: Array<{ minute: number; rps: number; p50: number; p99: number; errors: number; rss: number }> = [];
  for (let minute = 1; minute <= MINUTES; minute++) {
    const result = await run(60, rate);
    minutes.push({ minute, ...result, rss: rssMb(server.child.pid!) });
    console.log(
      `minute ${minute}: ${fmt(result.rps)} req/s, p99 ${result.p99} ms, errors ${result.errors}, RSS ${fmt(rssMb(server.child.pid!))} MB`,
    );
  }
  const first = minutes[0];
  const last = minutes[minutes.length - 1];
  const rssGrowth = (Math.max(...minutes.map((m) => m.rss)) - first.rss) / first.rss;
  const worstP99 = Math.max(...minutes.map((m) => m.p99));
  const errors = minutes.reduce((sum, m) => sum + m.errors, 0);
  const p99Ok = worstP99 <= Math.max(first.p99 * 1.2, first.p99 + 5);
  const verdict = rssGrowth <= 0.1 && p99Ok && errors === 0;
  const table = [
    `SQLite, 44k catalog, one API process; mixed load (50 % text search, 10 % status listing, 10 % store details, 10 % complete the look, 20 % single-product writes), 20 connections. Capacity measured at full speed: **${fmt(capacity)} req/s**; soak at 80 % of it (${fmt(rate)} req/s) for ${MINUTES} minute${MINUTES > 1 ? 's' : ''}.`,
    '',
    '| minute | req/s | p50 ms | p99 ms | errors | server RSS MB |',
    '|---:|---:|---:|---:|---:|---:|',
    ...minutes.map((m) => `| ${m.minute} | ${fmt(m.rps)} | ${m.p50} | ${m.p99} | ${m.errors} | ${fmt(m.rss)} |`),
    '',
    `RSS growth after the first minute: **${fmt(rssGrowth * 100, 1)} %** (target ≤ 10 %); worst p99 ${worstP99} ms against ${first.p99} ms in the first minute (target within 20 %); errors **${errors}**. Verdict: **${verdict ? 'pass' : 'FAIL'}**. Last minute ${fmt(last.rps)} req/s. ${machineLine()}.`,
  ].join('\n');
  console.log(table);
  recordSection('Soak: mixed load at 80 % of capacity', table);
} finally {
  await server.stop();
  await db.drop();
}
