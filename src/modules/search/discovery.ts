import { canonicalAttribute, type AudienceResolver, type CompiledFilters } from '../../catalog/filters.js';
import { sortSizes, type GroupVariants } from '../../catalog/variants.js';
import type { CatalogListing } from '../products/product-cards.js';
import type { Grouping, ListingSort } from '../products/catalog-listing.js';
import type { ActiveRules } from './search-rules.js';

/** What a listing is made of: ranked text hits (rows with scores, best first) or every visible product. */
export type Candidates =
  { kind: 'ranked'; rows: Int32Array; scores: Float64Array } | { kind: 'browse'; rows?: Int32Array };

export interface DiscoveryQuery {
  candidates: Candidates;
  filters: CompiledFilters;
  resolver: AudienceResolver;
  facets: string[];
  facetLimit: number;
  /**
   * relevance: the ranked order (or, browsing, the candidates' own order: a collection's); signal:
   * a shopper signal's value per row, highest first (trending, popular).
   */
  sort: 'relevance' | ListingSort | { signal: (row: number) => number; name: string };
  group: GroupVariants;
  offset: number;
  limit: number;
  rules: ActiveRules;
  /** The shopper's affinity per row (0..1): a bounded reorder within each relevance band (personalization). */
  personal?: (row: number) => number;
}

/** How much a shopper's affinity weighs against text relevance within a band. */
export const PERSONAL_WEIGHT = 0.3;

/**
 * A score moved toward the shopper's affinity without leaving its relevance band (a quarter of the
 * score range: phrase matches, every word, some words): a partial match never passes a full one,
 * an exact code match (1) stays first.
 */
export function personalScore(score: number, affinity: number): number {
  if (score >= 1) return score;
  const band = Math.floor(score * 4);
  const within = score * 4 - band;
  return (band + (1 - PERSONAL_WEIGHT) * within + PERSONAL_WEIGHT * Math.min(Math.max(affinity, 0), 0.999)) / 4;
}

export interface DiscoveryCard {
  row: number;
  code: string;
  /** The text relevance of the card's variant; undefined when browsing. */
  score?: number;
  variantCount: number;
  sizes: string[];
}

export interface DiscoveryResult {
  cards: DiscoveryCard[];
  total: number;
  facets: Record<string, Array<{ value: string; count: number }>>;
  priceRange: { min: number; max: number } | null;
  appliedRules: string[];
}

const PRICE = 'Selling Price';
const ROW_BITS = 4_194_304; // 2^22 rows: a row number fits beside a group number in a double

/**
 * The listing engine of search and browse, over a store's in-memory catalog listing: hides, filters
 * (each condition once per distinct value), disjunctive facets and the price range over the whole
 * result, boosts and buries, one card per family (and colour), the order asked for (ties by
 * product_code) and pins on page 1. Synchronous: the listing is read at one moment.
 */
export function discover(listing: CatalogListing, query: DiscoveryQuery): DiscoveryResult {
  // Browsing ranks nothing: an empty table reads undefined for every row.
  if (query.candidates.kind !== 'ranked') return discoverIn(listing, query, new Float64Array(0));
  const score = scoreTable(listing.rows.rowCount);
  const ranked = query.candidates.rows;
  try {
    return discoverIn(listing, query, score);
  } finally {
    // Left as found (NaN): boosts and tastes wrote only candidates' rows.
    for (let i = 0; i < ranked.length; i++) score[ranked[i]] = Number.NaN;
  }
}

/** `discover` with a table of scores by row (NaN: not ranked), the candidates' written first. */
function discoverIn(listing: CatalogListing, query: DiscoveryQuery, score: Float64Array): DiscoveryResult {
  const { rows, columns, snapshot } = listing;
  const applied = new Set<string>();

  // 1. The candidates, without hidden products.
  let candidates: Int32Array;
  if (query.candidates.kind === 'ranked') {
    candidates = query.candidates.rows;
    const scores = query.candidates.scores;
    for (let i = 0; i < candidates.length; i++) score[candidates[i]] = scores[i];
  } else candidates = query.candidates.rows ?? snapshot.liveRows;
  if (query.rules.hide.size > 0) {
    const hidden = new Set<number>();
    for (const [code, rule] of query.rules.hide) {
      const row = listing.rowOf.get(code);
      if (row !== undefined && rows.live[row]) {
        hidden.add(row);
        if (candidates.includes(row)) applied.add(rule);
      }
    }
    if (hidden.size > 0) candidates = keep(candidates, (row) => !hidden.has(row));
  }

  // 2. Each candidate's failed conditions: none passes; only a facet's own conditions, counts in it.
  const tests = query.filters.map(({ field, condition }) => ({
    field: canonicalAttribute(field).toLowerCase(),
    accepts: columns.compile([{ field, condition }], query.resolver),
  }));
  const failures = new Uint8Array(candidates.length);
  for (const test of tests) for (let i = 0; i < candidates.length; i++) if (!test.accepts(candidates[i])) failures[i]++;
  const passing = tests.length === 0 ? candidates : keep(candidates, (_, i) => failures[i] === 0);
  const passingOtherThan = (field: string): Int32Array => {
    const own = tests.filter((t) => t.field === field);
    if (own.length === 0) return passing;
    return keep(candidates, (row, i) => {
      if (failures[i] === 0) return true;
      if (failures[i] > own.length) return false;
      let ownFailures = 0;
      for (const t of own) if (!t.accepts(row)) ownFailures++;
      return ownFailures === failures[i];
    });
  };
  // Every visible product, in code order: what the precomputed orders and groupings already hold.
  const everything = passing === snapshot.liveRows;

  // 3. Facets and the price range over the whole result, each ignoring its own filter.
  const grouping = snapshot.grouping(query.group);
  const facets: DiscoveryResult['facets'] = {};
  // Facets without a filter of their own share one subset: put it in group order once.
  const inGroupOrder = new Map<Int32Array, Int32Array>();
  for (const name of query.facets) {
    const field = canonicalAttribute(name);
    const subset = passingOtherThan(field.toLowerCase());
    const count = () => {
      const counted =
        query.group === 'false'
          ? subset
          : subset === snapshot.liveRows
            ? grouping.members
            : (inGroupOrder.get(subset) ??
              inGroupOrder.set(subset, groupOrdered(subset, grouping, rows.rowCount)).get(subset)!);
      return countValues(listing, grouping.of, counted, field, query.facetLimit);
    };
    // Over the whole catalog a facet is the same for every request until the catalog changes.
    facets[name] =
      subset === snapshot.liveRows
        ? snapshot.memo(`facet:${query.group}:${query.facetLimit}:${field.toLowerCase()}`, count)
        : count();
  }
  const priced = passingOtherThan(PRICE.toLowerCase());
  const priceRange =
    priced === snapshot.liveRows
      ? snapshot.memo('price range', () => rangeOf(rows.price, priced))
      : rangeOf(rows.price, priced);

  // 4. The order: boosts raise relevance, buried products go after the rest whatever the sort.
  const buried = new Set<number>();
  for (const bury of query.rules.bury) {
    const accepts = columns.compile(bury.filters, query.resolver);
    for (const row of passing)
      if (accepts(row)) {
        buried.add(row);
        applied.add(bury.rule);
      }
  }
  let ordered: Int32Array;
  if (query.sort === 'relevance') {
    if (query.candidates.kind === 'ranked') {
      const { personal } = query;
      if (personal) for (const row of passing) score[row] = personalScore(score[row], personal(row));
      for (const boost of query.rules.boost) {
        const accepts = columns.compile(boost.filters, query.resolver);
        for (const row of passing)
          if (accepts(row)) {
            score[row] *= 1 + boost.weight;
            applied.add(boost.rule);
          }
      }
      const codes = rows.codes;
      // The list comes best first: only boosts and a shopper's taste move rows; without them it is in order.
      ordered =
        query.rules.boost.length === 0 && !personal
          ? passing
          : Int32Array.from(passing).sort(
              (a, b) => score[b] - score[a] || (codes[a] < codes[b] ? -1 : codes[a] > codes[b] ? 1 : 0),
            );
    } else ordered = passing; // a collection's order, or product_code order
  } else if (typeof query.sort === 'object') {
    // The whole catalog by a signal, kept while the signal (one read of the signals) stands; a
    // filtered set takes its rows in that order (no sort per request).
    const whole = signalOrder(query.sort.signal, snapshot.liveRows, rows);
    ordered = everything ? whole.order : inOrder(passing, whole, rows.rowCount);
  } else
    ordered = everything
      ? snapshot.order(query.sort).order
      : inOrder(passing, snapshot.order(query.sort), rows.rowCount);
  if (buried.size > 0)
    ordered = Int32Array.from([...keep(ordered, (r) => !buried.has(r)), ...keep(ordered, (r) => buried.has(r))]);

  // 5. One card per group (its best row in this order), then pins hold their positions on page 1.
  const pins: Array<{ row: number; group: number; position: number }> = [];
  for (const pin of query.rules.pins) {
    const row = listing.rowOf.get(pin.code);
    // A pinned product shows when it is visible, not hidden and satisfies the filters (not necessarily the words).
    if (row === undefined || !rows.live[row] || query.rules.hide.has(pin.code)) continue;
    if (!tests.every((t) => t.accepts(row))) continue;
    if (pins.some((p) => p.group === grouping.of[row])) continue;
    pins.push({ row, group: grouping.of[row], position: pin.position });
    applied.add(pin.rule);
  }
  const pinnedGroups = new Set(pins.map((p) => p.group));
  const wanted = query.offset + query.limit;
  // The whole catalog in one order: the same cards for every request until the catalog changes.
  const cardsInOrder =
    everything && buried.size === 0 && typeof query.sort === 'string'
      ? snapshot.memo(`cards:${query.sort}:${query.group}`, () => collectCards(ordered, grouping, Infinity))
      : collectCards(ordered, grouping, wanted + pins.length);
  const head: number[] = [];
  for (const row of cardsInOrder.rows) {
    if (head.length >= wanted) break;
    if (!pinnedGroups.has(grouping.of[row])) head.push(row);
  }
  let total = cardsInOrder.total;
  for (const pin of pins) {
    head.splice(Math.min(pin.position - 1, head.length), 0, pin.row);
    if (!cardsInOrder.seen[pin.group]) total++;
  }
  const page = head.slice(query.offset, wanted);
  const cards = page.map((row) => {
    const rank = score[row] as number | undefined;
    return cardOf(listing, query.group, row, rank === undefined || Number.isNaN(rank) ? undefined : rank);
  });
  return {
    cards,
    total,
    facets,
    priceRange,
    appliedRules: [...applied],
  };
}

/** `subset` in the order of a precomputed permutation: a scan of it for large sets, a sort by rank for small ones. */
function inOrder(subset: Int32Array, order: { order: Int32Array; rank: Int32Array }, rowCount: number): Int32Array {
  if (subset.length * 16 < order.order.length) {
    const keys = Float64Array.from(subset, (row) => order.rank[row] * ROW_BITS + row).sort();
    return Int32Array.from(keys, (key) => key % ROW_BITS);
  }
  const member = new Uint8Array(rowCount);
  for (const row of subset) member[row] = 1;
  return keep(order.order, (row) => member[row] === 1);
}

/** `subset` with each group's rows consecutive (group order), as facets count them. */
function groupOrdered(subset: Int32Array, grouping: Grouping, rowCount: number): Int32Array {
  if (subset.length * 16 < grouping.members.length) {
    const keys = Float64Array.from(subset, (row) => grouping.of[row] * ROW_BITS + row).sort();
    return Int32Array.from(keys, (key) => key % ROW_BITS);
  }
  const member = new Uint8Array(rowCount);
  for (const row of subset) member[row] = 1;
  return keep(grouping.members, (row) => member[row] === 1);
}

/**
 * A facet's values over `rows` (a group's rows consecutive), each counted once per card group
 * (families, not SKUs), most frequent first (ties by value), at most `limit`. An attribute no
 * product has: no values.
 */
function countValues(
  listing: CatalogListing,
  groupOf: Int32Array,
  rows: Int32Array,
  field: string,
  limit: number,
): Array<{ value: string; count: number }> {
  const column = listing.columns.column(field);
  if (!column || rows.length === 0) return [];
  const { counts, lastGroup } = scratch(listing.columns.dictionarySize);
  const touched: number[] = [];
  for (const row of rows) {
    const id = column[row];
    if (id === 0) continue;
    const group = groupOf[row];
    if (lastGroup[id] === group) continue;
    lastGroup[id] = group;
    if (counts[id]++ === 0) touched.push(id);
  }
  const values = touched.map((id) => ({ value: listing.columns.display(id), count: counts[id] }));
  for (const id of touched) {
    counts[id] = 0;
    lastGroup[id] = -1;
  }
  return values
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, limit);
}

/** The rows of `rows` that `test` keeps, in order (a plain loop: TypedArray.filter is several times slower). */
function keep(rows: Int32Array, test: (row: number, index: number) => boolean): Int32Array {
  const kept = new Int32Array(rows.length);
  let n = 0;
  for (let i = 0; i < rows.length; i++) if (test(rows[i], i)) kept[n++] = rows[i];
  return kept.subarray(0, n);
}

/** One card per group, in the order given: its first row. The first `limit` cards, the count of all and the groups seen. */
function collectCards(ordered: Int32Array, grouping: Grouping, limit: number) {
  const seen = new Uint8Array(grouping.count);
  const cards: number[] = [];
  let total = 0;
  for (let i = 0; i < ordered.length; i++) {
    const group = grouping.of[ordered[i]];
    if (seen[group]) continue;
    seen[group] = 1;
    if (total++ < limit) cards.push(ordered[i]);
  }
  return { rows: cards, total, seen };
}

/** The lowest and highest valid price of `rows`; null when none has one. */
function rangeOf(prices: Float64Array, rows: Int32Array): { min: number; max: number } | null {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < rows.length; i++) {
    const price = prices[rows[i]];
    if (price < min) min = price;
    if (price > max) max = price;
  }
  return min <= max ? { min, max } : null;
}

// Scores by row for ranked listings, reused across requests (discover runs synchronously, one at a
// time) and left all NaN: a 1M-product listing's table is 8 MB, allocated and filled per query before.
let scores = new Float64Array(0);
function scoreTable(rowCount: number): Float64Array {
  if (scores.length < rowCount) scores = new Float64Array(Math.ceil(rowCount * 1.25)).fill(Number.NaN);
  return scores;
}

// Facet counting's tables by value id, reused across requests (discover runs synchronously, one at a
// time) and left zeroed: a request touches only the values it counts.
let scratchCounts = new Int32Array(0);
let scratchLast = new Int32Array(0);
function scratch(size: number) {
  if (scratchCounts.length < size) {
    scratchCounts = new Int32Array(size * 2);
    scratchLast = new Int32Array(size * 2).fill(-1);
  }
  return { counts: scratchCounts, lastGroup: scratchLast };
}

/** A card of `row` grouped by `group`: its group's visible variants and in-stock sizes (size-chart order). */
export function cardOf(listing: CatalogListing, group: GroupVariants, row: number, score?: number): DiscoveryCard {
  const { rows } = listing;
  const grouping = listing.snapshot.grouping(group);
  const g = grouping.of[row];
  const members = grouping.members.subarray(grouping.start[g], grouping.start[g + 1]);
  const sizes =
    group !== 'false'
      ? sortSizes([...members].filter((m) => rows.inStock[m] && rows.size[m] !== '').map((m) => rows.size[m]))
      : rows.inStock[row] && rows.size[row] !== ''
        ? [rows.size[row]]
        : [];
  return { row, code: rows.codes[row], score, variantCount: members.length, sizes };
}

/**
 * The whole catalog in a signal's order (highest first, ties by product code) and each row's rank in
 * it, per signal function (one per signals read and listing version).
 */
const signalOrders = new WeakMap<(row: number) => number, { order: Int32Array; rank: Int32Array }>();

function signalOrder(signal: (row: number) => number, live: Int32Array, rows: { codes: string[]; rowCount: number }) {
  let kept = signalOrders.get(signal);
  if (!kept) {
    const codes = rows.codes;
    const order = Int32Array.from(live).sort(
      (a, b) => signal(b) - signal(a) || (codes[a] < codes[b] ? -1 : codes[a] > codes[b] ? 1 : 0),
    );
    const rank = new Int32Array(rows.rowCount);
    order.forEach((row, i) => (rank[row] = i));
    signalOrders.set(signal, (kept = { order, rank }));
  }
  return kept;
}
