import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** The log size past which checkpoints move to their thread (below SQLite's own threshold, 1,000 pages). */
const START_BYTES = 2 * 1024 * 1024;
/** Writes between two looks at the log's size before the thread starts. */
const WRITES_PER_LOOK = 32;
/** The writer's own automatic checkpoint while the thread runs (pages): a bound, should the thread fall behind. */
const BOUND_PAGES = 16_384;
const SQLITE_DEFAULT_PAGES = 1_000;

export interface CheckpointThreadOptions {
  file: string;
  /** How often the thread copies the log into the database file. */
  intervalMs: number;
  /** A log longer than this (pages) is started over (RESTART), the writer held meanwhile. */
  restartPages: number;
}

export type CheckpointMessage = 'restart-wanted' | 'restart' | 'restart-skipped' | 'restarted' | 'stop' | 'stopped';

/** Holds this file's writer (every process's, in a cluster) while `work` runs. */
export type HoldWriter = (work: () => Promise<void>) => Promise<void>;

/**
 * SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on the writer's
 * connection: with ingest under way it was a third of the writer's time, all of it on the event loop
 * (`commit` 10.6 ms on average, 2.8 ms without it). Once a file's log has grown past START_BYTES, a
 * thread of its own checkpoints it instead. A short-lived process (a CLI command, most tests) never
 * starts the thread.
 *
 * A passive checkpoint copies the log but cannot start it over: only the writer does that, at the
 * beginning of a transaction that finds the log fully copied, which under a steady stream of commits
 * may never happen. So when the log has grown long, the thread asks for a RESTART checkpoint, which
 * this class runs while it holds the writer (`holdWriter`): the event loop waits without blocking,
 * and the writes of this process (and of the cluster) queue as they do behind any transaction.
 */
export class BackgroundCheckpointer {
  #worker: Worker | undefined;
  #writes = 0;

  constructor(
    private readonly file: string,
    private readonly writer: SqliteDatabase.Database,
    private readonly holdWriter: HoldWriter,
    private readonly restartPages = 4_096,
  ) {}

  /** Whether the thread runs (for tests and /metrics-free diagnosis). */
  get running() {
    return this.#worker !== undefined;
  }

  /** After each write on the writer connection. */
  wrote() {
    if (this.#worker || ++this.#writes % WRITES_PER_LOOK !== 0) return;
    const size = fs.statSync(`${this.file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    if (size >= START_BYTES) this.#start();
  }

  #start() {
    const workerData: CheckpointThreadOptions = { file: this.file, intervalMs: 100, restartPages: this.restartPages };
    const worker = new Worker(new URL('./sqlite-checkpoint-thread.js', import.meta.url), { workerData });
    worker.unref();
    this.#worker = worker;
    this.writer.pragma(`wal_autocheckpoint = ${BOUND_PAGES}`);
    worker.on('message', (message: CheckpointMessage) => {
      if (message === 'restart-wanted') void this.#restart(worker);
    });
    // A thread that failed gives the writer back its usual automatic checkpoint; a later look retries.
    const ended = () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
    };
    worker.once('error', ended);
    worker.once('exit', ended);
  }

  async #restart(worker: Worker) {
    await this.holdWriter(
      () =>
        new Promise<void>((resolve) => {
          const done = (message: CheckpointMessage) => {
            if (message !== 'restarted') return;
            worker.off('message', done);
            worker.off('exit', resolve);
            resolve();
          };
          worker.on('message', done);
          worker.once('exit', resolve);
          worker.postMessage('restart' satisfies CheckpointMessage);
        }),
    ).catch(() => {
      // The writer could not be had (a cluster lock timeout): the thread asks again as the log grows.
      worker.postMessage('restart-skipped' satisfies CheckpointMessage);
    });
  }

  /** Stops the thread (before the writer closes, so that the last close checkpoints and removes the log). */
  async stop() {
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.on('message', (message: CheckpointMessage) => {
        if (message === 'stopped') void worker.terminate();
      });
      worker.postMessage('stop' satisfies CheckpointMessage);
    });
  }
}
