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
// Waiting here blocks only this thread: readers finishing, another process's checkpoint.
connection.pragma('busy_timeout = 2000');
connection.pragma('synchronous = NORMAL');
const passive = connection.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = connection.prepare('PRAGMA wal_checkpoint(RESTART)');
let restartAsked = false;

const timer = setInterval(() => {
  try {
    const { log } = passive.get() as { log: number };
    if (log > options.restartPages && !restartAsked) {
      restartAsked = true;
      port.postMessage('restart-wanted' satisfies CheckpointMessage);
    }
  } catch {
    // Busy past the timeout (another process's checkpoint): the next tick tries again.
  }
}, options.intervalMs);

port.on('message', (message: CheckpointMessage) => {
  if (message === 'restart') {
    try {
      restart.get();
    } catch {
      // Busy: the log grows on and is asked for again.
    }
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
