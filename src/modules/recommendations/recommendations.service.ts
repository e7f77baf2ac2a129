import type { StorageHandle } from '../../storage/database.js';
import { NotFoundError } from '../../errors.js';
import { VISIBLE_STATUSES } from '../products/quality-checks.js';
import type { Store } from '../stores/store.js';
import { IMAGE_FIELDS } from '../products/quality-checks.js';
import defaultTaxonomy from './fashion-taxonomy.json' with { type: 'json' };
import { categoricalScore, departmentsFit, parseTaxonomy, priceBandScore, traitsOf, usageClashes, type Taxonomy, type Traits } from './complement-rules.js';

export const MAX_CATEGORIES = 8;
const REBUILD_AFTER = 5000;

interface Candidate {
  code: string; title: string; category: string; group: string | undefined; price: string | null; currency: string; imageUrl: string; traits: Traits;
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

interface Bucket { sample: Traits; items: Candidate[] }

/** Items sorted by ln(price), then product_code (items without a price sit in buckets of their own, by code). */
function compareItems(a: Candidate, b: Candidate): number {
  return a.traits.logPrice - b.traits.logPrice || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

const bucketKey = (t: Traits) => `${t.usage}\u0000${t.colourClass}\u0000${t.season}\u0000${t.hasImage ? 1 : 0}\u0000${Number.isNaN(t.logPrice) ? 0 : 1}`;

function insertSorted(items: Candidate[], candidate: Candidate) {
  let lo = 0; let hi = items.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (compareItems(items[mid], candidate) < 0) lo = mid + 1; else hi = mid; }
  items.splice(lo, 0, candidate);
}

/** Up to `k` items of a bucket nearest in price to `logPrice` (ties: lower price, then code), skipping `skip`. */
function nearest(items: Candidate[], logPrice: number, k: number, skip: (c: Candidate) => boolean): Candidate[] {
  const out: Candidate[] = [];
  if (Number.isNaN(logPrice) || Number.isNaN(items[0]?.traits.logPrice)) {
    // Price plays no part: product_code order.
    for (const item of [...items].sort((a, b) => (a.code < b.code ? -1 : 1))) { if (!skip(item)) out.push(item); if (out.length === k) break; }
    return out;
  }
  let hi = 0; let end = items.length;
  while (hi < end) { const mid = (hi + end) >> 1; if (items[mid].traits.logPrice < logPrice) hi = mid + 1; else end = mid; }
  let lo = hi - 1;
  while (out.length < k && (lo >= 0 || hi < items.length)) {
    const takeHigh = lo < 0 || (hi < items.length && items[hi].traits.logPrice - logPrice < logPrice - items[lo].traits.logPrice);
    const item = takeHigh ? items[hi++] : items[lo--];
    if (!skip(item)) out.push(item);
  }
  return out;
}

function priceOf(value: unknown): number | null {
  return typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : null;
}

function candidateOf(code: string, attributes: Record<string, unknown>, groupOf: Map<string, string>): Candidate {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const category = text(attributes.Category);
  const imageUrl = IMAGE_FIELDS.map((field) => text(attributes[field])).find((url) => url !== '') ?? '';
  return {
    code, title: text(attributes['Product Name']) || code, category, group: groupOf.get(category.trim().toLowerCase()),
    price: text(attributes['Selling Price']) || null, currency: text(attributes.Currency), imageUrl,
    traits: traitsOf({ department: text(attributes.Department), usage: text(attributes.Usage), colour: text(attributes.Colour), price: priceOf(attributes['Selling Price']), season: text(attributes.Season), hasImage: imageUrl !== '' }),
  };
}

/**
 * "Complete the look": complementary products grouped by category, from the store's taxonomy and
 * the ranking rules (complement-rules.ts). Candidates live in an in-memory index per store, built
 * once and then updated from the change log, so a request scores only the complementary groups.
 */
export class RecommendationsService {
  readonly #indexes = new Map<string, StoreIndex>();
  /** One refresh per store at a time: concurrent first requests share the build. */
  readonly #refreshing = new Map<string, Promise<StoreIndex>>();

  constructor(private readonly storage: StorageHandle) {}

  static defaultTaxonomy(): Taxonomy { return parseTaxonomy(defaultTaxonomy); }

  taxonomyOf(store: Store): Taxonomy {
    return store.complementsTaxonomy ? parseTaxonomy(JSON.parse(store.complementsTaxonomy)) : RecommendationsService.defaultTaxonomy();
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
    const db = this.storage.db;
    const latest = Number((await db.selectFrom('stores').select('change_seq').where('id', '=', store.id).executeTakeFirstOrThrow()).change_seq);
    let index = this.#indexes.get(store.id);
    if (index && index.taxonomyKey === taxonomyKey && index.seq === latest) return index;
    if (!index || index.taxonomyKey !== taxonomyKey || latest - index.seq > REBUILD_AFTER) {
      const taxonomy = this.taxonomyOf(store);
      const groupOf = new Map(Object.entries(taxonomy.groups).flatMap(([group, categories]) => categories.map((c) => [c.trim().toLowerCase(), group] as const)));
      index = { taxonomyKey, seq: latest, taxonomy, groupOf, byGroup: new Map(), located: new Map() };
      const rows = await db.selectFrom('products').select(['product_code', 'attributes']).where('store_id', '=', store.id).where('status', 'in', [...VISIBLE_STATUSES]).execute();
      for (const row of rows) this.#put(index, candidateOf(row.product_code, JSON.parse(row.attributes), groupOf));
      this.#indexes.set(store.id, index);
      return index;
    }
    // Incremental: only the products changed since the index was last brought up to date.
    const changed = await db.selectFrom('change_log').select('entity_key').distinct()
      .where('store_id', '=', store.id).where('entity', '=', 'product').where('seq', '>', index.seq).where('seq', '<=', latest).execute();
    const codes = changed.map((c) => c.entity_key);
    for (const code of codes) {
      const bucket = index.located.get(code);
      if (!bucket) continue;
      bucket.items.splice(bucket.items.findIndex((c) => c.code === code), 1);
      index.located.delete(code);
    }
    for (let i = 0; i < codes.length; i += 500) {
      const rows = await db.selectFrom('products').select(['product_code', 'attributes']).where('store_id', '=', store.id)
        .where('status', 'in', [...VISIBLE_STATUSES]).where('product_code', 'in', codes.slice(i, i + 500)).execute();
      for (const row of rows) this.#put(index, candidateOf(row.product_code, JSON.parse(row.attributes), index.groupOf));
    }
    index.seq = latest;
    return index;
  }

  #put(index: StoreIndex, candidate: Candidate) {
    if (!candidate.group) return;
    let group = index.byGroup.get(candidate.group);
    if (!group) { group = new Map(); index.byGroup.set(candidate.group, group); }
    let department = group.get(candidate.traits.department);
    if (!department) { department = new Map(); group.set(candidate.traits.department, department); }
    const key = bucketKey(candidate.traits);
    let bucket = department.get(key);
    if (!bucket) { bucket = { sample: candidate.traits, items: [] }; department.set(key, bucket); }
    insertSorted(bucket.items, candidate);
    index.located.set(candidate.code, bucket);
  }

  /** The buckets of a group whose department fits the source's. */
  #fitting(index: StoreIndex, group: string, department: string): Bucket[] {
    return [...(index.byGroup.get(group) ?? [])].filter(([key]) => departmentsFit(department, key)).flatMap(([, buckets]) => [...buckets.values()]);
  }

  async complementary(store: Store, productCode: string, limit: number) {
    const row = await this.storage.db.selectFrom('products').select(['product_code', 'attributes']).where('store_id', '=', store.id).where('product_code', '=', productCode).executeTakeFirst();
    // Any stored product gets complements (a merchandiser previews drafts too); only visible products are recommended.
    if (!row) throw new NotFoundError(`product ${productCode} not found`, 'product_code');
    const index = await this.#index(store);
    const source = candidateOf(row.product_code, JSON.parse(row.attributes), index.groupOf);
    const pinRow = await this.storage.db.selectFrom('product_pins').select('pinned').where('store_id', '=', store.id).where('product_code', '=', productCode).executeTakeFirst();
    const pinned = pinRow ? (JSON.parse(pinRow.pinned) as string[]) : [];

    const pinnedByGroup = new Map<string, Candidate[]>();
    for (const code of pinned) {
      const candidate = index.located.get(code)?.items.find((c) => c.code === code);
      if (candidate?.group && candidate.group !== source.group && code !== source.code) pinnedByGroup.set(candidate.group, [...(pinnedByGroup.get(candidate.group) ?? []), candidate]);
    }
    const groups = [...new Set([...pinnedByGroup.keys(), ...(source.group ? index.taxonomy.complements[source.group] ?? [] : [])])]
      .filter((g) => g !== source.group);
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
      scored.sort((a, b) => Number(b.candidate.traits.hasImage) - Number(a.candidate.traits.hasImage) || b.score - a.score || (a.candidate.code < b.candidate.code ? -1 : 1));
      const products = [...first, ...scored].slice(0, limit).map(({ candidate, score }) => ({
        product_code: candidate.code, title: candidate.title, category: candidate.category, price: priceOf(candidate.price), currency: candidate.currency,
        image_url: candidate.imageUrl, score: Math.round(score * 10_000) / 10_000,
      }));
      if (products.length > 0) categories.push({ title: group.toUpperCase(), products });
    }
    return { categories };
  }

  async setPins(storeId: string, productCode: string, codes: string[]) {
    const pinned = JSON.stringify([...new Set(codes)]);
    await this.storage.db.insertInto('product_pins').values({ store_id: storeId, product_code: productCode, pinned })
      .onConflict((oc) => oc.columns(['store_id', 'product_code']).doUpdateSet({ pinned })).execute();
    return { product_code: productCode, pinned: [...new Set(codes)] };
  }

  async setTaxonomy(storeId: string, input: unknown) {
    const taxonomy = parseTaxonomy(input);
    await this.storage.db.updateTable('stores').set({ complements: JSON.stringify(taxonomy) }).where('id', '=', storeId).execute();
    this.#indexes.delete(storeId);
    return taxonomy;
  }
}
