import type { Transaction } from 'kysely';
import type { StorageDialect, StorageHandle } from './dialect.js';
import type { Database } from './schema.js';
import { withDialect } from './dialect.js';
import { translateStorageError } from './sql-errors.js';

// PostgreSQL deadlock / serialization failure, SQLite busy: the transaction did nothing and may be retried.
const RETRYABLE = new Set(['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);

export type Trx = Transaction<Database> & { readonly dialect: StorageDialect };

/** How long a transaction keeps retrying while another process holds the SQLite write lock. */
const BUSY_RETRY_MS = 10_000;

/**
 * Runs `work` in a transaction (a `Db` that carries the dialect), retrying when the engine asks for
 * it: a few times for a PostgreSQL deadlock or serialization failure, and for as long as
 * BUSY_RETRY_MS while another process holds SQLite's write lock (several API processes, the CLI),
 * waiting between attempts without blocking the event loop.
 */
export async function inTransaction<T>(storage: StorageHandle, work: (trx: Trx) => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      const run = () => storage.db.transaction().execute((trx) => work(withDialect(trx, storage.dialect)));
      return await (storage.writeGate ? storage.writeGate(run) : run());
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      const busy = code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT';
      const retry = busy ? Date.now() - started < BUSY_RETRY_MS : attempt < 4;
      if (retry && typeof code === 'string' && RETRYABLE.has(code)) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(5 * attempt, 50) + Math.random() * 10));
        continue;
      }
      throw translateStorageError(error);
    }
  }
}
