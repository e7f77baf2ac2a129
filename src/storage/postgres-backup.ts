import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { InvalidInputError } from '../errors.js';
import type { BackupSummary } from './backup.js';

/**
 * `vitrine backup` / `restore` on PostgreSQL, through the server's own tools: `pg_dump` takes one
 * snapshot (writes carry on meanwhile) in its custom format; `pg_restore` loads it, in one
 * transaction, into an empty database. The schema of the URL (`options=-c search_path=…`) is the one
 * dumped and restored; the tools must be of the server's major version or newer.
 */

/** The schema a URL works in (tests and shared databases give one through `options`), else public. */
function schemaOf(databaseUrl: string): string {
  const options = new URL(databaseUrl).searchParams.get('options') ?? '';
  return /search_path=([A-Za-z0-9_]+)/.exec(options)?.[1] ?? 'public';
}

function run(tool: string, args: string[]): string {
  const result = spawnSync(tool, args, { encoding: 'utf8', timeout: 6 * 60 * 60 * 1000 });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT')
    throw new InvalidInputError(
      `${tool} is not installed: install PostgreSQL's client tools of the server's version (Debian: postgresql-client)`,
      'DATABASE_URL',
    );
  if (result.status !== 0)
    throw new Error(
      `${tool} failed (${result.status}): ${(result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ')}`,
    );
  return result.stdout;
}

/**
 * The backup's table of contents without the schemas the target database already has: a dump of
 * `public` creates it, and every new database already has one (`createdb`, then `vitrine restore`,
 * failed on "schema public already exists").
 */
function restoreList(source: string, existingSchemas: ReadonlySet<string>): string {
  return run('pg_restore', ['--list', source])
    .split('\n')
    .filter((line) => {
      const schema = /^\d+;\s+\d+\s+\d+\s+SCHEMA\s+-\s+"?([^\s"]+)"?/.exec(line)?.[1];
      return !(schema && existingSchemas.has(schema));
    })
    .join('\n');
}

async function productCount(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schemaOf(databaseUrl)}".products`);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

export async function backupPostgres(databaseUrl: string, file: string): Promise<BackupSummary> {
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new InvalidInputError(`${file} already exists: name a new file`, 'file');
  const started = performance.now();
  run('pg_dump', [
    '--format=custom',
    '--no-owner',
    '--no-privileges',
    `--schema=${schemaOf(databaseUrl)}`,
    `--file=${target}`,
    `--dbname=${databaseUrl}`,
  ]);
  return {
    file: target,
    bytes: fs.statSync(target).size,
    products: await productCount(databaseUrl),
    seconds: (performance.now() - started) / 1000,
  };
}

/** Loads a backup into the database of `databaseUrl`, which must not hold Vitrine's tables yet. */
export async function restorePostgres(file: string, databaseUrl: string): Promise<BackupSummary> {
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new InvalidInputError(`${file} does not exist`, 'file');
  const schema = schemaOf(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let existingSchemas: Set<string>;
  try {
    const { rows } = await client.query(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'products'`,
      [schema],
    );
    if (rows.length > 0)
      throw new InvalidInputError(
        `the database already holds a catalog (schema ${schema}): restore into an empty database, then point DATABASE_URL at it`,
        'DATABASE_URL',
      );
    const schemas = await client.query<{ nspname: string }>('SELECT nspname FROM pg_namespace');
    existingSchemas = new Set(schemas.rows.map((row) => row.nspname));
  } finally {
    await client.end();
  }
  const started = performance.now();
  const listFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-restore-')), 'toc.list');
  try {
    fs.writeFileSync(listFile, restoreList(source, existingSchemas));
    run('pg_restore', [
      '--no-owner',
      '--no-privileges',
      '--single-transaction',
      '--exit-on-error',
      `--use-list=${listFile}`,
      `--dbname=${databaseUrl}`,
      source,
    ]);
  } finally {
    fs.rmSync(path.dirname(listFile), { recursive: true, force: true });
  }
  return {
    file: source,
    bytes: fs.statSync(source).size,
    products: await productCount(databaseUrl),
    seconds: (performance.now() - started) / 1000,
  };
}
