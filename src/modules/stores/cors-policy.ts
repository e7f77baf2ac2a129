import { LRUCache } from 'lru-cache';
import { peers } from '../../cluster/peers.js';
import type { Db } from '../../storage/database.js';
import { findAllowedOrigins } from './stores.repository.js';

/**
 * Which browser origins may call the API for a store. Read on browser requests only (they carry an
 * Origin header), cached briefly so that a storefront's traffic costs no query per request; a change
 * made through the API applies at once in every API process of the server; one made by another
 * program (the CLI) within `ttlMs`.
 */
export class CorsPolicy {
  readonly #cache: LRUCache<string, string[]>;

  constructor(
    private readonly db: Db,
    ttlMs = 30_000,
  ) {
    this.#cache = new LRUCache({ max: 10_000, ttl: ttlMs });
    // The other API processes of `vitrine serve --processes N` forget a store's origins when this one changes them.
    peers.subscribe('cors-forget', (storeUuid) => this.#cache.delete(storeUuid));
  }

  async allows(storeUuid: string | undefined, origin: string): Promise<boolean> {
    if (!storeUuid || storeUuid.length > 64) return false;
    let origins = this.#cache.get(storeUuid);
    if (!origins) {
      origins = (await findAllowedOrigins(this.db, storeUuid)) ?? [];
      this.#cache.set(storeUuid, origins);
    }
    return origins.includes(origin.toLowerCase());
  }

  forget(storeUuid: string) {
    this.#cache.delete(storeUuid);
    peers.publish('cors-forget', storeUuid);
  }
}
