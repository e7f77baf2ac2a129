import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChangeFeed } from '../../storage/change-feed.js';
import { LiveStoreIndex, type LiveIndex } from '../../storage/live-store-index.js';
import { AttributeColumns, foldName, storeValues } from '../../catalog/attribute-columns.js';
import { BUILT_IN, type AudienceResolver, type CompiledFilters } from '../../catalog/filters.js';
import { PRODUCT_STATUSES } from '../../catalog/statuses.js';
import type { ProductsReadPort } from './products.read-port.js';
import type { StorageHandle } from '../../storage/database.js';
import { codePagesInOrder, pagesInStorageOrder } from './storage-order.js';
import type { AttributeMatch, FacetValue, MatchedCodes } from './attribute-filter.js';

/** Status by id (0: the row's product was deleted). */
const STATUS_IDS = new Map<string, number>(PRODUCT_STATUSES.map((status, i) => [status, i + 1]));

/**
 * Once the build has read this many products, an attribute with more distinct values than half of them
 * (names, image addresses, descriptions) loses its column: a filter or facet on it reads the products
 * instead. At 1M products the names alone would hold about 100 MB of values for a filter no screen offers.
 */
const DISTINCT_CHECK_AT = 20_000;
/** Past this many changes a rebuild reads less than following them. */
const REBUILD_AFTER = 20_000;
/**
 * Bytes of one product beside its attribute ids (code, its map entry, status, place in the order), and
 * of an index itself: the 1M console catalog's index (10 attribute columns) is estimated at 100 MB and
 * measured 67 MB of heap after a full collection (17 → 84 MB), the estimate erring on the side of the budget.
 */
const BYTES_PER_ROW = 60;
const BYTES_PER_INDEX = 64 * 1024;

interface AttributeIndex extends LiveIndex {
  /** Product codes by row: the build's in the database's product_code order, then new products. */
  codes: string[];
  /** Rows in product_code order (the listing's order). */
  order: Int32Array;
  /**
   * Whether the database orders codes by their UTF-8 bytes (SQLite; PostgreSQL with the C collation),
   * checked on the build's codes: a new product then takes its place by a binary search; otherwise
   * (another collation) it rebuilds the index.
   */
  byteOrdered: boolean;
  rowOf: Map<string, number>;
  /** Status id by row; 0 for a product deleted since the build. */
  status: Uint8Array;
  columns: AttributeColumns;
  /**
   * Attributes (folded names) the columns do not answer for exactly: a value that is a list or an
   * object, two spellings of the name in one product, a name with surrounding spaces, or too many
   * distinct values. A filter or facet on one of them is answered by reading the products.
   */
  unread: Set<string>;
}

/** What a listing asks of the index: attribute conditions, facets, and optionally one status. */
export interface AttributeQuery {
  filters: CompiledFilters;
  facets: string[];
  facetLimit: number;
  status?: string;
  resolver?: AudienceResolver;
}

/**
 * Every product of a store (any status), its attributes dictionary-encoded by row: the products
 * listing's attribute filters and facets (the console's Filters panel) answered from memory instead of
 * a scan of every product per view. A LiveStoreIndex: built on first use, followed from the change log
 * (an edited, restated or deleted product in place; a new product into its place in code order where
 * the database orders codes by their bytes, by a rebuild otherwise), bounded by VITRINE_ATTRIBUTE_INDEX_MB.
 */
export class ProductAttributeIndex {
  readonly #index: LiveStoreIndex<AttributeIndex>;

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      products: ProductsReadPort;
      changeLog: ChangeFeed;
      budgetBytes: number;
      /** When the build looks for attributes with too many distinct values (tests set it small). */
      distinctCheckAt?: number;
    },
  ) {
    this.#index = new LiveStoreIndex<AttributeIndex>({
      name: 'products.attributes',
      budgetBytes: deps.budgetBytes,
      sizeOf: (index) => BYTES_PER_INDEX + index.codes.length * (BYTES_PER_ROW + 4 * index.columns.names().length),
      build: (storeId) => this.#build(storeId),
      follow: (storeId, index, target) => this.#follow(storeId, index, target.seq),
    });
  }

  /**
   * The products matching `query` in product_code order and the facets asked for, as of `changeSeq`;
   * undefined when a filter or facet names an attribute the index does not answer for (read the products).
   */
  async match(store: { id: string; changeSeq: number }, query: AttributeQuery): Promise<AttributeMatch | undefined> {
    const asked = [...query.filters.map(({ field }) => field), ...query.facets];
    // A name with spaces around it is matched as written when the products are read.
    if (asked.some((name) => name !== name.trim())) return undefined;
    const index = await this.#index.current(store.id, { seq: store.changeSeq, key: 'attributes' }, undefined);
    if (asked.some((name) => index.unread.has(name.toLowerCase()))) return undefined;
    return matchRows(index, query);
  }

  close() {
    this.#index.close();
  }

  async #build(storeId: string): Promise<AttributeIndex> {
    // The sequence first: a change committed while reading is applied by the next follow.
    const seq = await this.deps.changeLog.latest(storeId);
    const index: AttributeIndex = {
      seq,
      key: 'attributes',
      codes: [],
      order: new Int32Array(0),
      byteOrdered: true,
      rowOf: new Map(),
      status: new Uint8Array(1024),
      columns: new AttributeColumns(storeValues(storeId)),
      unread: new Set(),
    };
    let checked = false;
    // Pages of 1,000: each is read and parsed without a turn of the event loop (about 10 ms).
    const { inCodeOrder, pages } = pagesInStorageOrder(this.deps.storage, storeId, 1000);
    for await (const page of pages) {
      for (const product of page) {
        index.rowOf.set(product.product_code, index.codes.length);
        index.codes.push(product.product_code);
        place(index, index.codes.length - 1, {
          status: product.status,
          attributes: JSON.parse(product.attributes) as Record<string, unknown>,
        });
      }
      if (!checked && index.codes.length >= (this.deps.distinctCheckAt ?? DISTINCT_CHECK_AT)) {
        checked = true;
        for (const name of index.columns.names())
          if (index.columns.distinctCount(name) > index.codes.length / 2) unread(index, name);
      }
      // The reads resolve at once on SQLite: a turn of the event loop per page lets other requests in.
      await nextTurn();
    }
    if (inCodeOrder) {
      index.order = Int32Array.from(index.codes.keys());
      index.byteOrdered = index.codes.every((code, row) => row === 0 || byteOrder(index.codes[row - 1], code) < 0);
    } else index.order = await this.#listingOrder(storeId, index);
    return index;
  }

  /**
   * The index's rows in the database's code order, read from the code index a page at a time; a code
   * there but not among the rows (added since they were read) is left to the follow, which adds it, and
   * a row not there (deleted since) is forgotten, so that the follow adds its code anew if it comes back.
   */
  async #listingOrder(storeId: string, index: AttributeIndex): Promise<Int32Array> {
    const order = new Int32Array(index.codes.length);
    const listed = new Uint8Array(index.codes.length);
    let count = 0;
    let previous: string | undefined;
    for await (const codes of codePagesInOrder(this.deps.storage.db, storeId, 5_000)) {
      for (const code of codes) {
        if (previous !== undefined && byteOrder(previous, code) >= 0) index.byteOrdered = false;
        previous = code;
        const row = index.rowOf.get(code);
        if (row === undefined || listed[row] === 1) continue;
        listed[row] = 1;
        order[count++] = row;
      }
      await nextTurn();
    }
    listed.forEach((isListed, row) => {
      if (isListed === 1) return;
      index.rowOf.delete(index.codes[row]);
      place(index, row, undefined);
    });
    return order.slice(0, count);
  }

  async #follow(storeId: string, index: AttributeIndex, upTo: number): Promise<boolean> {
    if (upTo - index.seq > REBUILD_AFTER) return false;
    const changed = await this.deps.changeLog.changedKeys(storeId, index.seq, upTo, ['product']);
    if (!changed) return false;
    const codes = changed.get('product') ?? [];
    const records = await this.deps.products.attributesByCodes(storeId, codes);
    const added = records.filter((record) => !index.rowOf.has(record.code));
    if (added.length > 0 && !index.byteOrdered) return false;
    const byCode = new Map(records.map((record) => [record.code, record]));
    for (const code of codes) {
      const row = index.rowOf.get(code);
      if (row !== undefined) place(index, row, byCode.get(code));
    }
    const rows = added.map((record) => {
      const row = index.codes.length;
      index.rowOf.set(record.code, row);
      index.codes.push(record.code);
      place(index, row, record);
      return row;
    });
    if (rows.length > 0) index.order = insertInOrder(index.order, rows, index.codes);
    index.seq = upTo;
    return true;
  }
}

/** UTF-8 byte order, as SQLite (and PostgreSQL's C collation) order text. */
function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 code units order as UTF-8 bytes do, except where a surrogate pair meets U+E000–U+FFFF.
  if (/[\ud800-\uffff]/.test(a) || /[\ud800-\uffff]/.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : 1;
}

/** `order` with `rows` (new codes) each put in its place: a binary search each, one copy of the rest. */
function insertInOrder(order: Int32Array, rows: number[], codes: readonly string[]): Int32Array {
  rows.sort((a, b) => byteOrder(codes[a], codes[b]));
  const merged = new Int32Array(order.length + rows.length);
  let from = 0;
  let to = 0;
  for (const row of rows) {
    let low = from;
    let high = order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (byteOrder(codes[order[middle]], codes[row]) < 0) low = middle + 1;
      else high = middle;
    }
    merged.set(order.subarray(from, low), to);
    to += low - from;
    from = low;
    merged[to++] = row;
  }
  merged.set(order.subarray(from), to);
  return merged;
}

/** The names of the product being placed (one set for every product). */
const seenNames = new Set<string>();

/** Stores a product's status and attributes at its row, or (no record) marks the row deleted. */
function place(
  index: AttributeIndex,
  row: number,
  product: { status: string; attributes: Record<string, unknown> } | undefined,
) {
  if (row >= index.status.length) {
    const grown = new Uint8Array(Math.ceil(index.status.length * 1.5) + row);
    grown.set(index.status);
    index.status = grown;
  }
  if (product === undefined) {
    index.status[row] = 0;
    index.columns.set(row, {});
    return;
  }
  index.status[row] = STATUS_IDS.get(product.status) ?? 0;
  const seen = seenNames;
  seen.clear();
  for (const name in product.attributes) {
    const value = product.attributes[name];
    const key = foldName(name);
    if (index.unread.has(key)) continue;
    const listed = value !== null && typeof value === 'object';
    if (listed || name !== name.trim() || seen.has(key)) unread(index, key);
    seen.add(key);
  }
  index.columns.set(row, product.attributes, index.unread);
}

function unread(index: AttributeIndex, key: string) {
  index.unread.add(key);
  index.columns.drop(key);
}

/**
 * One pass over the rows: a row matches when every condition holds; facets are disjunctive (a row
 * failing exactly one condition still counts in that attribute's facet), as AttributeScan counts them.
 */
function matchRows(index: AttributeIndex, query: AttributeQuery): AttributeMatch {
  const { columns, status, codes } = index;
  const wanted = query.status === undefined ? 0 : (STATUS_IDS.get(query.status) ?? -1);
  const tests = columns.conditionTests(query.filters, query.resolver ?? BUILT_IN);
  const facets = query.facets.map((name) => {
    const key = name.toLowerCase();
    const column = columns.column(key);
    return { name, key, column, counts: new Int32Array(column ? columns.largestId(key) + 1 : 0) };
  });
  // Plain arrays and indexed loops: this pass reads every product (1M products, 7 facets: 316 → 238 ms).
  const counted = facets.filter((facet) => facet.column !== undefined);
  const facetColumns = counted.map((facet) => facet.column!);
  const facetCounts = counted.map((facet) => facet.counts);
  // A row failing exactly one condition counts in the facets of that condition's attribute only.
  const facetsOfTest = tests.map((test) => counted.flatMap((facet, f) => (facet.key === test.key ? [f] : [])));
  const { order } = index;
  const matched = new Int32Array(order.length);
  let count = 0;
  for (let i = 0; i < order.length; i++) {
    const row = order[i];
    const rowStatus = status[row];
    if (rowStatus === 0 || (wanted !== 0 && rowStatus !== wanted)) continue;
    let failures = 0;
    let failedTest = -1;
    for (let t = 0; t < tests.length; t++) {
      const { column, accepted } = tests[t];
      if (column !== undefined && accepted[column[row]] === 1) continue;
      failedTest = t;
      if (++failures > 1) break;
    }
    if (failures > 1) continue;
    if (failures === 0) {
      matched[count++] = row;
      for (let f = 0; f < facetColumns.length; f++) {
        const id = facetColumns[f][row];
        if (id !== 0) facetCounts[f][id]++;
      }
    } else
      for (const f of facetsOfTest[failedTest]) {
        const id = facetColumns[f][row];
        if (id !== 0) facetCounts[f][id]++;
      }
  }
  const result: Record<string, FacetValue[]> = {};
  for (const { name, counts } of facets) {
    const values: FacetValue[] = [];
    counts.forEach((count, id) => {
      if (count > 0) values.push({ value: columns.display(id), count });
    });
    result[name] = values
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
      .slice(0, query.facetLimit);
  }
  return { codes: new MatchedRows(codes, matched.slice(0, count)), facets: result };
}

/**
 * A match as rows of the index's code list (4 bytes a product, the codes themselves shared with the
 * index): a filter matching most of a 1M store is kept between pages and its facet count is not
 * rebuilt for each. Rows keep their code for the index's life (a follow never moves one), so a kept
 * match stays right while the cache holds it, that is while the catalog is unchanged.
 */
class MatchedRows implements MatchedCodes {
  constructor(
    private readonly codes: readonly string[],
    private readonly rows: Int32Array,
  ) {}

  get length(): number {
    return this.rows.length;
  }

  slice(start: number, end: number): string[] {
    return [...this.rows.subarray(Math.max(0, start), Math.max(0, end))].map((row) => this.codes[row]);
  }

  get bytes(): number {
    return this.rows.byteLength;
  }
}
