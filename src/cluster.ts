import cluster, { type Worker } from 'node:cluster';
import { createRequire } from 'node:module';
import os from 'node:os';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config.js';

/**
 * `vitrine serve --processes N`: N API processes on one port (node:cluster hands connections round
 * robin), so that every core serves. The primary process serves nothing itself: it migrates the
 * schema once, starts the N processes (restarting one that dies), shares what must be counted once
 * (rate limits when there is no Redis, and /metrics, aggregated), and stops them on SIGTERM.
 * Process 0 also runs the background work (change followers, image embedding, imports); the others
 * keep only their own in-memory indexes warm. Writes keep their guarantees: SQLite lets one writer
 * at a time hold the file, PostgreSQL has its transactions.
 */

/** This process's index among the API processes (0 when not clustered). */
export const PROCESS_INDEX = Number(process.env.VITRINE_PROCESS_INDEX ?? 0);

export const isClusterWorker = () => cluster.isWorker;

/** The default number of API processes: one per core. */
export function defaultProcesses(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

// ---- messages between the API processes and the primary -------------------------------------

interface RateLimitCheck {
  key: string;
  timeWindow: number;
  max: number;
}
type RateLimitResult = { current: number; ttl: number } | { error: string };
/** The rate-limit counts one API process needs for the requests it read in one turn of its event loop. */
interface RateLimitRequest {
  type: 'vitrine:rate-limit';
  id: number;
  checks: RateLimitCheck[];
}
interface RateLimitAnswer {
  type: 'vitrine:rate-limit';
  id: number;
  results?: RateLimitResult[];
  error?: string;
}
interface MetricsRequest {
  type: 'vitrine:metrics';
  id: number;
}
interface MetricsAnswer {
  type: 'vitrine:metrics';
  id: number;
  text?: string;
  error?: string;
}
interface LockRequest {
  type: 'vitrine:write-lock';
  id: number;
}
interface LockAnswer {
  type: 'vitrine:write-lock';
  id: number;
}
interface PeerMessage {
  type: 'vitrine:peers';
  topic: string;
  payload: string;
}
type Request =
  | RateLimitRequest
  | MetricsRequest
  | LockRequest
  | PeerMessage
  | { type: 'vitrine:write-unlock' }
  | { type: 'vitrine:ready' };

let nextId = 0;
const pending = new Map<number, (answer: RateLimitAnswer | MetricsAnswer | LockAnswer) => void>();
let listening = false;

/** Sends a request to the primary and waits for its answer (API processes only). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

function ask<A extends RateLimitAnswer | MetricsAnswer | LockAnswer>(
  message: WithoutId<RateLimitRequest | MetricsRequest | LockRequest>,
  timeoutMs = 2_000,
) {
  if (!listening) {
    listening = true;
    process.on('message', (answer: RateLimitAnswer | MetricsAnswer | LockAnswer) => {
      if (
        answer?.type !== 'vitrine:rate-limit' &&
        answer?.type !== 'vitrine:metrics' &&
        answer?.type !== 'vitrine:write-lock'
      )
        return;
      const resolve = pending.get(answer.id);
      pending.delete(answer.id);
      resolve?.(answer);
    });
  }
  return new Promise<A>((resolve, reject) => {
    const id = ++nextId;
    // When this process's event loop was busy past the deadline, the answer may be waiting unread:
    // the timer phase runs before I/O is read, so the check waits one more turn (setImmediate runs
    // after the I/O poll) before giving up.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!pending.delete(id)) return;
          reject(new Error('the primary process did not answer'));
        }),
      timeoutMs,
    );
    pending.set(id, (answer) => {
      clearTimeout(timer);
      resolve(answer as A);
    });
    process.send!({ ...message, id });
  });
}

/** Tells the primary this API process listens. */
export function reportReady() {
  if (cluster.isWorker) process.send!({ type: 'vitrine:ready' });
}

type RateLimitCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

// The checks asked for since the last message: one message (two writes to the IPC channel) per turn
// of the event loop instead of one per request, which under load halved the throughput.
let rateLimitBatch: Array<{ check: RateLimitCheck; callback: RateLimitCallback }> = [];

function sendRateLimitBatch() {
  const batch = rateLimitBatch;
  rateLimitBatch = [];
  ask<RateLimitAnswer>({ type: 'vitrine:rate-limit', checks: batch.map((entry) => entry.check) }).then(
    (answer) =>
      batch.forEach(({ callback }, i) => {
        const result = answer.results?.[i];
        if (!result || 'error' in result) callback(new Error(answer.error ?? result?.error ?? 'no answer'));
        else callback(null, result);
      }),
    (error: Error) => batch.forEach(({ callback }) => callback(error)),
  );
}

/**
 * A @fastify/rate-limit store whose counts live in the primary, so that a token's budget is one
 * budget across the API processes when there is no Redis to share it.
 */
export class ClusterRateLimitStore {
  incr(key: string, callback: RateLimitCallback, timeWindow: number, max: number) {
    rateLimitBatch.push({ check: { key, timeWindow, max }, callback });
    if (rateLimitBatch.length === 1) setImmediate(sendRateLimitBatch);
  }

  child() {
    return this;
  }
}

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

const subscribers = new Map<string, Array<(payload: string) => void>>();
let subscribed = false;

/**
 * What one API process tells the others (through the primary), e.g. "forget this store's cached
 * CORS origins" after an operator changed them. Not clustered: nothing to tell.
 */
export const peers = {
  publish(topic: string, payload: string) {
    if (cluster.isWorker) process.send!({ type: 'vitrine:peers', topic, payload } satisfies PeerMessage);
  },
  subscribe(topic: string, handler: (payload: string) => void) {
    if (!cluster.isWorker) return;
    if (!subscribed) {
      subscribed = true;
      process.on('message', (message: PeerMessage) => {
        if (message?.type === 'vitrine:peers')
          for (const each of subscribers.get(message.topic) ?? []) each(message.payload);
      });
    }
    subscribers.set(topic, [...(subscribers.get(topic) ?? []), handler]);
  },
};

/** /metrics of a clustered process: every process's metrics, aggregated by the primary. */
export async function clusterMetrics(): Promise<string> {
  const answer = await ask<MetricsAnswer>({ type: 'vitrine:metrics' });
  if (answer.error !== undefined) throw new Error(answer.error);
  return answer.text!;
}

// ---- the primary -------------------------------------------------------------------------------

interface LocalStoreLike {
  incr(
    key: string,
    cb: (error: Error | null, result: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number,
  ): void;
}

export async function runPrimary(
  config: Config,
  processes: number,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  // The schema once, before any API process opens the database.
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
    import('./storage/database.js'),
    import('./storage/migrate.js'),
  ]);
  const storage = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(storage);
  } finally {
    await storage.close();
  }

  // @fastify/rate-limit's own in-memory store, kept here for every process.
  const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (
    continueExceeding: boolean,
    exponentialBackoff: boolean,
    cache: number,
  ) => LocalStoreLike;
  const limits = new LocalStore(false, false, 100_000);
  const aggregator = new AggregatorRegistry();

  const workers = new Map<Worker, { index: number; ready: boolean }>();
  // The SQLite write lock: who holds it, and who waits for it in order.
  let holder: Worker | undefined;
  const waiting: Array<{ worker: Worker; id: number }> = [];
  const grantNext = () => {
    holder = undefined;
    while (waiting.length > 0) {
      const next = waiting.shift()!;
      if (!workers.has(next.worker)) continue; // it died waiting
      holder = next.worker;
      next.worker.send({ type: 'vitrine:write-lock', id: next.id } satisfies LockAnswer);
      return;
    }
  };
  let stopping = false;
  let exitCode = 0;

  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const worker of workers.keys()) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of workers.keys()) worker.process.kill('SIGKILL');
      process.exit(exitCode || 1);
    }, 20_000).unref();
    if (workers.size === 0) process.exit(exitCode);
  };

  const fork = (index: number) => {
    const worker = cluster.fork({ VITRINE_PROCESS_INDEX: String(index) });
    workers.set(worker, { index, ready: false });
    worker.on('message', (message: Request) => {
      if (message?.type === 'vitrine:ready') workers.get(worker)!.ready = true;
      else if (message?.type === 'vitrine:write-lock') {
        waiting.push({ worker, id: message.id });
        if (!holder) grantNext();
      } else if (message?.type === 'vitrine:write-unlock') {
        if (holder === worker) grantNext();
      } else if (message?.type === 'vitrine:peers') {
        for (const other of workers.keys()) if (other !== worker) other.send(message);
      } else if (message?.type === 'vitrine:rate-limit') {
        const results: RateLimitResult[] = [];
        let pendingChecks = message.checks.length;
        const answer = () =>
          worker.send({ type: 'vitrine:rate-limit', id: message.id, results } satisfies RateLimitAnswer);
        if (pendingChecks === 0) answer();
        message.checks.forEach((check, i) =>
          limits.incr(
            check.key,
            (error, result) => {
              results[i] = error ? { error: error.message } : { current: result.current, ttl: result.ttl };
              if (--pendingChecks === 0) answer();
            },
            check.timeWindow,
            check.max,
          ),
        );
      } else if (message?.type === 'vitrine:metrics') {
        aggregator.clusterMetrics().then(
          (text) => worker.send({ type: 'vitrine:metrics', id: message.id, text } satisfies MetricsAnswer),
          (error: Error) =>
            worker.send({ type: 'vitrine:metrics', id: message.id, error: error.message } satisfies MetricsAnswer),
        );
      }
    });
    worker.on('exit', (code, signal) => {
      const state = workers.get(worker)!;
      workers.delete(worker);
      // A process that dies holding the write lock (SQLite rolled its transaction back) releases it.
      if (holder === worker) grantNext();
      if (stopping) {
        if (workers.size === 0) process.exit(exitCode);
        return;
      }
      if (!state.ready) {
        // It could not start (a port in use, a database it cannot reach): the others would not either.
        stopAll(code || 1);
        return;
      }
      log(`vitrine: API process ${state.index} exited (${signal ?? `code ${code}`}); starting it again`);
      setTimeout(() => {
        if (!stopping) fork(state.index);
      }, 1_000).unref();
    });
  };

  for (let index = 0; index < processes; index++) fork(index);
  process.on('SIGTERM', () => stopAll(0));
  process.on('SIGINT', () => stopAll(0));
}
