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
import { setRow, StoreRows } from '../../storage/store-rows.js';

// One store's complete-the-look candidates in memory: products placed in the taxonomy's groups,
// bucketed by audience and traits, each bucket in rank order (the shape ComplementsService
// builds, follows and queries).

/** A candidate as a request reads it: made from the index's slots when a request takes it. */
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

/** What a product holds besides its code before its label is placed (placement needs the whole store's labels). */
export type Unplaced = Omit<Candidate, 'code' | 'placement'>;
/** Everything of a candidate but its code: one object for the sizes of a colourway, which repeat all of it. */
type Shared = Omit<Candidate, 'code'>;

/**
 * The indexed products by slot, a slot being the product's row among the store's rows (StoreRows,
 * shared with its other indexes: one code → row map and one copy of each code for all of them): what
 * it shares with its colourway, and its bucket. As objects of their own the generated catalog's first
 * 300,000 products held 330 bytes each (one process, heap and buffers after a full collection), by
 * slot with a map and codes of its own 282.
 */
export class CandidateSlots {
  /** Slot → code: the store's rows' own array (a slot holds a candidate only when `shared` says so). */
  readonly codes: string[];
  readonly shared: Array<Shared | undefined> = [];
  readonly bucket: Array<Bucket | undefined> = [];
  /** How many slots hold a candidate. */
  count = 0;

  constructor(readonly rows: StoreRows = new StoreRows()) {
    this.codes = rows.codes;
  }

  /** The slot of an indexed product; undefined when it is not indexed. */
  slotOf(code: string): number | undefined {
    const slot = this.rows.get(code);
    return slot !== undefined && this.shared[slot] !== undefined ? slot : undefined;
  }

  /** Puts a product in its slot; one that was indexed already leaves its old bucket. */
  add(code: string, shared: Shared, bucket: Bucket): number {
    const slot = this.rows.add(code);
    if (!this.#leaveBucket(slot)) this.count++;
    setRow(this.shared, slot, shared, undefined);
    setRow(this.bucket, slot, bucket, undefined);
    return slot;
  }

  /** Takes a product out of its slot and its bucket. */
  remove(slot: number) {
    if (!this.#leaveBucket(slot)) return;
    this.shared[slot] = undefined;
    this.bucket[slot] = undefined;
    this.count--;
  }

  /** Takes a slot out of its bucket's items; false when it is in none (no candidate there). */
  #leaveBucket(slot: number): boolean {
    const bucket = this.bucket[slot];
    if (!bucket) return false;
    bucket.items.splice(bucket.items.indexOf(slot), 1);
    return true;
  }

  logPrice(slot: number): number {
    return this.shared[slot]!.traits.logPrice;
  }

  candidate(slot: number): Candidate {
    return candidateFrom(this.codes[slot], this.shared[slot]!);
  }
}

/** A candidate of its code and shared part, every property written out (one hidden class for all). */
function candidateFrom(code: string, shared: Shared): Candidate {
  return {
    code,
    title: shared.title,
    category: shared.category,
    labels: shared.labels,
    placement: shared.placement,
    price: shared.price,
    currency: shared.currency,
    imageUrl: shared.imageUrl,
    traits: shared.traits,
  };
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
  /** The indexed products, by the store's rows. */
  slots: CandidateSlots;
  /** The labels, traits, placements and texts the candidates share (a colourway's sizes share all). */
  pool: ValuePool;
}

export interface Bucket {
  sample: Traits;
  /** Slots, by ln(price), then product_code (items without a price sit in buckets of their own, by code). */
  items: number[];
}

export function emptyIndex(
  fields: Pick<StoreIndex, 'key' | 'seq' | 'taxonomy' | 'vocabulary' | 'pool'>,
  rows = new StoreRows(),
): StoreIndex {
  return { ...fields, byGroup: new Map(), slots: new CandidateSlots(rows) };
}

export const bucketKey = (t: Traits) =>
  `${t.usage}\u0000${t.colourClass}\u0000${t.season}\u0000${t.hasImage ? 1 : 0}\u0000${Number.isNaN(t.logPrice) ? 0 : 1}`;

/** A product's entry in the index (visible and placed products only). */
export function indexedCandidate(index: StoreIndex, code: string): Candidate | undefined {
  const slot = index.slots.slotOf(code);
  return slot === undefined ? undefined : index.slots.candidate(slot);
}

/** Takes a product out of the index; its candidate as it was, or undefined when it was not there. */
export function removeCandidate(index: StoreIndex, code: string): Candidate | undefined {
  const slot = index.slots.slotOf(code);
  if (slot === undefined) return undefined;
  const candidate = index.slots.candidate(slot);
  index.slots.remove(slot);
  return candidate;
}

/** Whether slot `a` comes before slot `b` in a bucket: by ln(price), then product_code (no price: by code). */
function comesBefore(slots: CandidateSlots, a: number, b: number): boolean {
  const difference = slots.logPrice(a) - slots.logPrice(b);
  if (difference < 0) return true;
  if (difference > 0) return false;
  return slots.codes[a] < slots.codes[b];
}

function insertSorted(slots: CandidateSlots, items: number[], slot: number) {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comesBefore(slots, items[mid], slot)) lo = mid + 1;
    else hi = mid;
  }
  items.splice(lo, 0, slot);
}

/** Up to `k` items of a bucket nearest in price to `logPrice` (ties: lower price, then code), skipping `skip`. */
export function nearest(
  slots: CandidateSlots,
  items: number[],
  logPrice: number,
  k: number,
  skip: (code: string) => boolean,
): Candidate[] {
  const out: Candidate[] = [];
  if (Number.isNaN(logPrice) || (items.length > 0 && Number.isNaN(slots.logPrice(items[0])))) {
    // Price plays no part: product_code order.
    const byCode = [...items].sort((a, b) => (slots.codes[a] < slots.codes[b] ? -1 : 1));
    for (const slot of byCode) {
      if (!skip(slots.codes[slot])) out.push(slots.candidate(slot));
      if (out.length === k) break;
    }
    return out;
  }
  let hi = 0;
  let end = items.length;
  while (hi < end) {
    const mid = (hi + end) >> 1;
    if (slots.logPrice(items[mid]) < logPrice) hi = mid + 1;
    else end = mid;
  }
  let lo = hi - 1;
  while (out.length < k && (lo >= 0 || hi < items.length)) {
    const takeHigh =
      lo < 0 || (hi < items.length && slots.logPrice(items[hi]) - logPrice < logPrice - slots.logPrice(items[lo]));
    const slot = takeHigh ? items[hi++] : items[lo--];
    if (!skip(slots.codes[slot])) out.push(slots.candidate(slot));
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

/** Bytes one candidate costs in memory (its slots, its share of a colourway's labels and traits; its
 * code and row are the store's): 282 measured in one process on the generated catalog's first 300,000
 * products with a map and codes of its own (heap and buffers after a full collection; 330 as objects of
 * their own); stores of 2,000 products 463 KB each with the store's rows and strings shared, 0.65× the
 * estimate with 300 (bench/index-memory.bench.ts). */
export const BYTES_PER_CANDIDATE = 180;

/** A product's candidate before it is placed (placement needs the whole store's labels first). */
export function candidateOf(
  code: string,
  attributes: Record<string, unknown>,
  vocabulary: StoreVocabulary,
  pool: ValuePool = new ValuePool(),
): Unplaced {
  const own = labelsOf(attributes);
  own.title = pool.string(own.title);
  const labels = pool.repeat('labels', own);
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
  const folded = traitsOf(raw, {
    audience: vocabulary.audience(labels.department).audience,
    colourClass: colourClassOf(labels.colour, vocabulary.colour(labels.colour)),
  });
  // Folded anew for each product: one copy of each value (a copy per colourway was 17 MB at 1M).
  folded.usage = pool.string(folded.usage);
  folded.season = pool.string(folded.season);
  folded.colourClass = pool.string(folded.colourClass);
  const traits = pool.repeat('traits', folded);
  return pool.repeat('unplaced', {
    title: labels.title || code,
    category: labels.category,
    labels,
    // The price only when it passes the catalog's price rule (an invalid price is no price here either).
    price,
    currency: pool.string(textOf(attributes.Currency)),
    imageUrl,
    traits,
  });
}

/** What a product shares with the sizes of its colourway once its label is placed. */
export function placed(unplaced: Unplaced, vocabulary: StoreVocabulary, pool: ValuePool = new ValuePool()): Shared {
  // Every property written out: a spread gave each of a million objects a hidden class of its own in V8.
  return pool.repeat('shared', {
    title: unplaced.title,
    category: unplaced.category,
    labels: unplaced.labels,
    placement: pool.repeat('placement', vocabulary.place(unplaced.labels)),
    price: unplaced.price,
    currency: unplaced.currency,
    imageUrl: unplaced.imageUrl,
    traits: unplaced.traits,
  });
}

/** A product that is not indexed (a draft a merchandiser previews), placed, as a candidate. */
export function candidateOfProduct(
  code: string,
  attributes: Record<string, unknown>,
  vocabulary: StoreVocabulary,
): Candidate {
  return candidateFrom(code, placed(candidateOf(code, attributes, vocabulary), vocabulary));
}

/** Files a product in its group, audience and traits bucket, in rank order (unplaced: left out). */
export function putCandidate(index: StoreIndex, code: string, shared: Shared) {
  if (!shared.placement.group) return;
  let group = index.byGroup.get(shared.placement.group);
  if (!group) {
    group = new Map();
    index.byGroup.set(shared.placement.group, group);
  }
  let audience = group.get(shared.traits.audience);
  if (!audience) {
    audience = new Map();
    group.set(shared.traits.audience, audience);
  }
  const key = bucketKey(shared.traits);
  let bucket = audience.get(key);
  if (!bucket) {
    bucket = { sample: shared.traits, items: [] };
    audience.set(key, bucket);
  }
  const slot = index.slots.add(code, shared, bucket);
  insertSorted(index.slots, bucket.items, slot);
}

/** The buckets of a group whose audience may complement the source's. */
export function fittingBuckets(index: StoreIndex, group: string, audience: string): Bucket[] {
  return [...(index.byGroup.get(group) ?? [])]
    .filter(([key]) => audiencesFit(audience, key))
    .flatMap(([, buckets]) => [...buckets.values()]);
}
