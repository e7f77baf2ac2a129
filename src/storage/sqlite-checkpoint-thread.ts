import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import type { CheckpointMessage, CheckpointThreadOptions } from './sqlite-checkpointer.js';

/**
 * The thread that copies a SQLite file's write-ahead log into the database file (a checkpoint), so
 * that the writer's commits do not do it on the event loop. Each tick is PASSIVE: it waits for no
 * one and copies what it can. A log that keeps growing (the writer never found it fully copied
 * between two commits, so never started it over) is restarted on the event loop's request, while
 * the writer is held there (see BackgroundCheckpointer).
 */
const options = workerData as CheckpointThreadOptions;
const port = parentPort!;
const connection = new SqliteDatabase(options.file);
// Only a RESTART waits (PASSIVE never does): for readers to leave the log, while every writer of the
// file waits for it. So it waits briefly, and a restart that could not finish (a long read, an export)
// is asked for again only after RESTART_BACKOFF_MS: writes are held at most 100 ms in 5 s.
connection.pragma('busy_timeout = 100');
connection.pragma('synchronous = NORMAL');
const RESTART_BACKOFF_MS = 5_000;
const passive = connection.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = connection.prepare('PRAGMA wal_checkpoint(RESTART)');
let restartAsked = false;
let restartNotBefore = 0;

const timer = setInterval(() => {
  try {
    const { log } = passive.get() as { log: number };
    if (log > options.restartPages && !restartAsked && Date.now() >= restartNotBefore) {
      restartAsked = true;
      port.postMessage('restart-wanted' satisfies CheckpointMessage);
    }
  } catch {
    // Another process's checkpoint under way: the next tick tries again.
  }
}, options.intervalMs);

port.on('message', (message: CheckpointMessage) => {
  if (message === 'restart') {
    let done = false;
    try {
      done = (restart.get() as { busy: number }).busy === 0;
    } catch {
      // Busy (another process's checkpoint): as below.
    }
    if (!done) restartNotBefore = Date.now() + RESTART_BACKOFF_MS;
    restartAsked = false;
    port.postMessage('restarted' satisfies CheckpointMessage);
  } else if (message === 'restart-skipped') {
    restartAsked = false;
  } else if (message === 'stop') {
    clearInterval(timer);
    connection.close();
    port.postMessage('stopped' satisfies CheckpointMessage);
    port.close();
  }
});
