import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { POSTGRES_URL } from './backends.js';
import { stopServesOn } from './serve.js';

const BIN = path.resolve('bin/vitrine.js');

/** The JSON a command printed; a failed command fails the test with its stderr (not a JSON parse error). */
export function jsonOf(result: CliResult): any {
  if (result.status !== 0 || result.stdout.trim() === '') {
    throw new Error(`command failed (status ${result.status}): ${result.stderr.trim() || '(no stderr)'}`);
  }
  return JSON.parse(result.stdout);
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(databaseUrl: string, args: string[], bin = BIN, env: Record<string, string> = {}): CliResult {
  const result = spawnSync(process.execPath, [bin, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function onPostgres(statement: string) {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Inside a describe: a fresh database for the CLI (a SQLite file, or a PostgreSQL schema via the URL's options). */
export function cliDatabase(dialect: 'sqlite' | 'postgres'): () => string {
  let url = '';
  let cleanup = async () => {};
  before(async () => {
    if (dialect === 'sqlite') {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-cli-'));
      url = `sqlite:${path.join(dir, 'cli.db')}`;
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
    } else {
      const schema = `cli_${randomBytes(5).toString('hex')}`;
      await onPostgres(`CREATE SCHEMA ${schema}`);
      url = `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      cleanup = () => onPostgres(`DROP SCHEMA ${schema} CASCADE`);
    }
  });
  // The servers started on it stop first: node runs `after` hooks in the order they were registered,
  // so this one ran before a describe's own hook stopped them, and DROP SCHEMA waited on their
  // connections (a deadlock PostgreSQL reports, or a wait across two of a server's connections it cannot see).
  after(async () => {
    await stopServesOn(url);
    await cleanup();
  });
  return () => url;
}
