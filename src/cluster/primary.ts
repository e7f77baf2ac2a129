import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../config.js';
import type {
  ClusterMessage,
  LockAnswer,
  MetricsAnswer,
  PeerPortsMessage,
  RateLimitAnswer,
  RateLimitResult,
} from './messages.js';

// The primary of `vitrine serve --processes N`: migrates once, starts and restarts the API
// processes, answers what they share (rate limits, the SQLite write lock, /metrics, peer messages).

interface LocalStoreLike {
  incr(
    key: string,
    cb: (error: Error | null, result: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number,
  ): void;
}

/** Semi-space size of each API process's young generation, in MB. */
const API_SEMI_SPACE_MB = 8;

export async function runPrimary(
  config: Config,
  processes: number,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  // The schema once, before any API process opens the database.
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
    import('../storage/database.js'),
    import('../storage/migrate.js'),
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
  let banner: string[] | undefined;
  let announced = false;

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

  // The API processes' young generation: V8's default (16 MB semi-spaces) holds about 40 MB more per
  // process at idle; 8 MB costs no measurable throughput (search, listings: BENCHMARKS.md › Fuzz). An
  // operator's own --max-semi-space-size (NODE_OPTIONS or node's flags) wins.
  const flags = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
  if (!flags.includes('--max-semi-space-size'))
    cluster.setupPrimary({ execArgv: [...process.execArgv, `--max-semi-space-size=${API_SEMI_SPACE_MB}`] });

  // Each API process's private port (a large store's calls are forwarded to the process that serves
  // it), told to every process whenever one comes or goes; the secret marks the forwarded calls.
  const peerPorts = new Map<number, number>();
  const peerSecret = randomBytes(24).toString('hex');
  const tellPeerPorts = () => {
    const message: PeerPortsMessage = { type: 'vitrine:peer-ports', ports: Object.fromEntries(peerPorts) };
    for (const worker of workers.keys()) if (worker.isConnected()) worker.send(message);
  };

  const fork = (index: number) => {
    const worker = cluster.fork({ VITRINE_PROCESS_INDEX: String(index), VITRINE_PEER_SECRET: peerSecret });
    workers.set(worker, { index, ready: false });
    worker.on('message', (message: ClusterMessage) => {
      if (message?.type === 'vitrine:peer-port') {
        peerPorts.set(message.index, message.port);
        tellPeerPorts();
      } else if (message?.type === 'vitrine:ready') {
        workers.get(worker)!.ready = true;
        banner ??= message.banner;
        // Once, when every API process listens: the operator's (and a test's) signal that all serve.
        if (banner && !announced && [...workers.values()].filter((w) => w.ready).length === processes) {
          announced = true;
          for (const line of banner) process.stdout.write(`${line}\n`);
        }
      } else if (message?.type === 'vitrine:write-lock') {
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
      if (peerPorts.delete(state.index) && !stopping) tellPeerPorts();
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
