import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { clusterMetrics } from '../cluster/metrics.js';
import { isClusterWorker } from '../cluster/messages.js';
import type { Container } from '../container.js';
import { errorEnvelope } from './envelope.js';
import { openCacheStats } from '../storage/bounded-cache.js';
import { withTimeout } from '../net/with-timeout.js';
import { INDEXES } from '../modules/changes/index-freshness.js';
import { heapCompactionStats } from '../storage/heap-compaction.js';

const CHECK_TIMEOUT_MS = 2_000;

/** Each configured backing service, checked at once: `ok`, or what failed. */
async function checkBackingServices(container: Container): Promise<Record<string, string>> {
  const checks: Array<[string, () => Promise<unknown>]> = [
    ['database', () => sql`select 1`.execute(container.storage.db)],
  ];
  const redis = container.redis;
  if (redis) checks.push(['redis', () => redis.ping()]);
  if (container.config.mediaS3) checks.push(['media_store', () => container.media.probe()]);
  const results = await Promise.all(
    checks.map(async ([name, check]) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        return [name, 'ok'] as const;
      } catch (error) {
        return [name, `unreachable: ${error instanceof Error ? error.message : String(error)}`] as const;
      }
    }),
  );
  return Object.fromEntries(results);
}

/**
 * Prometheus metrics of one app (its own registry: several apps may share a process in tests).
 * Queue depths, import jobs and follower lag are read from the database at scrape time, so every
 * process reports the same shared state; request counts and latencies are this process's own.
 */
function createMetrics(container: Container) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'vitrine_' });
  const labels = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'vitrine_http_requests_total',
    help: 'HTTP requests answered, by route and status',
    labelNames: labels,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'vitrine_http_request_duration_seconds',
    help: 'time to answer, by route and status',
    labelNames: labels,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  // Read from the shared database at scrape time: the same in every process, so counted once.
  const databaseGauge = (name: string, help: string, label: string, read: () => Promise<Record<string, number>>) =>
    new Gauge({
      name,
      help,
      labelNames: [label],
      aggregator: 'first',
      registers: [registry],
      async collect() {
        const values = await read();
        this.reset();
        for (const [value, count] of Object.entries(values)) this.set({ [label]: value }, count);
      },
    });
  databaseGauge(
    'vitrine_image_queue',
    'catalog images by state of the search-by-photo pipeline (pending, indexed, failed, …)',
    'state',
    () => container.visual.imageQueueCounts(),
  );
  databaseGauge('vitrine_import_jobs', 'catalog import jobs by status (queued, running, done, failed)', 'status', () =>
    container.imports.countByStatus(),
  );
  databaseGauge(
    'vitrine_change_log_lag',
    'changes written but not yet applied, per follower (search index, images, collections, …), all stores',
    'follower',
    () => container.changes.followerLag(),
  );
  // Per index, over the stores with work pending: /metrics is public, so no store is named (each
  // store's own figures are in its GET /v1/stores).
  let behind: Promise<Awaited<ReturnType<Container['freshness']['behind']>>> | undefined;
  const storesBehind = () =>
    (behind ??= container.freshness.behind(1000).finally(() => setTimeout(() => (behind = undefined), 1000)));
  for (const [name, help, value] of [
    [
      'vitrine_index_pending',
      'per index, changes not applied yet summed over stores (photos: plus images to embed)',
      (n: number) => n,
    ],
    ['vitrine_index_stores_behind', 'per index, stores with work pending', (n: number) => (n > 0 ? 1 : 0)],
  ] as const)
    new Gauge({
      name,
      help,
      labelNames: ['index'],
      aggregator: 'first',
      registers: [registry],
      async collect() {
        const totals: Record<string, number> = Object.fromEntries(INDEXES.map((index) => [index, 0]));
        for (const { pending } of await storesBehind())
          for (const index of INDEXES) totals[index] += value(pending[index]);
        this.reset();
        for (const [index, total] of Object.entries(totals)) this.set({ index }, total);
      },
    });
  databaseGauge(
    'vitrine_webhook_subscriptions',
    'webhook subscriptions by health (active, failing, disabled)',
    'health',
    () => container.webhooks.countByHealth(),
  );
  databaseGauge(
    'vitrine_webhook_backlog',
    'changes not yet delivered to active webhook subscriptions, all stores',
    'kind',
    async () => ({ changes: await container.webhooks.backlog() }),
  );
  const redisHealth = container.redisHealth;
  if (redisHealth) {
    new Gauge({
      name: 'vitrine_redis_up',
      help: '1 while Redis answers the rate limiter of this process, 0 while it counts in-process (fail open)',
      registers: [registry],
      collect() {
        this.set(redisHealth.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'vitrine_redis_transitions',
      help: 'times this process saw Redis go away or come back',
      registers: [registry],
      collect() {
        this.set(redisHealth.transitions);
      },
    });
  }
  new Gauge({
    name: 'vitrine_worker_failures',
    help: 'failed runs of each background worker of this process since it started',
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      this.reset();
      for (const status of container.workers.status()) this.set({ worker: status.name }, status.failures);
    },
  });
  const listingCache = container.listingCache;
  new Gauge({
    name: 'vitrine_listing_cache_lookups',
    help: 'listing pages (assets, collection members) answered from this process’s cache (hit) or read (miss), since start',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const stats = listingCache.stats();
      this.set({ result: 'hit' }, stats.hits);
      this.set({ result: 'miss' }, stats.misses);
    },
  });
  new Gauge({
    name: 'vitrine_listing_cache_bytes',
    help: 'estimated memory the listing cache holds (its budget: VITRINE_LISTING_CACHE_MB per process)',
    registers: [registry],
    collect() {
      this.set(listingCache.stats().bytes);
    },
  });
  const poolStats = container.storage.poolStats?.bind(container.storage);
  if (poolStats) {
    new Gauge({
      name: 'vitrine_db_pool_connections',
      help: 'PostgreSQL pool connections: total, idle, and requests waiting for one',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = poolStats();
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
  }
  new Gauge({
    name: 'vitrine_heap_compactions',
    help: 'compacting garbage collections after large index builds (VITRINE_HEAP_COMPACT_MB): how many, the seconds they paused the process, the heap bytes they handed back (summed over the processes)',
    labelNames: ['measure'],
    registers: [registry],
    collect() {
      const compaction = heapCompactionStats();
      this.set({ measure: 'count' }, compaction.compactions);
      this.set({ measure: 'pause_seconds' }, compaction.pauseSeconds);
      this.set({ measure: 'released_bytes' }, compaction.releasedBytes);
    },
  });
  new Gauge({
    name: 'vitrine_index_memory_bytes',
    help: 'estimated memory of the per-store in-memory indexes and caches of each kind (summed over the processes), against their budgets',
    labelNames: ['index', 'measure'],
    registers: [registry],
    collect() {
      this.reset();
      for (const stats of openCacheStats()) {
        this.set({ index: stats.name, measure: 'bytes' }, stats.bytes);
        this.set({ index: stats.name, measure: 'budget' }, stats.maxBytes);
        this.set({ index: stats.name, measure: 'stores' }, stats.entries);
      }
    },
  });
  if (container.storeOwners.enabled)
    new Gauge({
      name: 'vitrine_forwarded_calls',
      help: 'calls of large stores handed to the API process that serves them (VITRINE_LARGE_STORE_PRODUCTS), since start, summed over the processes',
      registers: [registry],
      collect() {
        this.set(container.storeOwners.forwarded);
      },
    });
  const replicas = container.storage.replicas;
  if (replicas) {
    new Gauge({
      name: 'vitrine_replica_lag_ms',
      help: 'how far each read replica is behind the primary (-1: unknown, it does not answer)',
      labelNames: ['replica'],
      aggregator: 'max',
      registers: [registry],
      collect() {
        this.reset();
        for (const replica of replicas.status()) this.set({ replica: replica.name }, replica.lag_ms ?? -1);
      },
    });
    new Gauge({
      name: 'vitrine_replica_usable',
      help: '1 while a read replica is read from, 0 while it is skipped (down, lagging, not a standby)',
      labelNames: ['replica'],
      aggregator: 'min',
      registers: [registry],
      collect() {
        this.reset();
        for (const replica of replicas.status()) this.set({ replica: replica.name }, replica.state === 'ok' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'vitrine_routed_statements',
      help: 'statements of read requests (GET) by the server that answered them (primary, replica-<n>), since start',
      labelNames: ['server'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [server, count] of Object.entries(replicas.statements())) this.set({ server }, count);
      },
    });
  }
  if (isClusterWorker()) {
    // The primary of `vitrine serve --processes N` asks every process for its registry and sums them.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  }
  return { registry, requests, latency };
}

/** /healthz, /readyz and /metrics: no token, no rate limit, no tenant data. */
export function registerOperations(app: FastifyInstance, container: Container) {
  const metrics = createMetrics(container);
  // The labelled children are kept: looking them up by label values on every request costs more
  // than the counting itself on the hottest routes.
  const children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return done();
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      const counter = metrics.requests.labels(labels);
      const histogram = metrics.latency.labels(labels);
      child = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      children.set(key, child);
    }
    child.count();
    child.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Ready when the database (and the media bucket, when configured) answers; Redis only shares rate
  // limits, which fail open to per-process counts, so without it the process is ready but degraded.
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const checks = await checkBackingServices(container);
    const states = Object.fromEntries(
      Object.entries(checks).map(([name, result]) => [name, result === 'ok' ? 'ok' : 'unreachable']),
    );
    const failing = Object.entries(checks).filter(([name, result]) => result !== 'ok' && name !== 'redis');
    // A replica that is down or lagging is skipped (reads go to the primary): degraded, still ready.
    const replicas = container.storage.replicas?.status();
    if (failing.length === 0) {
      const degraded =
        (checks.redis !== undefined && checks.redis !== 'ok') || replicas?.some((replica) => replica.state !== 'ok');
      return {
        status: degraded ? 'degraded' : 'ok',
        engine: container.storage.dialect.name,
        ...states,
        checks,
        ...(replicas && { replicas }),
      };
    }
    const message = `not ready: ${failing.map(([name, result]) => `${name} ${result}`).join('; ')}`;
    return reply
      .code(503)
      .header('retry-after', '5')
      .send({ ...errorEnvelope(request.id, message), ...states, checks, ...(replicas && { replicas }) });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = isClusterWorker() ? await clusterMetrics() : await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
