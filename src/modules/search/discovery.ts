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
  /** relevance: the ranked order (or, browsing, the candidates' own order: a collection's). */
  sort: 'relevance' | ListingSort;
  group: GroupVariants;
  offset: number;
  limit: number;
  rules: ActiveRules;
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
  const { rows, columns, snapshot } = listing;
  const applied = new Set<string>();

  // 1. The candidates, without hidden products.
  let candidates: Int32Array;
  const score = new Map<number, number>();
  if (query.candidates.kind === 'ranked') {
    candidates = query.candidates.rows;
    query.candidates.scores.forEach((s, i) => score.set(candidates[i], s));
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
    if (hidden.size > 0) candidates = candidates.filter((row) => !hidden.has(row));
  }

  // 2. Each candidate's failed conditions: none passes; only a facet's own conditions, counts in it.
  const tests = query.filters.map(({ field, condition }) => ({
    field: canonicalAttribute(field).toLowerCase(),
    accepts: columns.compile([{ field, condition }], query.resolver),
  }));
  const failures = new Uint8Array(candidates.length);
  for (const test of tests) for (let i = 0; i < candidates.length; i++) if (!test.accepts(candidates[i])) failures[i]++;
  const passingOtherThan = (field: string): Int32Array => {
    const own = tests.filter((t) => t.field === field);
    if (own.length === 0) return candidates.filter((_, i) => failures[i] === 0);
    return candidates.filter((row, i) => {
      if (failures[i] === 0) return true;
      if (failures[i] > own.length) return false;
      let ownFailures = 0;
      for (const t of own) if (!t.accepts(row)) ownFailures++;
      return ownFailures === failures[i];
    });
  };
  const passing = tests.length === 0 ? candidates : candidates.filter((_, i) => failures[i] === 0);

  // 3. Facets and the price range over the whole result, each ignoring its own filter.
  const grouping = snapshot.grouping(query.group);
  const facets: DiscoveryResult['facets'] = {};
  for (const name of query.facets) {
    const field = canonicalAttribute(name);
    const counted =
      query.group === 'false'
        ? passingOtherThan(field.toLowerCase())
        : groupOrdered(passingOtherThan(field.toLowerCase()), grouping, rows.rowCount);
    facets[name] = countValues(listing, grouping.of, counted, field, query.facetLimit);
  }
  let priceRange: DiscoveryResult['priceRange'] = null;
  for (const row of passingOtherThan(PRICE.toLowerCase())) {
    const price = rows.price[row];
    if (Number.isNaN(price)) continue;
    if (!priceRange) priceRange = { min: price, max: price };
    else if (price < priceRange.min) priceRange.min = price;
    else if (price > priceRange.max) priceRange.max = price;
  }

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
      for (const boost of query.rules.boost) {
        const accepts = columns.compile(boost.filters, query.resolver);
        for (const row of passing)
          if (accepts(row)) {
            score.set(row, (score.get(row) ?? 0) * (1 + boost.weight));
            applied.add(boost.rule);
          }
      }
      const codes = rows.codes;
      ordered = Int32Array.from(passing).sort(
        (a, b) => score.get(b)! - score.get(a)! || (codes[a] < codes[b] ? -1 : codes[a] > codes[b] ? 1 : 0),
      );
    } else ordered = passing; // a collection's order, or product_code order
  } else ordered = inOrder(passing, snapshot.order(query.sort), rows.rowCount);
  if (buried.size > 0)
    ordered = Int32Array.from([...ordered.filter((r) => !buried.has(r)), ...ordered.filter((r) => buried.has(r))]);

  // 5. One card per group (its best row in this order), then pins hold their positions on page 1.
  const seen = new Uint8Array(grouping.count);
  const cardRows: number[] = [];
  for (const row of ordered) {
    const group = grouping.of[row];
    if (seen[group]) continue;
    seen[group] = 1;
    cardRows.push(row);
  }
  for (const pin of query.rules.pins) {
    const row = listing.rowOf.get(pin.code);
    // A pinned product shows when it is visible, not hidden and satisfies the filters (not necessarily the words).
    if (row === undefined || !rows.live[row] || query.rules.hide.has(pin.code)) continue;
    if (!tests.every((t) => t.accepts(row))) continue;
    const group = grouping.of[row];
    const at = cardRows.findIndex((r) => grouping.of[r] === group);
    if (at >= 0) cardRows.splice(at, 1);
    cardRows.splice(Math.min(pin.position - 1, cardRows.length), 0, row);
    applied.add(pin.rule);
  }
  const page = cardRows.slice(query.offset, query.offset + query.limit);
  const grouped = query.group !== 'false';
  const cards = page.map((row): DiscoveryCard => {
    const group = grouping.of[row];
    const members = grouping.members.subarray(grouping.start[group], grouping.start[group + 1]);
    const sizes = grouped
      ? sortSizes([...members].filter((m) => rows.inStock[m] && rows.size[m] !== '').map((m) => rows.size[m]))
      : rows.inStock[row] && rows.size[row] !== ''
        ? [rows.size[row]]
        : [];
    return { row, code: rows.codes[row], score: score.get(row), variantCount: members.length, sizes };
  });
  return {
    cards,
    total: cardRows.length,
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
  return order.order.filter((row) => member[row] === 1);
}

/** `subset` with each group's rows consecutive (group order), as facets count them. */
function groupOrdered(subset: Int32Array, grouping: Grouping, rowCount: number): Int32Array {
  if (subset.length * 16 < grouping.members.length) {
    const keys = Float64Array.from(subset, (row) => grouping.of[row] * ROW_BITS + row).sort();
    return Int32Array.from(keys, (key) => key % ROW_BITS);
  }
  const member = new Uint8Array(rowCount);
  for (const row of subset) member[row] = 1;
  return grouping.members.filter((row) => member[row] === 1);
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
  const size = listing.columns.dictionarySize;
  const counts = new Int32Array(size);
  const lastGroup = new Int32Array(size).fill(-1);
  const touched: number[] = [];
  for (const row of rows) {
    const id = column[row];
    if (id === 0) continue;
    const group = groupOf[row];
    if (lastGroup[id] === group) continue;
    lastGroup[id] = group;
    if (counts[id]++ === 0) touched.push(id);
  }
  return touched
    .map((id) => ({ value: listing.columns.display(id), count: counts[id] }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, limit);
}
