import type { Transaction } from 'kysely';
import type { StorageDialect, StorageHandle } from './dialect.js';
import type { Database } from './schema.js';
import { withDialect } from './dialect.js';
import { translateStorageError } from './sql-errors.js';

// PostgreSQL deadlock / serialization failure, SQLite busy: the transaction did nothing and may be retried.
const RETRYABLE = new Set(['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);

export type Trx = Transaction<Database> & { readonly dialect: StorageDialect };

/** Runs `work` in a transaction (a `Db` that carries the dialect), retrying a few times when the engine asks for it. */
export async function inTransaction<T>(storage: StorageHandle, work: (trx: Trx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await storage.db.transaction().execute((trx) => work(withDialect(trx, storage.dialect)));
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      if (attempt < 4 && typeof code === 'string' && RETRYABLE.has(code)) {
        await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
        continue;
      }
      throw translateStorageError(error);
    }
  }
}
