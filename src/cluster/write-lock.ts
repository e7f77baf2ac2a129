import { ask, type LockAnswer } from './messages.js';

/**
 * SQLite's single writer, across the API processes: a write transaction first takes this lock from
 * the primary (first come, first served), so processes queue without blocking their event loops in
 * SQLite's busy wait, and the lock passes on as soon as a transaction ends.
 */
export async function withClusterWriteLock<T>(work: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  // A grant that comes after this process stopped waiting is handed straight back.
  await ask<LockAnswer>({ type: 'vitrine:write-lock' }, timeoutMs, () =>
    process.send!({ type: 'vitrine:write-unlock' }),
  );
  try {
    return await work();
  } finally {
    process.send!({ type: 'vitrine:write-unlock' });
  }
}
