import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

// @fastify/rate-limit's own stores: Redis (shared counts) and the in-process LRU.
const require = createRequire(import.meta.url);
type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
interface Store {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}
type StoreCtor = new (...args: unknown[]) => Store;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreCtor;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreCtor;

export function createRedis(url: string): Redis {
  // Loaded only when REDIS_URL is set: ioredis holds ~2 MB of heap per process that a single machine never uses.
  const { Redis } = require('ioredis') as typeof import('ioredis');
  // A request never waits on Redis: disconnected, a command fails at once (no offline queue);
  // connected but silent, within 100 ms. The rate limiter then counts in-process (RedisHealth).
  return new Redis(url, {
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 100,
    enableOfflineQueue: false,
    lazyConnect: false,
  });
}

/** Whether Redis answers, as the rate limiter last saw it; each change is logged once and counted. */
export class RedisHealth {
  #up = true;
  transitions = 0;

  constructor(
    private readonly redis: Redis,
    private readonly log: (up: boolean, reason: string) => void,
  ) {
    redis.on('ready', () => this.set(true, 'connected'));
    redis.on('close', () => this.set(false, 'connection closed'));
  }

  /**
   * Waits (at most `ms`) for the first connection, so that a process starting beside others shares
   * their counts from its first request; when Redis does not come, it starts failing open.
   */
  async ready(ms = 2_000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(value);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.redis.on('ready', onReady);
    });
  }

  get up() {
    return this.#up && this.redis.status === 'ready';
  }

  set(up: boolean, reason: string) {
    if (up === this.#up) return;
    this.#up = up;
    this.transitions++;
    this.log(up, reason);
  }
}

/**
 * Rate-limit counts in Redis (shared by every API process), failing open to this process's own
 * counts while Redis is unreachable: requests never wait on a dead Redis (ioredis answers at once
 * when disconnected, and within its 100 ms command timeout otherwise), and limits keep holding
 * per process until Redis is back.
 */
export function failoverRateLimitStore(redis: Redis, nameSpace: string, health: RedisHealth): StoreCtor {
  class FailoverStore implements Store {
    constructor(
      private readonly shared: Store,
      private readonly local: Store,
    ) {}

    incr(key: string, callback: Callback, timeWindow: number, max: number) {
      if (!health.up) return this.local.incr(key, callback, timeWindow, max);
      this.shared.incr(
        key,
        (error, result) => {
          if (!error) return callback(null, result);
          health.set(false, error.message);
          this.local.incr(key, callback, timeWindow, max);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: unknown): Store {
      return new FailoverStore(this.shared.child(routeOptions), this.local.child(routeOptions));
    }
  }
  return class {
    constructor(params: { continueExceeding: boolean; exponentialBackoff: boolean }) {
      return new FailoverStore(
        new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, nameSpace),
        new LocalStore(params.continueExceeding, params.exponentialBackoff, 10_000),
      );
    }
  } as unknown as StoreCtor;
}
