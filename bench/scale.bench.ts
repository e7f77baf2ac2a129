import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { generateCatalog } from './lib/catalog-generator.js';
import {
  fmt,
  freshDatabase,
  machineLine,
  postgresAvailable,
  readStyles,
  recordSection,
  skipWithoutShared,
} from './lib/harness.js';

// A million products in one store (issue 42), first part: `vitrine import` of a generated catalog
// (bench/lib/catalog-generator.ts) of 44k and of BENCH_SCALE_PRODUCTS (default 1,000,000) rows into
// stores of the same database, on both engines: rows/s at each size and the importing process's RSS
// every 100,000 rows (memory must stay flat). Queries at 1M come next.
if (skipWithoutShared('scale.bench')) process.exit(0);

const BIG = Number(process.env.BENCH_SCALE_PRODUCTS ?? 1_000_000);
const SMALL = 44_446;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-scale-'));
const rows = readStyles();

async function writeCatalog(count: number): Promise<string> {
  const file = path.join(dir, `catalog-${count}.ndjson`);
  const stream = fs.createWriteStream(file);
  for (const product of generateCatalog(rows, count, 42))
    if (!stream.write(`${JSON.stringify(product)}\n`))
      await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  await new Promise<void>((resolve) => stream.end(() => resolve()));
  return file;
}

/** The resident memory of a process, in MB (Linux /proc; 0 elsewhere). */
function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

interface ImportRun {
  rows: number;
  seconds: number;
  /** RSS (MB) at the first progress line past each 100,000 rows. */
  rss: number[];
  maxRss: number;
}

/** `vitrine import FILE --json` as an operator runs it, sampling its RSS as its progress lines come. */
function importFile(databaseUrl: string, store: string, file: string): Promise<ImportRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/vitrine.js', 'import', '--store', store, file, '--json'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const rss: number[] = [];
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssOf(child.pid!))), 250);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const match of chunk.toString().matchAll(/importing: (\d+) rows/g))
        while (Number(match[1]) >= (rss.length + 1) * 100_000) rss.push(Math.round(rssOf(child.pid!)));
    });
    child.once('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`import failed (${code}): ${stderr.slice(-500)}`));
      const summary = JSON.parse(stdout) as { rows: number; seconds: number; failed: number };
      if (summary.failed > 0) return reject(new Error(`${summary.failed} rows failed`));
      resolve({ rows: summary.rows, seconds: summary.seconds, rss, maxRss: Math.round(maxRss) });
    });
  });
}

async function runEngine(engine: 'sqlite' | 'postgres', small: string, big: string) {
  const db = await freshDatabase(engine);
  const setup = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
  await migrateToLatest(setup.storage);
  const [a, b] = [
    await setup.stores.createStore({ workspaceName: 'Scale', name: '44k' }),
    await setup.stores.createStore({ workspaceName: 'Scale', name: 'big' }),
  ];
  await setup.close();
  try {
    const at44k = await importFile(db.url, a.store_uuid, small);
    const atBig = await importFile(db.url, b.store_uuid, big);
    return { engine, at44k, atBig };
  } finally {
    await db.drop();
  }
}

try {
  const small = await writeCatalog(SMALL);
  const big = await writeCatalog(BIG);
  const results = [await runEngine('sqlite', small, big)];
  if (await postgresAvailable()) results.push(await runEngine('postgres', small, big));
  else console.log('scale.bench: PostgreSQL not reachable, its half SKIPPED');
  const rate = (run: ImportRun) => run.rows / run.seconds;
  const table = [
    `\`vitrine import\` of a generated catalog (bench/lib/catalog-generator.ts, seed 42: families of colourways and sizes grown from the real 44k rows) into an empty store: ${fmt(SMALL)} rows, then ${fmt(BIG)} rows into a second store of the same database. RSS of the importing process at each 100,000 rows (the first progress line past it).`,
    '',
    `| engine | 44k rows/s | ${fmt(BIG / 1000)}k rows/s | ${fmt(BIG / 1000)}k / 44k | 44k max RSS MB | ${fmt(BIG / 1000)}k max RSS MB | RSS every 100k rows (MB) |`,
    '|---|---:|---:|---:|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${fmt(rate(r.at44k))} | ${fmt(rate(r.atBig))} | **${fmt((100 * rate(r.atBig)) / rate(r.at44k))} %** | ${r.at44k.maxRss} | ${r.atBig.maxRss} | ${r.atBig.rss.join(', ')} |`,
    ),
    '',
    `Target (issue 42): the 1M import at ≥ 80 % of the 44k rows/s of the same run, memory flat. ${machineLine()}.`,
  ].join('\n');
  console.log(table);
  recordSection('Scale: a million products (import)', table);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
