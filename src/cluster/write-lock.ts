import { ask, type LockAnswer } from './messages.js';

/**
 * SQLite's single writer, across the API processes: a write transaction first takes this lock from
 * the primary (first come, first served), so processes queue without blocking their event loops in
 * SQLite's busy wait, and the lock passes on as soon as a transaction ends.
 */
export async function withClusterWriteLock<T>(work: () => Promise<T>): Promise<T> {
  await ask<LockAnswer>({ type: 'vitrine:write-lock' }, 30_000);
  try {
    return await work();
  } finally {
    process.send!({ type: 'vitrine:write-unlock' });
  }
}
