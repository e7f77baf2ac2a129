import { firstImageUrl, textOf } from '../../catalog/product-fields.js';
import { priceOf } from '../../catalog/price.js';
import { audiencesFit } from '../../catalog/vocabulary/audiences.js';
import {
  labelsOf,
  type Placement,
  type ProductLabels,
  type StoreVocabulary,
} from '../../catalog/vocabulary/store-vocabulary.js';
import { colourClassOf, traitsOf, type Taxonomy, type Traits } from './complement-rules.js';
import { ValuePool } from '../../storage/value-pool.js';

// One store's complete-the-look candidates in memory: products placed in the taxonomy's groups,
// bucketed by audience and traits, each bucket in rank order (the shape ComplementsService
// builds, follows and queries).

export interface Candidate {
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

export interface StoreIndex {
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
  /** The labels, traits, placements and texts the candidates share (a colourway's sizes share all). */
  pool: ValuePool;
}

export interface Bucket {
  sample: Traits;
  items: Candidate[];
}

/** Items sorted by ln(price), then product_code (items without a price sit in buckets of their own, by code). */
export function compareItems(a: Candidate, b: Candidate): number {
  return a.traits.logPrice - b.traits.logPrice || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

export const bucketKey = (t: Traits) =>
  `${t.usage}\u0000${t.colourClass}\u0000${t.season}\u0000${t.hasImage ? 1 : 0}\u0000${Number.isNaN(t.logPrice) ? 0 : 1}`;

/** A product's entry in the index (visible and placed products only). */
export function indexedCandidate(index: StoreIndex, code: string): Candidate | undefined {
  return index.located.get(code)?.items.find((c) => c.code === code);
}

export function insertSorted(items: Candidate[], candidate: Candidate) {
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
export function nearest(items: Candidate[], logPrice: number, k: number, skip: (c: Candidate) => boolean): Candidate[] {
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
export function byRank(a: { candidate: Candidate; score: number }, b: { candidate: Candidate; score: number }): number {
  return (
    Number(b.candidate.traits.hasImage) - Number(a.candidate.traits.hasImage) ||
    b.score - a.score ||
    (a.candidate.code < b.candidate.code ? -1 : 1)
  );
}

/** Bytes one candidate costs in memory (its object, code, bucket slot and map entry, its share of a
 * colourway's labels and traits): measured on the generated 1M catalog (300 B). */
export const BYTES_PER_CANDIDATE = 350;

/** A candidate before it is placed (placement needs the whole store's labels first). */
export function candidateOf(
  code: string,
  attributes: Record<string, unknown>,
  vocabulary: StoreVocabulary,
  pool: ValuePool = new ValuePool(),
): Omit<Candidate, 'placement'> {
  const labels = pool.repeat('labels', labelsOf(attributes));
  const price = priceOf(attributes['Selling Price']);
  const imageUrl = pool.string(firstImageUrl(attributes));
  const raw = {
    department: labels.department,
    usage: textOf(attributes.Usage),
    colour: labels.colour,
    price,
    season: textOf(attributes.Season),
    hasImage: imageUrl !== '',
  };
  const traits = pool.repeat(
    'traits',
    traitsOf(raw, {
      audience: vocabulary.audience(labels.department).audience,
      colourClass: colourClassOf(labels.colour, vocabulary.colour(labels.colour)),
    }),
  );
  return {
    // The price only when it passes the catalog's price rule (an invalid price is no price here either).
    code,
    title: labels.title || code,
    category: labels.category,
    labels,
    price,
    currency: pool.string(textOf(attributes.Currency)),
    imageUrl,
    traits,
  };
}

export const placed = (
  candidate: Omit<Candidate, 'placement'>,
  vocabulary: StoreVocabulary,
  pool: ValuePool = new ValuePool(),
): Candidate => {
  const placement = vocabulary.place(candidate.labels);
  // Every property written out: a spread (`{ ...candidate, placement }`) gave each of the million
  // candidates a hidden class of its own in V8 (~300 bytes each, heap snapshot at 50k).
  return {
    code: candidate.code,
    title: candidate.title,
    category: candidate.category,
    labels: candidate.labels,
    price: candidate.price,
    currency: candidate.currency,
    imageUrl: candidate.imageUrl,
    traits: candidate.traits,
    placement: pool.repeat('placement', placement),
  };
};

/** Files a candidate in its group, audience and traits bucket, in rank order. */
export function putCandidate(index: StoreIndex, candidate: Candidate) {
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
export function fittingBuckets(index: StoreIndex, group: string, audience: string): Bucket[] {
  return [...(index.byGroup.get(group) ?? [])]
    .filter(([key]) => audiencesFit(audience, key))
    .flatMap(([, buckets]) => [...buckets.values()]);
}
