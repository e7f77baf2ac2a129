import { BoundedCache, type CacheStats } from './bounded-cache.js';
import { onPrimary } from './read-routing.js';
import { compactAfterBuild } from './heap-compaction.js';

/** What every live index carries: the position it is current up to, and what it was built for. */
export interface LiveIndex {
  /** The store's change sequence (or the followed cursor) this index is current up to. */
  seq: number;
  /** What the index was built for (a model, a taxonomy, overrides): another key means a rebuild. */
  key: string;
  /**
   * Read and assembled by other threads (the attribute index of a large store): this heap holds no
   * garbage of the build for a compacting collection to gather, and none is taken (a 250 ms pause).
   */
  builtElsewhere?: boolean;
}

/** Where a caller needs the index to be: at least `seq`, built for `key`. */
export interface LiveIndexTarget {
  seq: number;
  key: string;
}

/** How one kind of live index is built, followed and weighed; LiveStoreIndex does the rest. */
export interface LiveIndexSpec<T extends LiveIndex, C = void> {
  /** The cache's name in /metrics and logs, `<module>.<index>`. */
  name: string;
  /** The memory budget of all stores' indexes of this kind in one process. */
  budgetBytes: number;
  /** Estimated bytes of one index (re-read each time it is stored again). */
  sizeOf(index: T): number;
  /** An index is evicted or deleted (not when replaced by a build): release what it holds outside the heap. */
  onDrop?(storeId: string, index: T): void;
  /** A new index of the store, current up to at least `target.seq`, built for `target.key`. */
  build(storeId: string, target: LiveIndexTarget, context: C): Promise<T>;
  /**
   * Brings `index` from its `seq` up to at least `target.seq` in place; false when it cannot (the
   * change log no longer holds the range, or catching up would cost more than a build): it is rebuilt.
   */
  follow(storeId: string, index: T, target: LiveIndexTarget, context: C): Promise<boolean>;
}

/**
 * A per-store in-memory index derived from the catalog (search by photo, complete the look, the
 * typo vocabulary; next facets and signals), in one shape: built from the database on first use,
 * followed from the change log after that, bounded by a memory budget (the least recently used
 * store's index is dropped and rebuilt when next asked for), one build or catch-up per store at a
 * time shared by every request that needs it, and rebuilt whenever following is not possible.
 */
/**
 * `C` is what a build or catch-up needs besides the store's id, passed by the caller with the
 * target (the store's settings, say).
 */
export class LiveStoreIndex<T extends LiveIndex, C = void> {
  readonly #cache: BoundedCache<T>;
  readonly #inFlight = new Map<string, Promise<T>>();

  constructor(private readonly spec: LiveIndexSpec<T, C>) {
    this.#cache = new BoundedCache(
      spec.name,
      spec.budgetBytes,
      (index) => spec.sizeOf(index),
      (storeId, index) => spec.onDrop?.(storeId, index),
    );
  }

  /** The store's index, current up to at least `target.seq` and built for `target.key`. */
  async current(storeId: string, target: LiveIndexTarget, context: C): Promise<T> {
    for (;;) {
      const cached = this.#cache.get(storeId);
      if (cached && cached.key === target.key && cached.seq >= target.seq) return cached;
      const pending = this.#inFlight.get(storeId);
      if (!pending) return this.#refresh(storeId, cached, target, context);
      // Another request's build or catch-up is under way: share it, then look again (it may have
      // been for an older position, or have failed: then this request makes its own).
      await pending.catch(() => undefined);
    }
  }

  /** The store's index as it is, counted as a use (a caller that answers without waiting for a build or catch-up). */
  used(storeId: string): T | undefined {
    return this.#cache.get(storeId);
  }

  /** The store's index as it is, without counting it as a use (a background pass, a stale answer). */
  peek(storeId: string): T | undefined {
    return this.#cache.peek(storeId);
  }

  /** The build or catch-up under way for the store, if any. */
  inFlight(storeId: string): Promise<T> | undefined {
    return this.#inFlight.get(storeId);
  }

  /** Counts the store's index again (it grew or shrank in place), unless it is no longer the one kept. */
  reweigh(storeId: string, index: T) {
    if (this.#cache.peek(storeId) === index) this.#cache.set(storeId, index);
  }

  /** Forgets the store's index: the next use builds it again. */
  invalidate(storeId: string) {
    this.#cache.delete(storeId);
  }

  values(): T[] {
    return this.#cache.values();
  }

  stats(): CacheStats {
    return this.#cache.stats();
  }

  /** Drops every index (each through `onDrop`): a closing process. */
  close() {
    this.#cache.close();
  }

  #refresh(storeId: string, cached: T | undefined, target: LiveIndexTarget, context: C): Promise<T> {
    // On the primary, whichever request asked: the index is shared by every later request, and its
    // position must be the one its data was read at (a replica's lag would leave it behind for good).
    const run = onPrimary(async () => {
      if (cached && cached.key === target.key && (await this.spec.follow(storeId, cached, target, context))) {
        // Stored again: its size changed.
        this.#cache.set(storeId, cached);
        return cached;
      }
      const started = performance.now();
      const built = await this.spec.build(storeId, target, context);
      // Replacing an index does not drop it: a rebuild may reuse what the old one held outside the
      // heap under the same name (the visual index's matrix), and `build` releases what it replaces.
      this.#cache.set(storeId, built);
      // After the set: the index it replaced, and any the budget evicted, are collected in the same pass.
      if (!built.builtElsewhere) compactAfterBuild(this.spec.sizeOf(built), performance.now() - started);
      return built;
    }).finally(() => this.#inFlight.delete(storeId));
    this.#inFlight.set(storeId, run);
    return run;
  }
}
