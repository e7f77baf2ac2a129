import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import { NotFoundError } from '../../errors.js';
import { BoundedCache } from '../../storage/bounded-cache.js';
import type { ChangeFeed } from '../../jobs/change-feed.js';
import { firstImageUrl, textOf } from '../../catalog/product-fields.js';
import { priceOf } from '../../catalog/price.js';
import type { Store } from '../stores/store.js';
import type { StoresService } from '../stores/stores.service.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import { PollingWorker, type WorkerErrorLog } from '../../jobs/workers.js';
import { audiencesFit } from '../../catalog/vocabulary/audiences.js';
import {
  overridesOf,
  StoreVocabulary,
  type Placement,
  labelsOf,
  type ProductLabels,
} from '../../catalog/vocabulary/store-vocabulary.js';
import * as repo from './recommendations.repository.js';
import defaultTaxonomy from './fashion-taxonomy.json' with { type: 'json' };
import {
  categoricalScore,
  colourClassOf,
  parseTaxonomy,
  priceBandScore,
  traitsOf,
  usageClashes,
  type Taxonomy,
  type Traits,
} from './complement-rules.js';

export const MAX_CATEGORIES = 8;
const REBUILD_AFTER = 5000;
/** Stores whose pins a process keeps at most (a merchandiser pins a few products; the map is emptied past this). */
const MAX_PINNED_STORES = 1000;
/** How long a request waits for a catch-up in progress before it answers from the index as it is. */
const FRESHNESS_WAIT_MS = 30;

interface Candidate {
  code: string;
  title: string;
  category: string;
  labels: ProductLabels;
  /** Where the catalog vocabulary placed it ('' group: unplaced). */
  placement: Placement;
  price: number | null;
  currency: string;
  imageUrl: string;
  traits: Traits;
}

interface StoreIndex {
  /** The taxonomy and vocabulary overrides it was built with: either changing rebuilds it. */
  key: string;
  seq: number;
  taxonomy: Taxonomy;
  vocabulary: StoreVocabulary;
  /**
   * Visible products by complement group, then audience, then bucket of equal usage,
   * colour class, season, image presence and price presence. Inside a bucket only the price part
   * of the score varies, so a request takes the nearest prices of each bucket instead of scoring
   * every candidate.
   */
  byGroup: Map<string, Map<string, Map<string, Bucket>>>;
  /** Where each product sits, for incremental updates. */
  located: Map<string, Bucket>;
}

interface Bucket {
  sample: Traits;
  items: Candidate[];
}

/** Items sorted by ln(price), then product_code (items without a price sit in buckets of their own, by code). */
function compareItems(a: Candidate, b: Candidate): number {
  return a.traits.logPrice - b.traits.logPrice || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

const bucketKey = (t: Traits) =>
  `${t.usage}\u0000${t.colourClass}\u0000${t.season}\u0000${t.hasImage ? 1 : 0}\u0000${Number.isNaN(t.logPrice) ? 0 : 1}`;

/** A product's entry in the index (visible and placed products only). */
function indexedCandidate(index: StoreIndex, code: string): Candidate | undefined {
  return index.located.get(code)?.items.find((c) => c.code === code);
}

function insertSorted(items: Candidate[], candidate: Candidate) {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareItems(items[mid], candidate) < 0) lo = mid + 1;
    else hi = mid;
  }
  items.splice(lo, 0, candidate);
}

/** Up to `k` items of a bucket nearest in price to `logPrice` (ties: lower price, then code), skipping `skip`. */
function nearest(items: Candidate[], logPrice: number, k: number, skip: (c: Candidate) => boolean): Candidate[] {
  const out: Candidate[] = [];
  if (Number.isNaN(logPrice) || Number.isNaN(items[0]?.traits.logPrice)) {
    // Price plays no part: product_code order.
    for (const item of [...items].sort((a, b) => (a.code < b.code ? -1 : 1))) {
      if (!skip(item)) out.push(item);
      if (out.length === k) break;
    }
    return out;
  }
  let hi = 0;
  let end = items.length;
  while (hi < end) {
    const mid = (hi + end) >> 1;
    if (items[mid].traits.logPrice < logPrice) hi = mid + 1;
    else end = mid;
  }
  let lo = hi - 1;
  while (out.length < k && (lo >= 0 || hi < items.length)) {
    const takeHigh =
      lo < 0 || (hi < items.length && items[hi].traits.logPrice - logPrice < logPrice - items[lo].traits.logPrice);
    const item = takeHigh ? items[hi++] : items[lo--];
    if (!skip(item)) out.push(item);
  }
  return out;
}

/** Products with an image first, then by score, then by product_code (deterministic). */
function byRank(a: { candidate: Candidate; score: number }, b: { candidate: Candidate; score: number }): number {
  return (
    Number(b.candidate.traits.hasImage) - Number(a.candidate.traits.hasImage) ||
    b.score - a.score ||
    (a.candidate.code < b.candidate.code ? -1 : 1)
  );
}

/** Rough bytes one candidate costs in memory (strings, traits, bucket slots). */
const BYTES_PER_CANDIDATE = 700;

/** A candidate before it is placed (placement needs the whole store's labels first). */
function candidateOf(
  code: string,
  attributes: Record<string, unknown>,
  vocabulary: StoreVocabulary,
): Omit<Candidate, 'placement'> {
  const labels = labelsOf(attributes);
  const price = priceOf(attributes['Selling Price']);
  const imageUrl = firstImageUrl(attributes);
  return {
    // The price only when it passes the catalog's price rule (an invalid price is no price here either).
    code,
    title: labels.title || code,
    category: labels.category,
    labels,
    price,
    currency: textOf(attributes.Currency),
    imageUrl,
    traits: traitsOf(
      {
        department: labels.department,
        usage: textOf(attributes.Usage),
        colour: labels.colour,
        price,
        season: textOf(attributes.Season),
        hasImage: imageUrl !== '',
      },
      {
        audience: vocabulary.audience(labels.department).audience,
        colourClass: colourClassOf(labels.colour, vocabulary.colour(labels.colour)),
      },
    ),
  };
}

const placed = (candidate: Omit<Candidate, 'placement'>, vocabulary: StoreVocabulary): Candidate => ({
  ...candidate,
  placement: vocabulary.place(candidate.labels),
});

/**
 * "Complete the look": complementary products grouped by category, from the store's taxonomy, the
 * catalog vocabulary (which places each label in a group, resolves departments to audiences and
 * colours to families) and the ranking rules (complement-rules.ts). Candidates live in an
 * in-memory index per store, built by a background worker (`recommendations.index`) as the catalog
 * changes and updated from the change log, so a request scores only the complementary groups.
 */
export class RecommendationsService {
  /** Per-store candidate indexes, bounded by memory (least recently used evicted, rebuilt on demand). */
  readonly #indexes: BoundedCache<StoreIndex>;
  /** One refresh per store at a time: concurrent first requests share the build. */
  readonly #refreshing = new Map<string, Promise<StoreIndex>>();
  /** Each store's complement pins and the version they were read at (see #pinsOf). */
  readonly #pins = new Map<string, { version: number; pins: Map<string, string[]> }>();
  /** The change sequence each store had when the worker last looked (a store that has not moved stays cold). */
  readonly #seen = new Map<string, number>();
  /** Keeps the indexes of stores whose catalog moves warm, so no request pays for a build. */
  readonly worker: PollingWorker;

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly products: ProductsReadPort,
    private readonly stores: StoresService,
    options: { indexBytes: number; onError?: WorkerErrorLog },
  ) {
    this.#indexes = new BoundedCache(
      'complements.index',
      options.indexBytes,
      (index) => 1024 + index.located.size * BYTES_PER_CANDIDATE,
    );
    this.worker = new PollingWorker('recommendations.index', 250, () => this.#warm(), options.onError);
  }

  static defaultTaxonomy(): Taxonomy {
    return parseTaxonomy(defaultTaxonomy);
  }

  taxonomyOf(store: Store): Taxonomy {
    return store.complementsTaxonomy
      ? parseTaxonomy(JSON.parse(store.complementsTaxonomy))
      : RecommendationsService.defaultTaxonomy();
  }

  /** The store's vocabulary (no products counted yet): its overrides, and its taxonomy's groups and own label lists. */
  vocabularyOf(store: Store): StoreVocabulary {
    const taxonomy = this.taxonomyOf(store);
    // The shipped taxonomy's lists are part of the built-in vocabulary; a custom one's come first.
    return new StoreVocabulary(
      overridesOf(store.vocabularyOverrides),
      new Set(Object.keys(taxonomy.groups)),
      store.complementsTaxonomy ? taxonomy.groups : {},
    );
  }

  #keyOf(store: Store) {
    return `${store.complementsTaxonomy ?? 'default'}\u0000${store.vocabularyOverrides ?? ''}`;
  }

  /** Builds or catches up the indexes of stores whose catalog moved since the last pass. */
  async #warm() {
    for (const { id, change_seq: seq } of await this.stores.changeSequences()) {
      const seen = this.#seen.get(id);
      this.#seen.set(id, seq);
      const cached = this.#indexes.peek(id);
      if (cached ? cached.seq >= seq : seen === seq || seq === 0) continue;
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
    const cached = this.#indexes.get(store.id);
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
    const pending = this.#refreshing.get(store.id);
    if (pending) return pending;
    const refresh = this.#refresh(store, latest).finally(() => this.#refreshing.delete(store.id));
    this.#refreshing.set(store.id, refresh);
    return refresh;
  }

  async #refresh(store: Store, latest: number): Promise<StoreIndex> {
    const key = this.#keyOf(store);
    const index = this.#indexes.get(store.id);
    // A request's sequence may be older than what the worker has applied since: already there.
    if (index && index.key === key && index.seq >= latest) return index;
    // Catching up costs about what the changes cost; past the size of the index a rebuild is cheaper.
    if (!index || index.key !== key || latest - index.seq > Math.max(REBUILD_AFTER, index.located.size))
      return this.#build(store, key, latest);
    // Incremental: only the products changed since the index was last brought up to date.
    const changed = await this.changes.changedKeys(store.id, index.seq, latest, ['product']);
    if (!changed) return this.#build(store, key, latest);
    const codes = changed.get('product') ?? [];
    const fresh = (await this.products.visibleByCodes(store.id, codes)).map((p) =>
      candidateOf(p.code, p.attributes, index.vocabulary),
    );
    const leaving = codes.flatMap((code) => {
      const candidate = indexedCandidate(index, code);
      return candidate ? [candidate] : [];
    });
    // Labels whose placement depends on their products (Sub Category or title votes) may move: then rebuild.
    const labels = new Set([...leaving, ...fresh].map((c) => c.labels.category));
    const before = new Map([...labels].map((label) => [label, index.vocabulary.category(label).group]));
    for (const candidate of leaving) {
      const bucket = index.located.get(candidate.code)!;
      bucket.items.splice(bucket.items.indexOf(candidate), 1);
      index.located.delete(candidate.code);
      index.vocabulary.remove(candidate.labels);
    }
    for (const candidate of fresh) index.vocabulary.add(candidate.labels);
    const moved = [...before].some(
      ([label, group]) => index.vocabulary.hasCategory(label) && index.vocabulary.category(label).group !== group,
    );
    if (moved) return this.#build(store, key, latest);
    for (const candidate of fresh) this.#put(index, placed(candidate, index.vocabulary));
    index.seq = latest;
    // Set again: its size changed.
    this.#indexes.set(store.id, index);
    return index;
  }

  /** Reads every visible product: first counts their labels, then places each (a label's placement may need all of its products). */
  async #build(store: Store, key: string, seq: number): Promise<StoreIndex> {
    const taxonomy = this.taxonomyOf(store);
    const vocabulary = this.vocabularyOf(store);
    const index: StoreIndex = { key, seq, taxonomy, vocabulary, byGroup: new Map(), located: new Map() };
    const unplaced: Array<Omit<Candidate, 'placement'>> = [];
    for await (const page of this.products.pageAll(store.id, { visibleOnly: true })) {
      for (const product of page) {
        const candidate = candidateOf(product.code, product.attributes, vocabulary);
        vocabulary.add(candidate.labels);
        unplaced.push(candidate);
      }
    }
    for (const candidate of unplaced) this.#put(index, placed(candidate, vocabulary));
    this.#indexes.set(store.id, index);
    return index;
  }

  #put(index: StoreIndex, candidate: Candidate) {
    if (!candidate.placement.group) return;
    let group = index.byGroup.get(candidate.placement.group);
    if (!group) {
      group = new Map();
      index.byGroup.set(candidate.placement.group, group);
    }
    let audience = group.get(candidate.traits.audience);
    if (!audience) {
      audience = new Map();
      group.set(candidate.traits.audience, audience);
    }
    const key = bucketKey(candidate.traits);
    let bucket = audience.get(key);
    if (!bucket) {
      bucket = { sample: candidate.traits, items: [] };
      audience.set(key, bucket);
    }
    insertSorted(bucket.items, candidate);
    index.located.set(candidate.code, bucket);
  }

  /** The buckets of a group whose audience may complement the source's. */
  #fitting(index: StoreIndex, group: string, audience: string): Bucket[] {
    return [...(index.byGroup.get(group) ?? [])]
      .filter(([key]) => audiencesFit(audience, key))
      .flatMap(([, buckets]) => [...buckets.values()]);
  }

  async complementary(store: Store, productCode: string, limit: number) {
    // Independent reads at once (on PostgreSQL either may need a round trip).
    const [index, pins] = await Promise.all([this.#current(store), this.#pinsOf(store)]);
    const pinned = pins.get(productCode) ?? [];
    const source = await this.#source(store, index, productCode);
    const sourceGroup = source.placement.group;

    const pinnedByGroup = new Map<string, Candidate[]>();
    for (const code of pinned) {
      const candidate = indexedCandidate(index, code);
      const group = candidate?.placement.group;
      if (candidate && group && group !== sourceGroup && code !== source.code)
        pinnedByGroup.set(group, [...(pinnedByGroup.get(group) ?? []), candidate]);
    }
    const groups = [
      ...new Set([...pinnedByGroup.keys(), ...(sourceGroup ? (index.taxonomy.complements[sourceGroup] ?? []) : [])]),
    ].filter((g) => g !== sourceGroup);
    const categories = [];
    for (const group of groups) {
      if (categories.length >= MAX_CATEGORIES) break;
      const first = (pinnedByGroup.get(group) ?? []).map((c) => ({ candidate: c, score: 1 }));
      const taken = new Set(first.map((f) => f.candidate.code));
      const skip = (c: Candidate) => c.code === source.code || taken.has(c.code);
      // Buckets best first (image, then the score part they share): once the limit is filled, a
      // bucket whose best possible score (price band 1) cannot beat the last kept one ends the walk.
      const buckets = this.#fitting(index, group, source.traits.audience)
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
        for (const candidate of nearest(bucket.items, source.traits.logPrice, limit, skip)) {
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
    return placed(candidateOf(product.code, product.attributes, index.vocabulary), index.vocabulary);
  }

  /** What this process holds for a store (change sequence and products indexed), without touching the LRU order. */
  indexState(storeId: string): { seq: number; products: number } | undefined {
    const index = this.#indexes.peek(storeId);
    return index && { seq: index.seq, products: index.located.size };
  }

  /** Forgets a store's index (its taxonomy or vocabulary changed); the worker or the next request rebuilds it. */
  invalidate(storeId: string) {
    this.#indexes.delete(storeId);
    this.#seen.delete(storeId);
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
