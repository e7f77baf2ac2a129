import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  fmt,
  freshDatabase,
  ingestBatches,
  load,
  machineLine,
  readStyles,
  skipWithoutShared,
  STYLES_CSV,
  STYLES_MAPPING,
  toProduct,
} from './lib/harness.js';

// Same-hour A/B of two builds of Vitrine on SQLite: this checkout against another one (an earlier
// commit, built), in alternating rounds, so that a regression claim does not rest on figures of
// different hours (this machine's speed moves two- to threefold between days and by 20 % within an
// hour). Each round measures, for each build in turn, on a fresh database:
//   - ingest: the 44k catalog through POST /v1/products (100 a batch, 4 clients) against `vitrine
//     serve` with its defaults, products/s to the last answer, and the CPU its processes used meanwhile;
//   - import: styles.csv through the import the CLI runs, rows/s;
//   - GET /v1/stores under 50 connections, req/s.
//   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci)
//   npm run compare -- /tmp/before [rounds]
// The other build is driven through its operator CLI (`bin/vitrine.js`) and, for the import, its
// `build/bench/servers/import-run.js` (dist/ in older checkouts) and container (present since 2026-11-21).
if (skipWithoutShared('compare-builds')) process.exit(0);

const [otherArg, roundsArg = '2'] = process.argv.slice(2);
if (!otherArg || !fs.existsSync(path.join(otherArg, 'dist/src/container.js'))) {
  console.error('usage: npm run compare -- <built checkout of another commit> [rounds]');
  process.exit(2);
}
/** Where a checkout's benchmarks were built: build/ now, dist/ before the two builds were separated. */
const benchBuildOf = (dir: string) => (fs.existsSync(path.join(dir, 'build/bench')) ? 'build' : 'dist');
const builds = [
  { label: 'other', dir: path.resolve(otherArg) },
  { label: 'this', dir: path.resolve('.') },
];
const rounds = Number(roundsArg);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const products = readStyles().map(toProduct);
const batches: Array<Record<string, string>[]> = [];
for (let i = 0; i < products.length; i += 100) batches.push(products.slice(i, i + 100));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** CPU seconds (user + system) used so far by a process group: the primary and its API processes. */
function groupCpuSeconds(child: ChildProcess): number {
  // Read from /proc (Linux); elsewhere the figure is NaN rather than a wrong number.
  if (!fs.existsSync('/proc/self/stat')) return NaN;
  const pids = (spawnSync('pgrep', ['-g', String(child.pid)], { encoding: 'utf8' }).stdout ?? '')
    .split('\n')
    .filter(Boolean);
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / 100;
}

/** A store created through the build's CLI, and that build's `vitrine serve` on it. */
async function serveWithStore(dir: string, url: string) {
  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', VITRINE_RATE_LIMIT: '100000000' };
  const cli = (args: string[]) => {
    const run = spawnSync(process.execPath, [path.join(dir, 'bin/vitrine.js'), ...args], { env, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`vitrine ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };
  cli(['migrate']);
  const store = JSON.parse(cli(['store', 'create', '--json', '--name', 'Compare', '--workspace-name', 'Compare'])) as {
    store_uuid: string;
    api_token: string;
  };
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [path.join(dir, 'bin/vitrine.js'), 'serve', '--port', String(port), '--host', '127.0.0.1'],
    { env, stdio: ['ignore', 'ignore', 'inherit'], detached: true },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 100) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (waited > 30_000) throw new Error(`${dir}: vitrine serve did not answer /healthz within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    base,
    store,
    headers: { authorization: `Bearer ${store.api_token}`, 'content-type': 'application/json' },
    server,
    stop: async () => {
      // The primary stops its API processes itself; anything of the group left after it is killed.
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
      try {
        process.kill(-server.pid!, 'SIGKILL');
      } catch {
        // nothing left
      }
    },
  };
}

async function ingest(dir: string) {
  const db = await freshDatabase('sqlite');
  const served = await serveWithStore(dir, db.url);
  try {
    const cpuBefore = groupCpuSeconds(served.server);
    const started = performance.now();
    await ingestBatches(served.base, served.store.store_uuid, served.headers, batches);
    const elapsed = (performance.now() - started) / 1000;
    return { perSecond: products.length / elapsed, cpuSeconds: groupCpuSeconds(served.server) - cpuBefore };
  } finally {
    await served.stop();
    await db.drop();
  }
}

async function importRows(dir: string) {
  const db = await freshDatabase('sqlite');
  try {
    const { loadConfig } = (await import(path.join(dir, 'dist/src/config.js'))) as typeof import('../src/config.js');
    const { createContainer } = (await import(
      path.join(dir, 'dist/src/container.js')
    )) as typeof import('../src/container.js');
    const { migrateToLatest } = (await import(
      path.join(dir, 'dist/src/storage/migrate.js')
    )) as typeof import('../src/storage/migrate.js');
    const setup = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
    await migrateToLatest(setup.storage);
    const created = await setup.stores.createStore({ workspaceName: 'Compare', name: 'Compare' });
    // Builds from before the products module owned mapping profiles set them through the stores module.
    const older = setup.stores as unknown as {
      setMappingProfile?: (store: string, profile: unknown) => Promise<unknown>;
    };
    if ('mappingProfiles' in setup) await setup.mappingProfiles.set(created.store_uuid, STYLES_MAPPING);
    else await older.setMappingProfile!(created.store_uuid, STYLES_MAPPING);
    await setup.close();
    const child = spawnSync(process.execPath, [path.join(dir, benchBuildOf(dir), 'bench/servers/import-run.js')], {
      env: { ...process.env, DATABASE_URL: db.url, BENCH_STORE: created.store_uuid, BENCH_FILE: STYLES_CSV },
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    const match = /RESULT (.*)/.exec(child.stdout);
    if (!match) throw new Error(`${dir}: import failed: ${child.stderr.slice(-500)}`);
    const { summary } = JSON.parse(match[1]) as { summary: { rows: number; seconds: number } };
    return summary.rows / summary.seconds;
  } finally {
    await db.drop();
  }
}

async function storesRoute(dir: string) {
  const db = await freshDatabase('sqlite');
  const served = await serveWithStore(dir, db.url);
  try {
    const url = `${served.base}/v1/stores?store_uuid=${served.store.store_uuid}`;
    const headers = { authorization: served.headers.authorization };
    await load(url, { seconds: 2, headers });
    const result = await load(url, { seconds, headers });
    if (result.non2xx || result.errors) throw new Error(`${dir}: GET /v1/stores answered ${result.non2xx} non-2xx`);
    return result.rps;
  } finally {
    await served.stop();
    await db.drop();
  }
}

type Figures = { ingest: number; ingestCpu: number; import: number; stores: number };
const results = new Map<string, Figures[]>(builds.map((build) => [build.label, []]));
for (let round = 0; round < rounds; round++) {
  // Alternate which build goes first, so that neither always runs on a warmer (or cooler) machine.
  for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
    const ingested = await ingest(build.dir);
    const figures = {
      ingest: ingested.perSecond,
      ingestCpu: ingested.cpuSeconds,
      import: await importRows(build.dir),
      stores: await storesRoute(build.dir),
    };
    results.get(build.label)!.push(figures);
    console.log(
      `round ${round + 1}, ${build.label} (${build.dir}): ingest ${fmt(figures.ingest)} products/s ` +
        `(${fmt(figures.ingestCpu, 1)} CPU s), import ${fmt(figures.import)} rows/s, GET /v1/stores ${fmt(figures.stores)} req/s`,
    );
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const rows: Array<[string, keyof Figures, number]> = [
  ['ingest products/s (POST, 100/batch, 4 clients)', 'ingest', 0],
  ['CPU seconds of the server during ingest', 'ingestCpu', 1],
  ['import rows/s (styles.csv)', 'import', 0],
  ['GET /v1/stores req/s (50 conn.)', 'stores', 0],
];
console.log(
  `\n| SQLite, ${rounds} alternating rounds | other: ${builds[0].dir} | this: ${builds[1].dir} | this / other |`,
);
console.log('|---|---:|---:|---:|');
for (const [title, key, digits] of rows) {
  const of = (label: string) => results.get(label)!.map((figures) => figures[key]);
  const [other, self] = [of('other'), of('this')];
  console.log(
    `| ${title} | ${other.map((v) => fmt(v, digits)).join(' / ')} | ${self.map((v) => fmt(v, digits)).join(' / ')} | ${fmt((median(self) / median(other)) * 100, 0)} % |`,
  );
}
console.log(`\n${machineLine()}; medians compared.`);
