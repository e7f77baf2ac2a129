import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import {
  fmt,
  freshDatabase,
  machineLine,
  postgresAvailable,
  recordSection,
  skipWithoutShared,
  STYLES_CSV,
  STYLES_MAPPING,
} from './lib/harness.js';

// File import: the real styles.csv (44,446 rows, 22 malformed) on both engines, and a ~200 MB file for flat memory.
if (skipWithoutShared('import.bench')) process.exit(0);

const BIG_MB = Number(process.env.BENCH_IMPORT_MB ?? 200);

async function run(engine: 'sqlite' | 'postgres', file: string) {
  const db = await freshDatabase(engine);
  const setup = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
  await migrateToLatest(setup.storage);
  const created = await setup.stores.createStore({ workspaceName: 'Bench', name: 'Bench' });
  await setup.mappingProfiles.set(created.store_uuid, STYLES_MAPPING);
  await setup.close();
  const once = () => {
    const child = spawnSync(process.execPath, ['build/bench/servers/import-run.js'], {
      env: { ...process.env, DATABASE_URL: db.url, BENCH_STORE: created.store_uuid, BENCH_FILE: file },
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    const match = /RESULT (.*)/.exec(child.stdout);
    if (!match) throw new Error(`import failed: ${child.stderr.slice(-500)}`);
    return JSON.parse(match[1]) as {
      summary: {
        rows: number;
        inserted: number;
        updated: number;
        failed: number;
        failures: Record<string, number>;
        seconds: number;
      };
      maxRssMb: number;
    };
  };
  try {
    const first = once();
    const again = once();
    return { engine, first, again };
  } finally {
    await db.drop();
  }
}

/** styles.csv repeated with fresh ids up to about BIG_MB megabytes. */
function bigFile(): string {
  const target = path.join(os.tmpdir(), `vitrine-import-${BIG_MB}mb.csv`);
  const [header, ...rows] = fs.readFileSync(STYLES_CSV, 'utf8').trim().split('\n');
  const out = fs.openSync(target, 'w');
  fs.writeSync(out, `${header}\n`);
  let written = 0;
  for (let copy = 0; written < BIG_MB * 1024 * 1024; copy++) {
    const chunk = rows.map((row) => `${copy}-${row}`).join('\n') + '\n';
    fs.writeSync(out, chunk);
    written += chunk.length;
  }
  fs.closeSync(out);
  return target;
}

const results = [await run('sqlite', STYLES_CSV)];
if (await postgresAvailable()) results.push(await run('postgres', STYLES_CSV));
const big = bigFile();
const bigSize = fs.statSync(big).size;
const large = await run('sqlite', big);
fs.rmSync(big, { force: true });

const line = (
  label: string,
  r: {
    summary: { rows: number; inserted: number; updated: number; failed: number; seconds: number };
    maxRssMb: number;
  },
) =>
  `| ${label} | ${fmt(r.summary.rows)} | ${fmt(r.summary.inserted)} / ${fmt(r.summary.updated)} / ${fmt(r.summary.failed)} | ${fmt(r.summary.seconds, 2)} | **${fmt(r.summary.rows / r.summary.seconds)}** | ${fmt(r.maxRssMb)} |`;
const table = [
  '`vitrine import` (the same code, in its own process) with the styles.csv mapping profile of the README; the 22 lines with unquoted commas are rejected with their line numbers (`field_count`).',
  '',
  '| run | rows | inserted / updated / failed | seconds | rows/s | peak RSS MB |',
  '|---|---:|---:|---:|---:|---:|',
  ...results.flatMap((r) => [
    line(`${r.engine}: styles.csv, empty store`, r.first),
    line(`${r.engine}: styles.csv again (idempotent)`, r.again),
  ]),
  line(`sqlite: ${fmt(bigSize / 1024 / 1024)} MB generated from styles.csv`, large.first),
  '',
  `Targets: ≥ 15,000 rows/s on SQLite, ≥ 5,000 rows/s on PostgreSQL; memory flat whatever the file size (compare peak RSS of the 4 MB and the ${fmt(bigSize / 1024 / 1024)} MB files). ${machineLine()}.`,
].join('\n');
console.log(table);
recordSection('Catalog import (CLI)', table);
