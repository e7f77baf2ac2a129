import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import {
  vacuumAnalyzeIfPostgres,
  fmt,
  freshDatabase,
  machineLine,
  postgresAvailable,
  readStyles,
  recordSection,
  skipWithoutShared,
  startServerProcess,
  toProduct,
} from './lib/harness.js';

// Bulk export (issue 16): GET /v1/products/export streamed from a real server process over HTTP,
// for 100k products on both engines and 2M on SQLite (BENCH_EXPORT_BIG=0 skips it): rows/s, the
// server's peak RSS while it streams, the ratio to a bare Fastify route streaming the same bytes
// from a file, and the round trip (the export imported back: every row unchanged).
if (skipWithoutShared('export.bench')) process.exit(0);

const SIZES = [100_000, ...(process.env.BENCH_EXPORT_BIG === '0' ? [] : [2_000_000])];
const rows = readStyles();

/** N products from the real catalog (ids suffixed past 44k), as NDJSON. */
function catalogFile(n: number): string {
  const file = path.join(os.tmpdir(), `vitrine-export-src-${n}.ndjson`);
  if (fs.existsSync(file)) return file;
  const out = fs.openSync(file, 'w');
  let lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const row = rows[i % rows.length];
    const product = toProduct(row);
    product.product_code = `${row.id}-${Math.floor(i / rows.length)}`;
    lines.push(JSON.stringify(product));
    if (lines.length === 10_000) {
      fs.writeSync(out, `${lines.join('\n')}\n`);
      lines = [];
    }
  }
  if (lines.length) fs.writeSync(out, `${lines.join('\n')}\n`);
  fs.closeSync(out);
  return file;
}

function importFile(url: string, store: string, file: string) {
  const child = spawnSync(process.execPath, ['build/bench/servers/import-run.js'], {
    env: { ...process.env, DATABASE_URL: url, BENCH_STORE: store, BENCH_FILE: file },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const match = /RESULT (.*)/.exec(child.stdout);
  if (!match) throw new Error(`import failed: ${child.stderr.slice(-500)}`);
  return JSON.parse(match[1]) as { summary: { rows: number; unchanged: number; seconds: number }; maxRssMb: number };
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Streams one URL to a file, sampling the server's RSS; returns seconds, bytes and the peak. */
async function download(url: string, headers: Record<string, string>, target: string, pid: number) {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 25);
  const started = performance.now();
  const response = await fetch(url, { headers });
  if (!response.ok || !response.body) throw new Error(`export answered ${response.status}`);
  const out = fs.createWriteStream(target);
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  clearInterval(sampler);
  return { seconds: (performance.now() - started) / 1000, bytes, peakRssMb: peak };
}

async function run(engine: 'sqlite' | 'postgres', n: number) {
  const db = await freshDatabase(engine);
  try {
    const setup = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
    await migrateToLatest(setup.storage);
    const created = await setup.stores.createStore({ workspaceName: 'Bench', name: 'Bench' });
    await setup.close();
    const loaded = importFile(db.url, created.store_uuid, catalogFile(n));
    // What autovacuum does after a bulk load on PostgreSQL (statistics, visibility map).
    if (engine === 'postgres') {
      const analyze = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
      await vacuumAnalyzeIfPostgres(analyze);
      await analyze.close();
    }
    // Only the API: the background followers would otherwise index the fresh catalog meanwhile.
    const server = await startServerProcess('vitrine', { DATABASE_URL: db.url, VITRINE_BENCH_NO_WORKERS: '1' });
    const exported = path.join(os.tmpdir(), `vitrine-export-${engine}-${n}.ndjson`);
    try {
      const baseline = rssMb(server.child.pid!);
      const http = await download(
        `http://127.0.0.1:${server.port}/v1/products/export?store_uuid=${created.store_uuid}`,
        { authorization: `Bearer ${created.api_token}` },
        exported,
        server.child.pid!,
      );
      const csv = await download(
        `http://127.0.0.1:${server.port}/v1/products/export?store_uuid=${created.store_uuid}&format=csv`,
        { authorization: `Bearer ${created.api_token}` },
        `${exported}.csv`,
        server.child.pid!,
      );
      await server.stop();
      const bare = await startServerProcess('bare', { BARE_STREAM_FILE: exported });
      const ceiling = await download(`http://127.0.0.1:${bare.port}/stream`, {}, `${exported}.bare`, bare.child.pid!);
      await bare.stop();
      const back = importFile(db.url, created.store_uuid, exported);
      return { engine, n, loaded, baseline, http, csv, ceiling, back };
    } finally {
      await server.stop();
      for (const f of [exported, `${exported}.csv`, `${exported}.bare`]) fs.rmSync(f, { force: true });
    }
  } finally {
    await db.drop();
  }
}

// BENCH_ENGINE=sqlite|postgres runs one engine.
const engines = (
  ['sqlite', ...((await postgresAvailable()) ? ['postgres'] : [])] as Array<'sqlite' | 'postgres'>
).filter((engine) => !process.env.BENCH_ENGINE || process.env.BENCH_ENGINE === engine);
const results = [];
for (const engine of engines)
  for (const n of SIZES) {
    if (engine === 'postgres' && n > 100_000 && process.env.BENCH_EXPORT_BIG_PG !== '1') continue;
    const result = await run(engine, n);
    console.log(JSON.stringify({ ...result, loaded: undefined }));
    results.push(result);
  }

const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}. \`npm run bench export\`: the products are loaded`,
  'from the real styles.csv (repeated with suffixed ids), then `GET /v1/products/export` is read over HTTP from a',
  '`vitrine serve` process; its RSS is sampled every 25 ms. The bare route streams the same NDJSON bytes from a file.',
  '',
  '| engine | products | NDJSON rows/s | MB/s (bare route) | ratio | CSV rows/s | server RSS before → peak | export → import back |',
  '|---|---:|---:|---:|---:|---:|---:|---|',
  ...results.map((r) => {
    const mbs = (x: { bytes: number; seconds: number }) => x.bytes / 1024 / 1024 / x.seconds;
    return `| ${r.engine} | ${fmt(r.n)} | ${fmt(r.n / r.http.seconds)} | ${fmt(mbs(r.http), 1)} (${fmt(mbs(r.ceiling), 1)}) | ${fmt((mbs(r.http) / mbs(r.ceiling)) * 100)} % | ${fmt(r.n / r.csv.seconds)} | ${r.baseline} → ${Math.max(r.http.peakRssMb, r.csv.peakRssMb)} MB | ${fmt(r.back.summary.unchanged)} of ${fmt(r.back.summary.rows)} unchanged in ${r.back.summary.seconds} s |`;
  }),
];
recordSection('Bulk export', lines.join('\n'));
console.log(lines.join('\n'));
