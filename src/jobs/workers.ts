import { runsIn, WORKER_PLACEMENT, type ProcessRole, type WorkerPlacement } from './worker-roles.js';

/**
 * The one model for background work: every job a process runs is a named worker, declared by its
 * module (`<module>.jobs.ts`), in a registry that `vitrine serve` and `vitrine worker` both read;
 * which process runs which is one table (worker-roles.ts). Work queued in this process wakes its
 * worker at once; other processes notice at their next poll.
 */

export interface WorkerStatus {
  name: string;
  running: boolean;
  /** Completed runs (polls that found work or not), failed runs, and the last failure. */
  runs: number;
  failures: number;
  lastError: string | null;
  lastRunAt: string | null;
}

export interface BackgroundWorker {
  /** `<module>.<verb>`, e.g. `search.index`. */
  readonly name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
  /** New work is waiting: run now rather than at the next poll. */
  wake(): void;
  status(): WorkerStatus;
}

export type WorkerErrorLog = (worker: string, error: unknown) => void;

/** Where background jobs say they started, finished (with counts) or failed: the process's pino logger. */
export interface JobLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const SILENT_JOB_LOG: JobLog = { info() {}, error() {} };

/** When a housekeeping worker (pruning) first runs after a process starts. */
export const HOUSEKEEPING_FIRST_RUN_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What every worker counts for its status: runs, failures and the last failure. */
export class RunCounters {
  #runs = 0;
  #failures = 0;
  #lastError: string | null = null;
  #lastRunAt: string | null = null;

  ran() {
    this.#runs++;
    this.#lastRunAt = new Date().toISOString();
  }

  failed(error: unknown) {
    this.#failures++;
    this.#lastError = error instanceof Error ? error.message : String(error);
  }

  status(name: string, running: boolean): WorkerStatus {
    return {
      name,
      running,
      runs: this.#runs,
      failures: this.#failures,
      lastError: this.#lastError,
      lastRunAt: this.#lastRunAt,
    };
  }
}

/**
 * A worker that runs `tick` every `intervalMs` and whenever woken, never twice at once (a wake
 * during a run makes one more run right after it). Its first run is at start, or `firstRunAfterMs`
 * later: housekeeping (pruning) waits, so a restarted process answers its first requests first.
 */
export class PollingWorker implements BackgroundWorker {
  #timer: NodeJS.Timeout | undefined;
  #first: NodeJS.Timeout | undefined;
  readonly #firstRunAfterMs: number;
  #busy = false;
  #again = false;
  readonly #counters = new RunCounters();

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly tick: () => Promise<unknown>,
    private readonly onError: WorkerErrorLog = () => {},
    options: { firstRunAfterMs?: number } = {},
  ) {
    this.#firstRunAfterMs = options.firstRunAfterMs ?? 0;
  }

  start() {
    if (this.#timer) return;
    // A poll that finds the worker busy is dropped (the run in progress takes what is there); only an
    // explicit wake queues one more run, so a busy follower does not run back to back under load.
    this.#timer = setInterval(() => {
      if (!this.#busy) this.#run();
    }, this.intervalMs);
    this.#timer.unref();
    if (this.#firstRunAfterMs === 0) return this.#run();
    this.#first = setTimeout(() => {
      if (!this.#busy) this.#run();
    }, this.#firstRunAfterMs);
    this.#first.unref();
  }

  wake() {
    if (!this.#timer) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#run();
  }

  #run() {
    this.#busy = true;
    this.tick()
      .catch((error: unknown) => {
        this.#counters.failed(error);
        this.onError(this.name, error);
      })
      .finally(() => {
        this.#counters.ran();
        this.#busy = false;
        if (this.#again && this.#timer) {
          this.#again = false;
          this.#run();
        }
      });
  }

  async stop() {
    if (this.#timer) clearInterval(this.#timer);
    clearTimeout(this.#first);
    this.#timer = undefined;
    while (this.#busy) await sleep(10);
  }

  status(): WorkerStatus {
    return this.#counters.status(this.name, this.#timer !== undefined);
  }
}

/** The named workers of a process. */
export class WorkerRegistry {
  readonly #workers = new Map<string, { worker: BackgroundWorker; placement: WorkerPlacement }>();
  readonly #started = new Set<string>();

  /** Registers a worker where the role table places it (a worker missing from the table is an error). */
  register(worker: BackgroundWorker, placement: WorkerPlacement | undefined = WORKER_PLACEMENT[worker.name]) {
    if (this.#workers.has(worker.name)) throw new Error(`worker ${worker.name} is registered twice`);
    if (!placement) throw new Error(`worker ${worker.name} is not in the role table (src/jobs/worker-roles.ts)`);
    this.#workers.set(worker.name, { worker, placement });
    return worker;
  }

  /** The workers a process of `role` runs (every worker without a role). */
  names(role?: ProcessRole, options: { offload?: boolean } = {}): string[] {
    return [...this.#workers]
      .filter(([, w]) => role === undefined || runsIn(w.placement, role, options))
      .map(([name]) => name);
  }

  /** Starts every worker a process of `role` runs; one that fails to start is reported and the others still start. */
  async start(role: ProcessRole, options: { offload?: boolean } = {}, onError: WorkerErrorLog = () => {}) {
    for (const name of this.names(role, options)) {
      if (this.#started.has(name)) continue;
      try {
        await this.#workers.get(name)!.worker.start();
        this.#started.add(name);
      } catch (error) {
        onError(name, error);
      }
    }
  }

  wake(name: string) {
    this.#workers.get(name)?.worker.wake();
  }

  /** Stops the started workers, newest first. */
  async stop() {
    for (const name of [...this.#started].reverse()) await this.#workers.get(name)!.worker.stop();
    this.#started.clear();
  }

  status(): WorkerStatus[] {
    return [...this.#workers.values()].map(({ worker }) => worker.status());
  }
}
