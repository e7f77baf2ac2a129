import { openPostgres, type PostgresOptions } from './postgres.js';
import { openSqlite, openSqliteReader } from './sqlite.js';
import type { StorageHandle } from './dialect.js';

export type { StorageHandle, StorageDialect, Executor, Db } from './dialect.js';
export { withDialect } from './dialect.js';

/**
 * Opens the database named by DATABASE_URL (CONTRACT §1). `readOnly`: one SQLite connection that only
 * reads (another thread's, beside the process's own: StorageHandle.reopen).
 */
export function openDatabase(
  url: string,
  postgresOptions: PostgresOptions & { readOnly?: boolean } = {},
): StorageHandle {
  if (url.startsWith('sqlite:')) return postgresOptions.readOnly ? openSqliteReader(url) : openSqlite(url);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, postgresOptions);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got ${url}`);
}
