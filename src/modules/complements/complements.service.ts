import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import { NotFoundError } from '../../errors.js';
import { LiveStoreIndex } from '../../storage/live-store-index.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { Store } from '../stores/store.js';
import type { StoresService } from '../stores/stores.service.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import { PollingWorker, type WorkerErrorLog } from '../../jobs/workers.js';
import { StoreVocabulary } from '../../catalog/vocabulary/store-vocabulary.js';
import { overridesOf } from '../../catalog/vocabulary/vocabulary-overrides.js';
import * as repo from './complements.repository.js';
import {
  BYTES_PER_CANDIDATE,
  byRank,
  candidateOf,
  candidateOfProduct,
  emptyIndex,
  fittingBuckets,
  indexedCandidate,
  nearest,
  placed,
  putCandidate,
  removeCandidate,
  type Candidate,
  type StoreIndex,
  type Unplaced,
} from './complement-index.js';
import defaultTaxonomy from './fashion-taxonomy.json' with { type: 'json' };
import { categoricalScore, parseTaxonomy, priceBandScore, usageClashes, type Taxonomy } from './complement-rules.js';
import { MAX_CATEGORIES } from '../../catalog/limits.js';
import { ValuePool } from '../../storage/value-pool.js';
import { storeRows } from '../../storage/store-rows.js';
import { storeValues } from '../../catalog/attribute-columns.js';

const REBUILD_AFTER = 5000;
/** Stores whose pins a process keeps at most (a merchandiser pins a few products; the map is emptied past this). */
const MAX_PINNED_STORES = 1000;
/**
 * Bytes of a store's index beside its candidates (buckets, maps, the store's vocabulary): 1 KB was counted
 * until stores of 2,000 products measured 1.19× their estimate (817 KB a store, heap and buffers after a
 * full collection, 200 stores in one process: bench/index-memory.bench.ts); with 128 KB, 1.03×.
 */
const BYTES_PER_STORE_INDEX = 128 * 1024;
/** How long a request waits for a catch-up in progress before it answers from the index as it is. */
const FRESHNESS_WAIT_MS = 30;

/**
 * "Complete the look": complementary products grouped by category, from the store's taxonomy, the
 * catalog vocabulary (which places each label in a group, resolves departments to audiences and
 * colours to families) and the ranking rules (complement-rules.ts). Candidates live in an
 * in-memory index per store, built on its first request and then kept up by a background worker
 * (`complements.warm`) as the catalog changes, so a request scores only the complementary groups.
 */
export class ComplementsService {
  /** Per-store candidate indexes (LiveStoreIndex): built, followed, bounded by memory, one refresh per store at a time. */
  readonly #indexes: LiveStoreIndex<StoreIndex, Store>;
  /** Each store's complement pins and the version they were read at (see #pinsOf). */
  readonly #pins = new Map<string, { version: number; pins: Map<string, string[]> }>();
  /**
   * The stores this process has answered complete the look for or written to: only theirs are kept
   * warm. A store nobody asks for here (every store at start, the quiet tenants of a thousand) costs
   * neither memory nor CPU until its first request builds its index.
   */
  readonly #wanted = new Set<string>();
  /** Keeps the indexes of the stores this process serves warm as their catalog moves, so no request pays for a catch-up. */
  readonly worker: PollingWorker;

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly products: ProductsReadPort,
    private readonly stores: StoresService,
    private readonly options: {
      indexBytes: number;
      onError?: WorkerErrorLog;
      /**
       * Products added to cart or bought together with a product, enough baskets each, most first (the
       * events module): preferred within their category. Without events, none.
       */
      boughtWith?: (store: Store, productCode: string) => Promise<Array<{ code: string; support: number }>>;
    },
  ) {
    this.#indexes = new LiveStoreIndex<StoreIndex, Store>({
      name: 'complements.index',
      budgetBytes: options.indexBytes,
      sizeOf: (index) => BYTES_PER_STORE_INDEX + index.slots.count * BYTES_PER_CANDIDATE,
      // An index the budget pushed out is no longer kept warm: rebuilding it at the next pass evicted
      // another wanted store, every 250 ms, for good (touching 1,000 stores, both API processes spent
      // their CPU rebuilding, half of it collecting garbage). Its next request builds it again.
      onDrop: (storeId) => this.#wanted.delete(storeId),
      build: (_storeId, target, store) => this.#build(store, target.key, target.seq),
      follow: (_storeId, index, target, store) => this.#follow(store, index, target.seq),
    });
    this.worker = new PollingWorker('complements.warm', 250, () => this.#warm(), options.onError);
  }

  static defaultTaxonomy(): Taxonomy {
    return parseTaxonomy(defaultTaxonomy);
  }

  /** Drops the stores' indexes (a closing process). */
  close() {
    this.#indexes.close();
  }

  taxonomyOf(store: Store): Taxonomy {
    return store.complementsTaxonomy
      ? parseTaxonomy(JSON.parse(store.complementsTaxonomy))
      : ComplementsService.defaultTaxonomy();
  }

  /** The store's vocabulary (no products counted yet): its overrides, and its taxonomy's groups and own label lists. */
  vocabularyOf(store: Store): StoreVocabulary {
    const taxonomy = this.taxonomyOf(store);
    // The shipped taxonomy's lists are part of the built-in vocabulary; a custom one's come first.
    return new StoreVocabulary(
      overridesOf(store.vocabularyOverrides),
      new Set(Object.keys(taxonomy.groups)),
      store.complementsTaxonomy ? taxonomy.groups : {},
      store.language,
    );
  }

  #keyOf(store: Store) {
    return `${store.complementsTaxonomy ?? 'default'}\u0000${store.vocabularyOverrides ?? ''}\u0000${store.language}`;
  }

  /**
   * Keeps a store's index warm in this process from now on: a write of this process named it (a
   * catalog being imported here is asked to complete the look here next). A store only read here
   * (searched, listed) is built on its first complete-the-look request: warming it on a search cost
   * a cold store's next requests in this process the whole build (a store of 2,000 products: 20–80 ms
   * of blocked event loop at a thousand stores).
   */
  want(storeId: string) {
    this.#wanted.add(storeId);
  }

  /** No longer keeps the store's index warm here (another process serves the store). */
  unwant(storeId: string) {
    this.#wanted.delete(storeId);
  }

  /** Builds or catches up the indexes of stores whose catalog moved since the last pass. */
  async #warm() {
    for (const { id, change_seq: seq } of await this.stores.changeSequences()) {
      if (!this.#wanted.has(id)) continue;
      const cached = this.#indexes.peek(id);
      if (cached ? cached.seq >= seq : seq === 0) continue;
      const store = await this.stores.getStore(id).catch(() => undefined);
      // Passes until the index stops moving: during a large import it keeps up instead of falling
      // a poll interval behind each time (a request then finds little or nothing to apply).
      for (let last = -1, pass = 0; store && pass < 50; pass++) {
        const index = await this.#index(store, await this.changes.latest(store.id));
        if (index.seq === last) break;
        last = index.seq;
      }
    }
  }

  /**
   * The index for a request: brought up to date, unless the catch-up in progress takes longer than
   * FRESHNESS_WAIT_MS (a large import still landing), then the index as the last pass left it — at
   * most one pass behind, well within the second a write may take to show.
   */
  async #current(store: Store): Promise<StoreIndex> {
    this.#wanted.add(store.id);
    const cached = this.#indexes.peek(store.id);
    // Up to the sequence read with the store at the request's start (with its token): no query of its own.
    const fresh = this.#index(store, store.changeSeq);
    if (!cached || cached.key !== this.#keyOf(store)) return fresh;
    let timer: NodeJS.Timeout | undefined;
    const stale = new Promise<StoreIndex>((resolve) => {
      timer = setTimeout(() => resolve(cached), FRESHNESS_WAIT_MS);
    });
    try {
      return await Promise.race([fresh, stale]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The store's index brought up to `latest` (a refresh already under way is shared). */
  #index(store: Store, latest: number): Promise<StoreIndex> {
    return this.#indexes.current(store.id, { seq: latest, key: this.#keyOf(store) }, store);
  }

  /** Applies the products changed since the index's sequence; false when a rebuild is needed or cheaper. */
  async #follow(store: Store, index: StoreIndex, latest: number): Promise<boolean> {
    // Catching up costs about what the changes cost; past the size of the index a rebuild is cheaper.
    if (latest - index.seq > Math.max(REBUILD_AFTER, index.slots.count)) return false;
    // Incremental: only the products changed since the index was last brought up to date.
    const changed = await this.changes.changedKeys(store.id, index.seq, latest, ['product']);
    if (!changed) return false;
    const codes = changed.get('product') ?? [];
    const fresh = (await this.products.visibleByCodes(store.id, codes)).map((p) => ({
      code: p.code,
      unplaced: candidateOf(p.code, p.attributes, index.vocabulary, index.pool),
    }));
    const leaving = codes.flatMap((code) => {
      const candidate = indexedCandidate(index, code);
      return candidate ? [candidate] : [];
    });
    // Labels whose placement depends on their products (Sub Category or title votes) may move: then rebuild.
    const labels = new Set(
      [...leaving.map((c) => c.labels), ...fresh.map((f) => f.unplaced.labels)].map((l) => l.category),
    );
    const before = new Map([...labels].map((label) => [label, index.vocabulary.category(label).group]));
    for (const candidate of leaving) {
      removeCandidate(index, candidate.code);
      index.vocabulary.remove(candidate.labels);
    }
    for (const { unplaced } of fresh) index.vocabulary.add(unplaced.labels);
    const moved = [...before].some(
      ([label, group]) => index.vocabulary.hasCategory(label) && index.vocabulary.category(label).group !== group,
    );
    if (moved) return false;
    for (const { code, unplaced } of fresh) putCandidate(index, code, placed(unplaced, index.vocabulary, index.pool));
    index.seq = latest;
    return true;
  }

  /** Reads every visible product: first counts their labels, then places each (a label's placement may need all of its products). */
  async #build(store: Store, key: string, seq: number): Promise<StoreIndex> {
    const taxonomy = this.taxonomyOf(store);
    const vocabulary = this.vocabularyOf(store);
    // Titles and image URLs: the store's copies where its listing or photo index holds them.
    const pool = new ValuePool(storeValues(store.id).shared);
    const index = emptyIndex({ key, seq, taxonomy, vocabulary, pool }, storeRows(store.id));
    // Codes and their (pooled) parts side by side: no object per product while the labels are counted.
    const codes: string[] = [];
    const unplaced: Unplaced[] = [];
    for await (const page of this.products.pageAll(store.id, { visibleOnly: true })) {
      for (const product of page) {
        const candidate = candidateOf(product.code, product.attributes, vocabulary, pool);
        vocabulary.add(candidate.labels);
        codes.push(product.code);
        unplaced.push(candidate);
      }
    }
    for (let i = 0; i < codes.length; i++) putCandidate(index, codes[i], placed(unplaced[i], vocabulary, pool));
    pool.settle();
    return index;
  }

  async complementary(store: Store, productCode: string, limit: number) {
    // Independent reads at once (on PostgreSQL either may need a round trip).
    const [index, pins, together] = await Promise.all([
      this.#current(store),
      this.#pinsOf(store),
      this.options.boughtWith?.(store, productCode) ?? [],
    ]);
    const pinned = pins.get(productCode) ?? [];
    const source = await this.#source(store, index, productCode);
    const sourceGroup = source.placement.group;

    /** The indexed candidates among `codes` by group, in the order given, for groups `keep` accepts. */
    const byGroup = (codes: Iterable<string>, keep: (group: string) => boolean) => {
      const grouped = new Map<string, Candidate[]>();
      for (const code of codes) {
        const candidate = indexedCandidate(index, code);
        const group = candidate?.placement.group;
        if (candidate && group && code !== source.code && keep(group))
          grouped.set(group, [...(grouped.get(group) ?? []), candidate]);
      }
      return grouped;
    };
    const pinnedByGroup = byGroup(pinned, (group) => group !== sourceGroup);
    const groups = [
      ...new Set([...pinnedByGroup.keys(), ...(sourceGroup ? (index.taxonomy.complements[sourceGroup] ?? []) : [])]),
    ].filter((g) => g !== sourceGroup);
    // Bought together in enough baskets: first within their category after the pins (most baskets first).
    const boughtByGroup = byGroup(
      together.map(({ code }) => code),
      (group) => groups.includes(group),
    );
    const categories = [];
    for (const group of groups) {
      if (categories.length >= MAX_CATEGORIES) break;
      const preferred = [...(pinnedByGroup.get(group) ?? []), ...(boughtByGroup.get(group) ?? [])];
      const first = [...new Map(preferred.map((c) => [c.code, c])).values()].map((c) => ({ candidate: c, score: 1 }));
      const taken = new Set(first.map((f) => f.candidate.code));
      const skip = (code: string) => code === source.code || taken.has(code);
      // Buckets best first (image, then the score part they share): once the limit is filled, a
      // bucket whose best possible score (price band 1) cannot beat the last kept one ends the walk.
      const buckets = fittingBuckets(index, group, source.traits.audience)
        .filter((bucket) => bucket.items.length > 0 && !usageClashes(source.traits.usage, bucket.sample.usage))
        .map((bucket) => ({
          bucket,
          image: Number(bucket.sample.hasImage),
          categorical: categoricalScore(source.traits, bucket.sample),
        }))
        .sort((a, b) => b.image - a.image || b.categorical - a.categorical);
      let scored: Array<{ candidate: Candidate; score: number }> = [];
      for (const { bucket, image, categorical } of buckets) {
        const last = scored.length >= limit ? scored[limit - 1] : undefined;
        if (last) {
          const lastImage = Number(last.candidate.traits.hasImage);
          if (image < lastImage || (image === lastImage && categorical + 0.25 < last.score)) break;
        }
        for (const candidate of nearest(index.slots, bucket.items, source.traits.logPrice, limit, skip)) {
          scored.push({ candidate, score: categorical + 0.25 * priceBandScore(source.traits, candidate.traits) });
        }
        scored.sort(byRank);
        scored = scored.slice(0, limit);
      }
      const products = [...first, ...scored].slice(0, limit).map(({ candidate, score }) => ({
        product_code: candidate.code,
        title: candidate.title,
        category: candidate.category,
        price: candidate.price,
        currency: candidate.currency,
        image_url: candidate.imageUrl,
        score: Math.round(score * 10_000) / 10_000,
      }));
      if (products.length > 0) categories.push({ title: group.toUpperCase(), products });
    }
    return { categories };
  }

  /**
   * The store's pins as of the version read with the store at the request's start: kept until the
   * version moves (every change to them bumps it, in their transaction), so a request asks for them
   * only after a change. A value is never labelled newer than what was read.
   */
  async #pinsOf(store: Store): Promise<Map<string, string[]>> {
    const cached = this.#pins.get(store.id);
    if (cached && cached.version === store.pinsVersion) return cached.pins;
    const pins = await repo.allPins(this.storage.db, store.id);
    if (this.#pins.size >= MAX_PINNED_STORES) this.#pins.clear();
    this.#pins.set(store.id, { version: store.pinsVersion, pins });
    return pins;
  }

  /**
   * The product asked about, placed. A visible product is in the index: when the index is as recent
   * as the store the request read, its entry is the product as stored, and no query is needed. Any
   * other stored product gets complements too (a merchandiser previews drafts); only visible products
   * are recommended.
   */
  async #source(store: Store, index: StoreIndex, productCode: string): Promise<Candidate> {
    const indexed = index.seq >= store.changeSeq ? indexedCandidate(index, productCode) : undefined;
    if (indexed) return indexed;
    const product = await this.products.byCode(store.id, productCode);
    if (!product) throw new NotFoundError(`product ${productCode} not found`, 'product_code');
    return candidateOfProduct(product.code, product.attributes, index.vocabulary);
  }

  /** What this process holds for a store (change sequence and products indexed), without touching the LRU order. */
  indexState(storeId: string): { seq: number; products: number } | undefined {
    const index = this.#indexes.peek(storeId);
    return index && { seq: index.seq, products: index.slots.count };
  }

  /** Forgets a store's index (its taxonomy or vocabulary changed); the worker or the next request rebuilds it. */
  invalidate(storeId: string) {
    this.#indexes.invalidate(storeId);
    this.worker.wake();
  }

  async setPins(storeUuid: string, productCode: string, codes: string[]) {
    const store = await this.stores.getStore(storeUuid);
    const pinned = [...new Set(codes)];
    await inTransaction(this.storage, (trx) => repo.savePins(trx, store.id, productCode, pinned));
    return { product_code: productCode, pinned };
  }

  async getTaxonomy(storeUuid: string): Promise<Taxonomy> {
    return this.taxonomyOf(await this.stores.getStore(storeUuid));
  }

  async setTaxonomy(storeUuid: string, input: unknown) {
    const taxonomy = parseTaxonomy(input);
    const store = await this.stores.getStore(storeUuid);
    await this.stores.setComplementsTaxonomy(store.id, JSON.stringify(taxonomy));
    this.invalidate(store.id);
    return taxonomy;
  }
}
