import type { Transaction } from 'kysely';
import type { StorageHandle } from './dialect.js';
import type { Database } from './schema.js';
import { translateStorageError } from './sql-errors.js';

// PostgreSQL deadlock / serialization failure, SQLite busy: the transaction did nothing and may be retried.
const RETRYABLE = new Set(['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);

/** Runs `work` in a transaction, retrying a few times when the engine asks for it. */
export async function inTransaction<T>(storage: StorageHandle, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await storage.db.transaction().execute(work);
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
