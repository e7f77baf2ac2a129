import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { InvalidInputError } from '../errors.js';

const PG_HINT =
  'on PostgreSQL, back up with `pg_dump --format=custom --file=vitrine.dump "$DATABASE_URL"` and restore with `pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" vitrine.dump` (README: Backups)';

function sqlitePath(databaseUrl: string): string {
  if (!databaseUrl.startsWith('sqlite:')) throw new InvalidInputError(PG_HINT, 'DATABASE_URL');
  const target = databaseUrl.slice('sqlite:'.length);
  if (target === '' || target === ':memory:')
    throw new InvalidInputError('an in-memory database has nothing to back up or restore', 'DATABASE_URL');
  return path.resolve(target);
}

export interface BackupSummary {
  file: string;
  bytes: number;
  products: number;
  seconds: number;
}

/** What a backup or restore wrote: the file, its size, its products, and the time since `started`. */
function summaryOf(file: string, db: SqliteDatabase.Database, started: number): BackupSummary {
  return {
    file,
    bytes: fs.statSync(file).size,
    products: Number((db.prepare('SELECT count(*) AS n FROM products').get() as { n: number }).n),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * A consistent copy of a SQLite database while it serves. `VACUUM INTO` reads one snapshot (a read
 * transaction: in WAL mode writers carry on meanwhile) and writes a compact, self-contained file.
 * SQLite's page-by-page backup API would restart from the beginning each time another process
 * writes, so under steady writes it might never finish.
 */
export function backupSqlite(databaseUrl: string, file: string): BackupSummary {
  const source = sqlitePath(databaseUrl);
  if (!fs.existsSync(source)) throw new InvalidInputError(`no database at ${source}`, 'DATABASE_URL');
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new InvalidInputError(`${target} exists: choose a new file`, 'file');
  const started = performance.now();
  const db = new SqliteDatabase(source, { readonly: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
  const copy = new SqliteDatabase(target, { readonly: true });
  try {
    return summaryOf(target, copy, started);
  } finally {
    copy.close();
  }
}

/**
 * Puts a backup in place of the database (stop `vitrine serve` first: its in-memory indexes would
 * not know). The backup is checked first (a SQLite file, intact, with Vitrine's schema); the current
 * database is kept beside it as `<name>.before-restore` until the next restore.
 */
export function restoreSqlite(file: string, databaseUrl: string): BackupSummary {
  const target = sqlitePath(databaseUrl);
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new InvalidInputError(`no backup at ${source}`, 'file');
  const started = performance.now();
  const backup = new SqliteDatabase(source, { readonly: true, fileMustExist: true });
  try {
    let check: string;
    try {
      check = String((backup.pragma('quick_check', { simple: true }) as string) ?? '');
    } catch {
      throw new InvalidInputError(`${source} is not a SQLite database`, 'file');
    }
    if (check !== 'ok') throw new InvalidInputError(`${source} is damaged: ${check}`, 'file');
    const vitrine = backup
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('kysely_migration', 'products')")
      .all();
    if (vitrine.length < 2) throw new InvalidInputError(`${source} is not a Vitrine database`, 'file');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (fs.existsSync(target)) fs.renameSync(target, `${target}.before-restore`);
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
    backup.prepare('VACUUM INTO ?').run(target);
    return summaryOf(target, backup, started);
  } finally {
    backup.close();
  }
}
