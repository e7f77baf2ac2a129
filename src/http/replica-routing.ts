import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { peers } from '../cluster/peers.js';
import type { RedisHealth } from './rate-limit-store.js';
import type { StorageHandle } from '../storage/dialect.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import { currentReadRoute, withReadRoute } from '../storage/read-routing.js';
import { presentedToken } from './auth.js';

/** Marks kept in one process before the expired ones are swept. */
const MAX_LOCAL_MARKS = 50_000;
const REDIS_PREFIX = 'vitrine-rw:';

/**
 * The primary's WAL position after each token's last write, kept for as long as a usable replica
 * may still miss it (the lag limit and one look): in this process, in the other processes of the
 * group, and in Redis when configured, so a read of the same token on any API process finds it.
 */
class WrittenPositions {
  readonly #local = new Map<string, { position: bigint; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly redis?: Redis,
    private readonly redisHealth?: RedisHealth,
  ) {
    peers.subscribe('written-position', (payload) => {
      const [key, position] = payload.split(' ');
      this.#keep(key, BigInt(position));
    });
  }

  #keep(key: string, position: bigint) {
    const known = this.#local.get(key);
    if (known && known.position > position && known.until > Date.now()) return;
    this.#local.delete(key);
    this.#local.set(key, { position, until: Date.now() + this.ttlMs });
    if (this.#local.size > MAX_LOCAL_MARKS) {
      const now = Date.now();
      for (const [each, mark] of this.#local) if (mark.until <= now) this.#local.delete(each);
      // Still full: the oldest marks go first (a read of theirs then waits for a caught-up replica or uses the primary).
      for (const each of this.#local.keys()) {
        if (this.#local.size <= MAX_LOCAL_MARKS) break;
        this.#local.delete(each);
      }
    }
  }

  async set(key: string, position: bigint) {
    this.#keep(key, position);
    peers.publish('written-position', `${key} ${position}`);
    if (this.redis && this.redisHealth?.up !== false)
      await this.redis.set(`${REDIS_PREFIX}${key}`, position.toString(), 'PX', this.ttlMs).catch(() => undefined);
  }

  async get(key: string): Promise<bigint | undefined> {
    const local = this.#local.get(key);
    const fresh = local && local.until > Date.now() ? local.position : undefined;
    if (!this.redis || this.redisHealth?.up === false) return fresh;
    const shared = await this.redis.get(`${REDIS_PREFIX}${key}`).catch(() => null);
    const fromRedis = shared ? BigInt(shared) : undefined;
    return fresh === undefined || (fromRedis !== undefined && fromRedis > fresh) ? fromRedis : fresh;
  }
}

const keyOf = (token: string) => createHash('sha256').update(token).digest('base64url').slice(0, 22);
const READS = new Set(['GET', 'HEAD']);
/** Beyond any real WAL position: no replica qualifies. */
const UNKNOWN_POSITION = 1n << 64n;

export interface ReplicaRoutingOptions {
  storage: StorageHandle;
  changeLog: ChangeFeed;
  maxLagMs: number;
  redis?: Redis;
  redisHealth?: RedisHealth;
}

/**
 * Read replicas (DATABASE_READ_URLS): a GET with a token reads from a replica that has replayed that
 * token's last write (its WAL position, noted when the write was answered), else from the primary.
 * The request's store is then taken at the replica's change sequence, so what it caches is never
 * labelled newer than what it read. Writes, transactions and everything without a token stay on the
 * primary. Without replicas nothing is registered.
 */
export function registerReplicaRouting(app: FastifyInstance, options: ReplicaRoutingOptions) {
  const { storage } = options;
  const replicas = storage.replicas;
  if (!replicas || !storage.writePosition) return;
  const writePosition = storage.writePosition.bind(storage);
  const positions = new WrittenPositions(options.maxLagMs + 1_000, options.redis, options.redisHealth);

  // First of all hooks: everything the request does runs inside its route (empty until it is authenticated).
  app.addHook('onRequest', (request, _reply, done) => {
    if (READS.has(request.method)) withReadRoute({}, done);
    else done();
  });

  // After authentication (onRequest), before the store scope (the /v1 preHandler).
  app.addHook('preHandler', async (request: FastifyRequest) => {
    const route = currentReadRoute();
    const token = presentedToken(request);
    if (!route || !token) return;
    route.replica = replicas.pick(await positions.get(keyOf(token))) ?? null;
    const named = request.namedStore;
    if (route.replica && named) {
      const { latest } = await options.changeLog.bounds(named.id);
      if (latest < named.changeSeq) request.namedStore = { ...named, changeSeq: latest };
    }
  });

  // A write is answered only once its position is noted: the caller's next read may come at once.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (READS.has(request.method) || request.method === 'OPTIONS') return payload;
    const token = presentedToken(request);
    if (!token) return payload;
    let position: bigint;
    try {
      position = await writePosition();
    } catch {
      // The primary did not answer: its position is unknown, so this token reads from the primary
      // until no usable replica can still miss what it may have written.
      position = UNKNOWN_POSITION;
    }
    await positions.set(keyOf(token), position);
    return payload;
  });
}
