import type { StorageHandle } from '../../storage/database.js';
import { NotFoundError } from '../../errors.js';
import { BoundedCache } from '../../storage/bounded-cache.js';
import type { ChangeFeed } from '../../jobs/change-feed.js';
import { firstImageUrl, textOf } from '../../catalog/product-fields.js';
import { priceOf } from '../../catalog/price.js';
import type { Store } from '../stores/store.js';
import type { StoresService } from '../stores/stores.service.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import * as repo from './recommendations.repository.js';
import defaultTaxonomy from './fashion-taxonomy.json' with { type: 'json' };
import {
  categoricalScore,
  departmentsFit,
  parseTaxonomy,
  priceBandScore,
  traitsOf,
  usageClashes,
  type Taxonomy,
  type Traits,
} from './complement-rules.js';

export const MAX_CATEGORIES = 8;
const REBUILD_AFTER = 5000;

interface Candidate {
  code: string;
  title: string;
  category: string;
  group: string | undefined;
  price: number | null;
  currency: string;
  imageUrl: string;
  traits: Traits;
}

interface StoreIndex {
  taxonomyKey: string;
  seq: number;
  groupOf: Map<string, string>;
  taxonomy: Taxonomy;
  /**
   * Visible products by complement group, then (folded) department, then bucket of equal usage,
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

/** Rough bytes one candidate costs in memory (strings, traits, bucket slots). */
const BYTES_PER_CANDIDATE = 700;

function candidateOf(code: string, attributes: Record<string, unknown>, groupOf: Map<string, string>): Candidate {
  const category = textOf(attributes.Category);
  const price = priceOf(attributes['Selling Price']);
  const imageUrl = firstImageUrl(attributes);
  return {
    // The price only when it passes the catalog's price rule (an invalid price is no price here either).
    code,
    title: textOf(attributes['Product Name']) || code,
    category,
    group: groupOf.get(category.trim().toLowerCase()),
    price,
    currency: textOf(attributes.Currency),
    imageUrl,
    traits: traitsOf({
      department: textOf(attributes.Department),
      usage: textOf(attributes.Usage),
      colour: textOf(attributes.Colour),
      price,
      season: textOf(attributes.Season),
      hasImage: imageUrl !== '',
    }),
  };
}

/**
 * "Complete the look": complementary products grouped by category, from the store's taxonomy and
 * the ranking rules (complement-rules.ts). Candidates live in an in-memory index per store, built
 * once and then updated from the change log, so a request scores only the complementary groups.
 */
export class RecommendationsService {
  /** Per-store candidate indexes, bounded by memory (least recently used evicted, rebuilt on demand). */
  readonly #indexes: BoundedCache<StoreIndex>;
  /** One refresh per store at a time: concurrent first requests share the build. */
  readonly #refreshing = new Map<string, Promise<StoreIndex>>();

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly products: ProductsReadPort,
    private readonly stores: StoresService,
    options: { indexBytes: number },
  ) {
    this.#indexes = new BoundedCache(
      'complements.index',
      options.indexBytes,
      (index) => 1024 + index.located.size * BYTES_PER_CANDIDATE,
    );
  }

  static defaultTaxonomy(): Taxonomy {
    return parseTaxonomy(defaultTaxonomy);
  }

  taxonomyOf(store: Store): Taxonomy {
    return store.complementsTaxonomy
      ? parseTaxonomy(JSON.parse(store.complementsTaxonomy))
      : RecommendationsService.defaultTaxonomy();
  }

  #index(store: Store): Promise<StoreIndex> {
    const pending = this.#refreshing.get(store.id);
    if (pending) return pending;
    const refresh = this.#refresh(store).finally(() => this.#refreshing.delete(store.id));
    this.#refreshing.set(store.id, refresh);
    return refresh;
  }

  async #refresh(store: Store): Promise<StoreIndex> {
    const taxonomyKey = store.complementsTaxonomy ?? 'default';
    const latest = await this.changes.latest(store.id);
    let index = this.#indexes.get(store.id);
    if (index && index.taxonomyKey === taxonomyKey && index.seq === latest) return index;
    if (!index || index.taxonomyKey !== taxonomyKey || latest - index.seq > REBUILD_AFTER) {
      const taxonomy = this.taxonomyOf(store);
      const groupOf = new Map(
        Object.entries(taxonomy.groups).flatMap(([group, categories]) =>
          categories.map((c) => [c.trim().toLowerCase(), group] as const),
        ),
      );
      index = { taxonomyKey, seq: latest, taxonomy, groupOf, byGroup: new Map(), located: new Map() };
      for await (const page of this.products.pageAll(store.id, { visibleOnly: true })) {
        for (const product of page) this.#put(index, candidateOf(product.code, product.attributes, groupOf));
      }
      this.#indexes.set(store.id, index);
      return index;
    }
    // Incremental: only the products changed since the index was last brought up to date.
    const codes = (await this.changes.changedKeys(store.id, index.seq, latest, ['product'])).get('product') ?? [];
    for (const code of codes) {
      const bucket = index.located.get(code);
      if (!bucket) continue;
      bucket.items.splice(
        bucket.items.findIndex((c) => c.code === code),
        1,
      );
      index.located.delete(code);
    }
    for (const product of await this.products.visibleByCodes(store.id, codes))
      this.#put(index, candidateOf(product.code, product.attributes, index.groupOf));
    index.seq = latest;
    // Set again: its size changed.
    this.#indexes.set(store.id, index);
    return index;
  }

  #put(index: StoreIndex, candidate: Candidate) {
    if (!candidate.group) return;
    let group = index.byGroup.get(candidate.group);
    if (!group) {
      group = new Map();
      index.byGroup.set(candidate.group, group);
    }
    let department = group.get(candidate.traits.department);
    if (!department) {
      department = new Map();
      group.set(candidate.traits.department, department);
    }
    const key = bucketKey(candidate.traits);
    let bucket = department.get(key);
    if (!bucket) {
      bucket = { sample: candidate.traits, items: [] };
      department.set(key, bucket);
    }
    insertSorted(bucket.items, candidate);
    index.located.set(candidate.code, bucket);
  }

  /** The buckets of a group whose department fits the source's. */
  #fitting(index: StoreIndex, group: string, department: string): Bucket[] {
    return [...(index.byGroup.get(group) ?? [])]
      .filter(([key]) => departmentsFit(department, key))
      .flatMap(([, buckets]) => [...buckets.values()]);
  }

  async complementary(store: Store, productCode: string, limit: number) {
    const product = await this.products.byCode(store.id, productCode);
    // Any stored product gets complements (a merchandiser previews drafts too); only visible products are recommended.
    if (!product) throw new NotFoundError(`product ${productCode} not found`, 'product_code');
    const index = await this.#index(store);
    const source = candidateOf(product.code, product.attributes, index.groupOf);
    const pinned = await repo.findPins(this.storage.db, store.id, productCode);

    const pinnedByGroup = new Map<string, Candidate[]>();
    for (const code of pinned) {
      const candidate = index.located.get(code)?.items.find((c) => c.code === code);
      if (candidate?.group && candidate.group !== source.group && code !== source.code)
        pinnedByGroup.set(candidate.group, [...(pinnedByGroup.get(candidate.group) ?? []), candidate]);
    }
    const groups = [
      ...new Set([...pinnedByGroup.keys(), ...(source.group ? (index.taxonomy.complements[source.group] ?? []) : [])]),
    ].filter((g) => g !== source.group);
    const categories = [];
    for (const group of groups) {
      if (categories.length >= MAX_CATEGORIES) break;
      const first = (pinnedByGroup.get(group) ?? []).map((c) => ({ candidate: c, score: 1 }));
      const taken = new Set(first.map((f) => f.candidate.code));
      const skip = (c: Candidate) => c.code === source.code || taken.has(c.code);
      const scored: Array<{ candidate: Candidate; score: number }> = [];
      for (const bucket of this.#fitting(index, group, source.traits.department)) {
        if (bucket.items.length === 0 || usageClashes(source.traits.usage, bucket.sample.usage)) continue;
        const categorical = categoricalScore(source.traits, bucket.sample);
        for (const candidate of nearest(bucket.items, source.traits.logPrice, limit, skip)) {
          scored.push({ candidate, score: categorical + 0.25 * priceBandScore(source.traits, candidate.traits) });
        }
      }
      scored.sort(
        (a, b) =>
          Number(b.candidate.traits.hasImage) - Number(a.candidate.traits.hasImage) ||
          b.score - a.score ||
          (a.candidate.code < b.candidate.code ? -1 : 1),
      );
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

  async setPins(storeUuid: string, productCode: string, codes: string[]) {
    const store = await this.stores.getStore(storeUuid);
    const pinned = [...new Set(codes)];
    await repo.savePins(this.storage.db, store.id, productCode, pinned);
    return { product_code: productCode, pinned };
  }

  async getTaxonomy(storeUuid: string): Promise<Taxonomy> {
    return this.taxonomyOf(await this.stores.getStore(storeUuid));
  }

  async setTaxonomy(storeUuid: string, input: unknown) {
    const taxonomy = parseTaxonomy(input);
    const store = await this.stores.getStore(storeUuid);
    await this.stores.setComplementsTaxonomy(store.id, JSON.stringify(taxonomy));
    this.#indexes.delete(store.id);
    return taxonomy;
  }
}
