import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { generateCatalog } from './lib/catalog-generator.js';
import { startServe, type ServedVitrine } from '../test/helpers/serve.js';
import {
  aPhoto,
  percentile,
  requestMix,
  synthesiseVectors,
  timeCalls,
  warmUntilSteady,
  type Timed,
} from './lib/scale-serving.js';
import {
  fmt,
  freshDatabase,
  machineLine,
  benchEngines,
  groupRss,
  processRss,
  profilerFlags,
  readStyles,
  recordSection,
  skipWithoutShared,
  vacuumAnalyzeIfPostgres,
} from './lib/harness.js';

// A million products in one store (issue 42), on both engines, 44k and BENCH_SCALE_PRODUCTS (default
// 1,000,000) rows of a generated catalog (bench/lib/catalog-generator.ts) in two stores of one database:
// - `vitrine import`: rows/s at each size and the importing process's RSS every 100,000 rows;
// - `vitrine serve` (its default processes) started after each import: the time until every index of
//   the store has applied it (GET /v1/stores › indexes), the group's RSS, and what a shopper and a
//   merchandiser call timed server-side (Server-Timing) at 44k and at 1M;
// - a restart on the 1M database: the time to the first right answer of search, complete the look and
//   search by photo, and the RSS after warm-up.
// Photos: every colourway's photo URL gets a synthetic vector before the server starts (scale-serving.ts).
if (skipWithoutShared('scale.bench')) process.exit(0);

const BIG = Number(process.env.BENCH_SCALE_PRODUCTS ?? 1_000_000);
const SMALL = 44_446;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-scale-'));
const rows = readStyles();

interface Catalog {
  file: string;
  count: number;
  /** Every 97th product code (the sources of complete the look and similar). */
  codes: string[];
  photoUrls: Set<string>;
}

async function writeCatalog(count: number): Promise<Catalog> {
  const file = path.join(dir, `catalog-${count}.ndjson`);
  const stream = fs.createWriteStream(file);
  const codes: string[] = [];
  const photoUrls = new Set<string>();
  let i = 0;
  for (const product of generateCatalog(rows, count, 42)) {
    if (i++ % 97 === 0) codes.push(product.product_code);
    photoUrls.add(product['Image URL 1']);
    if (!stream.write(`${JSON.stringify(product)}\n`))
      await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => stream.end(() => resolve()));
  return { file, count, codes, photoUrls };
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SERVE_ENV: Record<string, string> = { VITRINE_RATE_LIMIT: '100000000' };
// BENCH_PROFILE_DIR: every process of `vitrine serve` writes a CPU profile there when it stops.
const serve = (databaseUrl: string) => startServe(databaseUrl, SERVE_ENV, [], undefined, profilerFlags());
const CALLS = Number(process.env.BENCH_SCALE_CALLS ?? 200);
const photo = aPhoto(rows);

interface StoreAccess {
  store_uuid: string;
  api_token: string;
}

async function get(base: string, store: StoreAccess, pathAndQuery: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${pathAndQuery}`, { headers: { authorization: `Bearer ${store.api_token}` } });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (an export)
  }
  return { status: response.status, body };
}

/** Seconds until every index of the store has applied what was written (GET /v1/stores › indexes). */
async function untilCaughtUp(base: string, store: StoreAccess, timeoutMs = 3_600_000): Promise<number> {
  const started = performance.now();
  let reported = 0;
  for (;;) {
    const { status, body } = await get(base, store, `/v1/stores?store_uuid=${store.store_uuid}`);
    if (status === 200 && body.data.indexes?.caught_up) return (performance.now() - started) / 1000;
    if (Math.floor((performance.now() - started) / 30_000) > reported) {
      reported++;
      console.log(`scale.bench: waiting for the indexes: ${JSON.stringify(body.data?.indexes ?? body)}`);
    }
    if (performance.now() - started > timeoutMs)
      throw new Error(`store not caught up after ${timeoutMs / 1000} s: ${JSON.stringify(body.data?.indexes)}`);
    await sleep(500);
  }
}

const COLLECTION = 'scale-women';

interface StoreFigures {
  catchUpSeconds: number;
  timed: Record<string, Timed>;
  exportRowsPerSecond: number;
  rssMb: number;
  /** Calls the process that took them forwarded to the one serving the store (a large store's), and all calls. */
  forwarded: { calls: number; of: number };
}

/** p50 / p99 of what forwarding added to the forwarded calls of every family ('–' when none was forwarded). */
function hopFigures(timed: Record<string, Timed>): string {
  const hops = Object.values(timed)
    .flatMap((t) => t.hops)
    .sort((a, b) => a - b);
  return hops.length === 0 ? '–' : `${ms(percentile(hops, 0.5))} / ${ms(percentile(hops, 0.99))}`;
}

/** `vitrine_forwarded_calls` from /metrics (0 when forwarding is off). */
async function forwardedCalls(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^vitrine_forwarded_calls (\d+)/m.exec(text)?.[1] ?? 0);
}

const FAMILIES = [
  'search',
  'filteredFaceted',
  'browse',
  'suggest',
  'statusDeep',
  'statusKeyset',
  'collectionPage',
  'complete',
  'similar',
  'photo',
] as const;
const LABELS: Record<(typeof FAMILIES)[number], string> = {
  search: 'text search',
  filteredFaceted: 'search + 2 filters + 3 facets',
  browse: 'browse the catalog, 4 facets',
  suggest: 'suggestions',
  statusDeep: 'status listing, deep offsets',
  statusKeyset: 'status listing, keyset (`after`)',
  collectionPage: 'collection page (Women)',
  complete: 'complete the look',
  similar: '/v1/similar',
  photo: 'search by photo',
};

/** The calls of one store, timed server-side, with its export and the group's RSS after them. */
async function measureStore(served: ServedVitrine, store: StoreAccess, catalog: Catalog): Promise<StoreFigures> {
  const base = served.url;
  const started = performance.now();
  const catchUpSeconds = await untilCaughtUp(base, store);
  console.log(`scale.bench: ${fmt(catalog.count)} caught up ${fmt(catchUpSeconds, 1)} s after start`);
  const created = await fetch(`${base}/v1/collection?store_uuid=${store.store_uuid}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${store.api_token}`, 'content-type': 'application/json' },
    body: JSON.stringify([{ id: COLLECTION, name: 'Women', filters: { Department: 'Women' } }]),
  });
  if (!created.ok) throw new Error(`collection: ${created.status} ${await created.text()}`);
  await untilCaughtUp(base, store);
  const mix = requestMix(rows, catalog.codes, store.store_uuid, COLLECTION);
  const timed: Record<string, Timed> = {};
  const forwardedBefore = await forwardedCalls(base);
  let calls = 0;
  const time = (name: string, next: Parameters<typeof timeCalls>[3], count = CALLS) =>
    timeCalls(base, store.api_token, count, next).then((result) => {
      calls += count + 10; // the unmeasured ones too
      timed[name] = result;
    });
  // Text search once the builds that follow the server's start are done (how long that took, logged).
  const warm = await warmUntilSteady(base, store.api_token, mix.search);
  console.log(
    `scale.bench: ${fmt(catalog.count)} text search ${warm.steady ? 'steady after' : 'not steady within'} ${fmt(warm.seconds, 1)} s of searches`,
  );
  await time('search', mix.search);
  await time('filteredFaceted', mix.filteredFaceted);
  await time('browse', mix.browse);
  await time('suggest', mix.suggest);
  await time('statusDeep', mix.statusDeep(catalog.count));
  await time('statusKeyset', mix.statusKeyset);
  await time('collectionPage', mix.collectionPage);
  await time('complete', mix.complete);
  await time('similar', mix.similar);
  if (photo)
    await time(
      'photo',
      () => ({
        path: `/v1/visual-search?store_uuid=${store.store_uuid}&limit=20`,
        method: 'POST',
        form: () => {
          const form = new FormData();
          form.append('image', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'query.jpg');
          return form;
        },
      }),
      Math.min(CALLS, 50),
    );
  const exportStarted = performance.now();
  const exported = await get(base, store, `/v1/products/export?store_uuid=${store.store_uuid}&format=ndjson`);
  const exportedRows = String(exported.body).split('\n').filter(Boolean).length;
  const exportRowsPerSecond = exportedRows / ((performance.now() - exportStarted) / 1000);
  console.log(
    `scale.bench: ${fmt(catalog.count)} measured in ${fmt((performance.now() - started) / 1000, 1)} s, export ${fmt(exportedRows)} rows`,
  );
  const forwarded = { calls: (await forwardedCalls(base)) - forwardedBefore, of: calls };
  return { catchUpSeconds, timed, exportRowsPerSecond, rssMb: groupRss(served.process.pid!), forwarded };
}

interface Restart {
  /** Seconds from the start command to the first right answer. */
  search: number;
  complete: number;
  photo: number | undefined;
  rssMb: number;
  /** Each process's RSS, by its role. */
  byProcess: string;
  /** Estimated MB of each kind of in-memory index, summed over the processes. */
  indexMb: Record<string, number>;
}

/** `vitrine serve` started again on the database: when each kind of call first answers right, then the RSS after a round of calls. */
async function restart(databaseUrl: string, store: StoreAccess, catalog: Catalog): Promise<Restart> {
  const started = performance.now();
  const served = await serve(databaseUrl);
  try {
    const until = async (ok: () => Promise<boolean>) => {
      while (!(await ok().catch(() => false))) await sleep(100);
      return (performance.now() - started) / 1000;
    };
    const search = await until(async () => {
      const { status, body } = await get(served.url, store, `/v1/search?store_uuid=${store.store_uuid}&query=shirts`);
      return status === 200 && body.data.length > 0;
    });
    const complete = await until(async () => {
      const { status, body } = await get(
        served.url,
        store,
        `/v1/complementary?store_uuid=${store.store_uuid}&product_code=${encodeURIComponent(catalog.codes[1])}`,
      );
      return status === 200 && body.data.categories.length > 0;
    });
    const photoSeconds = photo
      ? await until(async () => {
          const form = new FormData();
          form.append('image', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'query.jpg');
          const response = await fetch(`${served.url}/v1/visual-search?store_uuid=${store.store_uuid}&limit=5`, {
            method: 'POST',
            headers: { authorization: `Bearer ${store.api_token}` },
            body: form,
          });
          return response.ok && ((await response.json()) as { data: unknown[] }).data.length > 0;
        })
      : undefined;
    // Warm-up: the whole mix once, a few calls each, a connection per call so that every process serves
    // some of each (and builds what it serves, as behind a load balancer), then idle.
    const mix = requestMix(rows, catalog.codes, store.store_uuid, COLLECTION);
    for (const next of [
      mix.search,
      mix.filteredFaceted,
      mix.browse,
      mix.suggest,
      mix.collectionPage,
      mix.complete,
      mix.similar,
    ])
      await timeCalls(served.url, store.api_token, 20, next, 0, true);
    await sleep(10_000);
    // What the in-memory indexes estimate they hold, summed over the processes (/metrics).
    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    const indexMb: Record<string, number> = {};
    for (const match of metrics.matchAll(/^vitrine_index_memory_bytes\{index="([^"]+)",measure="bytes"\} (\S+)/gm))
      indexMb[match[1]] = Number(match[2]) / 1024 / 1024;
    const byProcess = processRss(served.process.pid!)
      .map((p) => `${p.role} ${fmt(p.mb)}`)
      .join(', ');
    return { search, complete, photo: photoSeconds, rssMb: groupRss(served.process.pid!), byProcess, indexMb };
  } finally {
    await served.stop();
  }
}

/** The database's size on disk in MB: the SQLite file and its log, or the PostgreSQL schema's relations. */
async function databaseSize(container: ReturnType<typeof createContainer>, url: string): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const size = (name: string) => (fs.existsSync(name) ? fs.statSync(name).size : 0);
    return (size(file) + size(`${file}-wal`)) / 1024 / 1024;
  }
  const { rows } = await sql<{ bytes: number }>`SELECT sum(pg_total_relation_size(c.oid))::float8 AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')`.execute(container.storage.db);
  return Number(rows[0].bytes) / 1024 / 1024;
}

async function runEngine(engine: 'sqlite' | 'postgres', small: Catalog, big: Catalog) {
  const db = await freshDatabase(engine);
  const setup = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
  await migrateToLatest(setup.storage);
  const stores = [
    await setup.stores.createStore({ workspaceName: 'Scale', name: '44k' }),
    await setup.stores.createStore({ workspaceName: 'Scale', name: 'big' }),
  ];
  try {
    const phases = [];
    for (const [store, catalog] of [
      [stores[0], small],
      [stores[1], big],
    ] as const) {
      const imported = await importFile(db.url, store.store_uuid, catalog.file);
      console.log(
        `scale.bench: ${engine} ${fmt(catalog.count)} imported at ${fmt(imported.rows / imported.seconds)} rows/s`,
      );
      await synthesiseVectors(setup, store.store_uuid, catalog.photoUrls);
      // What autovacuum would have done (it is off on this machine's PostgreSQL).
      await vacuumAnalyzeIfPostgres(setup);
      const served = await serve(db.url);
      try {
        phases.push({ imported, served: await measureStore(served, store, catalog) });
      } finally {
        await served.stop();
      }
    }
    const restarted = await restart(db.url, stores[1], big);
    const databaseMb = await databaseSize(setup, db.url);
    return {
      databaseMb,
      engine,
      at44k: phases[0].imported,
      atBig: phases[1].imported,
      small: phases[0].served,
      big: phases[1].served,
      restarted,
    };
  } finally {
    await setup.close();
    await db.drop();
  }
}

const ms = (n: number) => (Number.isFinite(n) ? fmt(n, n < 10 ? 2 : 1) : '–');

try {
  const small = await writeCatalog(SMALL);
  const big = await writeCatalog(BIG);
  const results: Array<Awaited<ReturnType<typeof runEngine>>> = [];
  for (const engine of await benchEngines('scale.bench', 'BENCH_SCALE_ENGINES'))
    results.push(await runEngine(engine, small, big));
  const rate = (run: ImportRun) => run.rows / run.seconds;
  const K = `${fmt(BIG / 1000)}k`;
  const table = [
    `A generated catalog (bench/lib/catalog-generator.ts, seed 42: families of colourways and sizes grown from the real 44k rows, one photo per colourway): ${fmt(SMALL)} rows into an empty store, then ${fmt(BIG)} rows into a second store of the same database, each through \`vitrine import\`; after each import \`vitrine serve\` (its default processes) is started and measured on that store; then it is started again on the whole database.`,
    '',
    '**Import.** RSS of the importing process at each 100,000 rows (the first progress line past it).',
    '',
    `| engine | 44k rows/s | ${K} rows/s | ${K} / 44k | 44k max RSS MB | ${K} max RSS MB | RSS every 100k rows (MB) |`,
    '|---|---:|---:|---:|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${fmt(rate(r.at44k))} | ${fmt(rate(r.atBig))} | **${fmt((100 * rate(r.atBig)) / rate(r.at44k))} %** | ${r.at44k.maxRss} | ${r.atBig.maxRss} | ${r.atBig.rss.join(', ')} |`,
    ),
    '',
    `**Index freshness.** Seconds from \`vitrine serve\`'s start (right after the import) until the store's \`indexes.caught_up\`, against the import's own seconds.`,
    '',
    `| engine | 44k: import s | 44k: caught up s | ${K}: import s | ${K}: caught up s | caught up ${K} / 44k | import ${K} / 44k |`,
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${fmt(r.at44k.seconds, 1)} | ${fmt(r.small.catchUpSeconds, 1)} | ${fmt(r.atBig.seconds, 1)} | ${fmt(r.big.catchUpSeconds, 1)} | **${fmt(r.big.catchUpSeconds / r.small.catchUpSeconds, 1)}×** | ${fmt(r.atBig.seconds / r.at44k.seconds, 1)}× |`,
    ),
    '',
    `**Calls.** Server-side ms (Server-Timing), p50 / p99 over ${CALLS} calls each after 10 unmeasured (search by photo: 50; text search: after unmeasured searches until 20 in a row answer under 100 ms, the seconds that took in the bench's log), one at a time; the ratio is p50 at ${K} over p50 at 44k. A call another process forwarded to the one serving the store counts as that process timed it (\`serving;dur\`); what the hop added is the last row. Export: rows/s of one whole NDJSON export.`,
    '',
    `| call | ${results.map((r) => `${r.engine} 44k | ${r.engine} ${K} | ${r.engine} ratio`).join(' | ')} |`,
    `|---|${results.map(() => '---:|---:|---:').join('|')}|`,
    ...FAMILIES.map(
      (family) =>
        `| ${LABELS[family]} | ${results
          .map((r) => {
            const a = r.small.timed[family];
            const b = r.big.timed[family];
            if (!a || !b) return '– | – | –';
            const flag = b.p99 > 100 ? ' ⚠' : '';
            return `${ms(a.p50)} / ${ms(a.p99)} | ${ms(b.p50)} / ${ms(b.p99)}${flag} | **${fmt(b.p50 / a.p50, 1)}×**`;
          })
          .join(' | ')} |`,
    ),
    `| export, rows/s | ${results.map((r) => `${fmt(r.small.exportRowsPerSecond)} | ${fmt(r.big.exportRowsPerSecond)} | ${fmt(r.big.exportRowsPerSecond / r.small.exportRowsPerSecond, 2)}×`).join(' | ')} |`,
    `| group RSS after the calls, MB | ${results.map((r) => `${fmt(r.small.rssMb)} | ${fmt(r.big.rssMb)} | ${fmt(r.big.rssMb / r.small.rssMb, 1)}×`).join(' | ')} |`,
    `| calls forwarded to the process serving the store | ${results.map((r) => `${fmt(r.small.forwarded.calls)} of ${fmt(r.small.forwarded.of)} | ${fmt(r.big.forwarded.calls)} of ${fmt(r.big.forwarded.of)} | –`).join(' | ')} |`,
    `| what forwarding added to a forwarded call, ms p50 / p99 | ${results.map((r) => `${hopFigures(r.small.timed)} | ${hopFigures(r.big.timed)} | –`).join(' | ')} |`,
    '',
    `**Restart** of \`vitrine serve\` on the database holding both stores: seconds from the command to the first right answer on the ${K} store (search \`shirts\` with hits, complete the look with categories, search by photo with hits), and the group's RSS after every call above 20 times and 10 s idle (budget 1.5 GB).`,
    '',
    '| engine | first search s | first complete the look s | first photo search s | group RSS MB | by process MB | database MB (both stores) |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...results.map(
      (r) =>
        `| ${r.engine} | ${fmt(r.restarted.search, 1)} | ${fmt(r.restarted.complete, 1)} | ${r.restarted.photo === undefined ? '–' : fmt(r.restarted.photo, 1)} | **${fmt(r.restarted.rssMb)}** | ${r.restarted.byProcess} | ${fmt(r.databaseMb)} |`,
    ),
    '',
    `In-memory indexes after the restart's calls, estimated MB summed over the processes (\`vitrine_index_memory_bytes\`): ${results
      .map(
        (r) =>
          `${r.engine}: ${Object.entries(r.restarted.indexMb)
            .filter(([, mb]) => mb >= 1)
            .map(([name, mb]) => `${name} ${fmt(mb)}`)
            .join(', ')}`,
      )
      .join('; ')}.`,
    '',
    `Targets (issue 42): import at ${K} ≥ 80 % of 44k's rows/s with flat memory; caught-up time growing no faster than the import; p50 within 3× of 44k for every shopper call and p99 ≤ 100 ms at ${K} on SQLite (⚠: over); the restarted group ≤ 1.5 GB. ${machineLine()}.`,
  ].join('\n');
  console.log(table);
  recordSection('Scale: a million products', table);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
