import { setImmediate as nextTurn } from 'node:timers/promises';
import type { StorageHandle } from '../../storage/database.js';
import type { SeqCache } from '../../storage/seq-cache.js';
import type { Store } from '../stores/store.js';
import { MISSING_SKU } from './quality-checks.js';
import * as repo from './products.repository.js';
import { countProductsUpTo } from './storage-order.js';
import { vocabularyForStore } from '../../catalog/vocabulary/store-vocabulary.js';
import { parseFiltersParam, type AudienceResolver, type CompiledFilters } from '../../catalog/filters.js';
import { MAX_FACETS } from '../../catalog/limits.js';
import { InvalidInputError } from '../../errors.js';
import { AttributeScan, type AttributeMatch, type FacetValue, type MatchedCodes } from './attribute-filter.js';
import type { ProductAttributeIndex } from './attribute-index.js';

/** Products one chunk of an attribute scan reads. */
const SCAN_CHUNK = 1000;

/**
 * How long a filtered page may read the first products while a large store's attribute index is
 * built (`total_precision=at_least`): the page of a filter most products pass is found in the first
 * thousands; a rarer one waits for the index instead.
 */
const EARLY_SCAN_MS = 250;
/** A page past this many matches is not looked for among the first products: that read would not find it in time. */
const EARLY_SCAN_DEPTH = 10_000;

/** The status listing keeps the code at every MARK_EVERY-th position (per status, until the catalog changes). */
const MARK_EVERY = 1000;
/**
 * From this offset a page starts at the nearest mark: OFFSET 900,000 stepped through 900,000 index
 * entries (49 ms p50, 109 ms p99 at 1M on SQLite); from a mark it steps through fewer than 1,000. The
 * marks cost one pass (about one such deep page) after each change; shallower pages never ask for them.
 */
const MARKS_FROM = 10_000;

/** Missing-SKU rejections count toward failures for this long (CONTRACT §6). */
const SKU_REJECTION_WINDOW_MS = 30 * 24 * 3600 * 1000;

export interface ProductPage extends StatusPage {
  codes?: string[];
  reason?: string;
  text?: string;
  /** The catalog filter language as JSON text (the `filters` parameter). */
  filters?: string;
  facets?: string[];
  facetLimit?: number;
  /**
   * `at_least`: while a large store's attribute index is being built, a filtered page may be found in
   * the first products instead, its total then the matches found so far (`total_precision` says which).
   */
  totalPrecision?: TotalPrecision;
}

export type TotalPrecision = 'exact' | 'at_least';

/** A page of full products (GET /v1/products). */
export interface ProductList {
  store_uuid: string;
  total: number;
  total_precision?: TotalPrecision;
  products: Array<
    Record<string, unknown> & {
      product_code: string;
      status: string;
      problems: string[];
      created_at: string;
      updated_at: string;
    }
  >;
  facets?: Record<string, FacetValue[]>;
}

export interface StatusPage {
  status?: string;
  offset: number;
  limit: number;
  /** Keyset paging: product codes after this one. */
  after?: string;
}

/** Reads of the catalog: the status listing, failure counts and full products. */
export class ProductQueries {
  #fixable: ((store: Store) => Promise<Partial<Record<string, number>>>) | undefined;

  readonly #marks: { every: number; from: number };
  readonly #attributes: ProductAttributeIndex | undefined;

  constructor(
    private readonly storage: StorageHandle,
    private readonly counts: SeqCache,
    options: {
      /** Where deep pages start from marks (tests set them small). */
      marks?: { every: number; from: number };
      /** Attribute filters and facets from memory; without it, every filtered view reads the products. */
      attributes?: ProductAttributeIndex;
    } = {},
  ) {
    this.#marks = options.marks ?? { every: MARK_EVERY, from: MARKS_FROM };
    this.#attributes = options.attributes;
  }

  /** Lets the tagging module say, per failure reason, how many products a photo suggestion would fix. */
  setFixable(fixable: (store: Store) => Promise<Partial<Record<string, number>>>) {
    this.#fixable = fixable;
  }

  #total(store: Store, status?: string): Promise<number> {
    return this.counts.get(store, `products:${status ?? ''}`, () =>
      repo.countProducts(this.storage.db, store.id, status),
    );
  }

  /**
   * The products a text (and a status) select, counted once while the catalog is unchanged: paging
   * through a name filter of a 1M store counted every title again for each page (250 ms). A reason's
   * count is not kept (problems follow the store's quality settings as well as its products).
   */
  #filteredTotal(store: Store, page: ProductPage): Promise<number> {
    const count = () => repo.countFilteredProducts(this.storage.db, store.id, page);
    if (page.reason !== undefined || page.codes !== undefined || page.text === undefined) return count();
    return this.counts.get(store, `products:${page.status ?? ''}:text:${page.text}`, count);
  }

  /** The store's products counted up to `limit` (whether it is a large store, without counting all of it). */
  productsUpTo(storeId: string, limit: number): Promise<number> {
    return countProductsUpTo(this.storage.db, storeId, limit);
  }

  async statusListing(store: Store, page: StatusPage) {
    const [total, rows] = await Promise.all([
      this.#total(store, page.status),
      this.#fromMark(store, page).then((start) => repo.listStatuses(this.storage.db, store.id, { ...page, ...start })),
    ]);
    return {
      store_uuid: store.id,
      total,
      data: rows.map((row) => ({
        [row.product_code]: { Category: row.category ?? '', product_code: row.product_code, status: row.status },
      })),
      // A full page may have a next one; a short page is the last.
      next_after: rows.length === page.limit && rows.length > 0 ? rows[rows.length - 1].product_code : null,
    };
  }

  /** A deep offset as the nearest mark before it and the rest: the same page, fewer index entries stepped over. */
  async #fromMark(store: Store, page: StatusPage): Promise<{ from?: string; offset: number }> {
    const { every, from } = this.#marks;
    if (page.after !== undefined || page.offset < from) return { offset: page.offset };
    const marks = await this.counts.get(
      store,
      `status-marks:${every}:${page.status ?? ''}`,
      () => repo.listStatusMarks(this.storage.db, store.id, page.status, every),
      (codes) => codes.reduce((bytes, code) => bytes + 40 + 2 * code.length, 0),
    );
    const mark = Math.min(Math.floor(page.offset / every), marks.length - 1);
    if (mark <= 0) return { offset: page.offset };
    return { from: marks[mark], offset: page.offset - mark * every };
  }

  /** Failure-reason counts over current products, plus Missing SKU rejections of the last 30 days; most frequent first. */
  async failures(store: Store): Promise<Array<{ _id: string; count: number; fixable_by_suggestion?: number }>> {
    const since = new Date(Date.now() - SKU_REJECTION_WINDOW_MS).toISOString();
    const [byReason, missingSku] = await Promise.all([
      repo.countProblemsByReason(this.storage.db, store.id),
      repo.countSkuRejectionsSince(this.storage.db, store.id, since),
    ]);
    // Reading every photo's suggestion costs a pass over the catalog: only where one could fix something.
    const missingCategory = byReason.some((row) => row.reason === 'Missing category');
    const fixable = missingCategory && this.#fixable ? await this.#fixable(store) : {};
    const counts = byReason.map((row) => ({
      _id: row.reason,
      count: Number(row.n),
      // Said only where a suggestion would fix some: the contract's items stay as written otherwise.
      ...(fixable[row.reason] ? { fixable_by_suggestion: fixable[row.reason] } : {}),
    }));
    if (missingSku > 0) counts.push({ _id: MISSING_SKU, count: missingSku });
    return counts.sort((a, b) => b.count - a.count || a._id.localeCompare(b._id));
  }

  /**
   * Full products with every attribute, their status and quality problems; with `filters` or `facets`
   * the attribute conditions are evaluated over the store's attribute index (or, narrowed by a text, a
   * reason or codes, over a scan of the selected products); the match is cached until the catalog
   * changes, so paging through a filter and acting on all of it computes it once.
   */
  async listProducts(store: Store, page: ProductPage): Promise<ProductList> {
    if (page.codes?.length === 0) return { store_uuid: store.id, total: 0, products: [] };
    if (page.filters !== undefined || page.facets !== undefined) return this.#listByAttributes(store, page);
    if (page.reason !== undefined || page.text !== undefined) {
      // The page first: a page that ends before its limit tells the total, so a name few products
      // have (or none) is looked for in every product once, not twice (1M on SQLite: 365 → 178 ms).
      const rows = await repo.listProducts(this.storage.db, store.id, page);
      const ended = rows.length < page.limit && (rows.length > 0 || page.offset === 0);
      const total = ended ? page.offset + rows.length : await this.#filteredTotal(store, page);
      return this.#withProblems(store, rows, total);
    }
    const [total, rows] = await Promise.all([
      page.codes ? Promise.resolve(undefined) : this.#total(store, page.status),
      // The whole catalog or one status is the status listing's order: deep pages start from its marks.
      (page.codes ? Promise.resolve({ offset: page.offset }) : this.#fromMark(store, page)).then((start) =>
        repo.listProducts(this.storage.db, store.id, { ...page, ...start }),
      ),
    ]);
    return this.#withProblems(store, rows, total ?? rows.length);
  }

  async #listByAttributes(store: Store, page: ProductPage): Promise<ProductList> {
    const resolver = vocabularyForStore(store);
    const filters = parseFiltersParam(page.filters, resolver);
    const facets = [...new Set(page.facets ?? [])];
    if (facets.length > MAX_FACETS)
      throw new InvalidInputError(`query parameter 'facets' names at most ${MAX_FACETS} attributes`, 'facets');
    const limit = page.facetLimit ?? 50;
    const { status, codes, reason, text } = page;
    const sqlFilter = { status, codes, reason, text };
    const key = `attributes:${JSON.stringify([sqlFilter, page.filters ?? '', facets, limit])}`;
    if (page.totalPrecision === 'at_least' && facets.length === 0 && !this.counts.has(store, key)) {
      const early = await this.#pageWhileIndexBuilds(store, page, filters, resolver);
      if (early)
        return {
          ...(await this.#pageOf(store, page, early.codes)),
          ...(early.exact ? {} : { total_precision: 'at_least' as const }),
        };
    }
    const match = await this.counts.get(
      store,
      key,
      async (): Promise<AttributeMatch> => {
        // The index answers a status or the whole catalog; a reason, text or codes narrow the read instead.
        if (this.#attributes && reason === undefined && text === undefined && codes === undefined) {
          const found = await this.#attributes.match(store, { filters, facets, facetLimit: limit, status, resolver });
          if (found) return found;
        }
        const scan = new AttributeScan(filters, facets, resolver);
        for await (const { rows } of this.#scanned(store, sqlFilter))
          for (const row of rows) scan.add(row.product_code, JSON.parse(row.attributes) as Record<string, unknown>);
        return scan.result(limit);
      },
      (value) => 200 + value.codes.bytes + facetBytes(value.facets),
    );
    return {
      ...(await this.#pageOf(store, page, match.codes)),
      ...(page.facets ? { facets: match.facets } : {}),
    };
  }

  /** The page of matched codes, its total all of them. */
  async #pageOf(store: Store, page: ProductPage, codes: MatchedCodes) {
    const pageCodes = codes.slice(page.offset, page.offset + page.limit);
    const rows =
      pageCodes.length === 0
        ? []
        : await repo.listProducts(this.storage.db, store.id, { codes: pageCodes, offset: 0, limit: pageCodes.length });
    return this.#withProblems(store, rows, codes.length);
  }

  /**
   * A filtered page while a large store's attribute index is being built (seconds at 1M products): the
   * products read in code order, as the index would list them, until the page and one match past it
   * are found (`exact` when every product was read first). Undefined when the index is kept (it
   * answers at once), for a reason, text or codes (the read they narrow is the answer anyway), for a
   * deep page, or when EARLY_SCAN_MS pass first: the build, started if need be, answers.
   */
  async #pageWhileIndexBuilds(
    store: Store,
    page: ProductPage,
    filters: CompiledFilters,
    resolver: AudienceResolver,
  ): Promise<{ codes: MatchedCodes; exact: boolean } | undefined> {
    const narrowed = page.reason !== undefined || page.text !== undefined || page.codes !== undefined;
    if (!this.#attributes || narrowed || page.offset + page.limit > EARLY_SCAN_DEPTH) return undefined;
    if (!(await this.#attributes.buildingLong(store))) return undefined;
    const scan = new AttributeScan(filters, [], resolver);
    const wanted = page.offset + page.limit + 1;
    const deadline = performance.now() + EARLY_SCAN_MS;
    // Small reads first: a filter most products pass finds its page in the first hundreds.
    for await (const { rows, last } of this.#scanned(store, { status: page.status }, 100)) {
      for (const row of rows) scan.add(row.product_code, JSON.parse(row.attributes) as Record<string, unknown>);
      if (last || scan.matched >= wanted) return { codes: scan.result(0).codes, exact: last };
      if (performance.now() > deadline) return undefined;
    }
    return undefined;
  }

  /**
   * The selected products in code order, a read at a time (`first` products, doubling up to SCAN_CHUNK);
   * `last` on the read that ends them. SQLite's reads resolve at once: a turn of the event loop between
   * reads lets requests arriving meanwhile in before the scan ends.
   */
  async *#scanned(store: Store, filter: repo.ProductFilter, first = SCAN_CHUNK) {
    for (let after: string | undefined, chunk = first; ; chunk = Math.min(chunk * 2, SCAN_CHUNK)) {
      const rows = await repo.scanAttributes(this.storage.db, store.id, filter, after, chunk);
      const last = rows.length < chunk;
      yield { rows, last };
      if (last) return;
      after = rows[rows.length - 1].product_code;
      await nextTurn();
    }
  }

  async #withProblems(
    store: Store,
    rows: Awaited<ReturnType<typeof repo.listProducts>>,
    total: number,
  ): Promise<ProductList> {
    const problems = await repo.problemsFor(
      this.storage.db,
      store.id,
      rows.map((row) => row.product_code),
    );
    const reasons = new Map<string, string[]>();
    for (const { product_code, reason } of problems)
      reasons.set(product_code, [...(reasons.get(product_code) ?? []), reason]);
    return {
      store_uuid: store.id,
      total,
      products: rows.map((row) => ({
        ...(JSON.parse(row.attributes) as Record<string, unknown>),
        product_code: row.product_code,
        status: row.status,
        problems: reasons.get(row.product_code) ?? [],
        created_at: row.created_at,
        updated_at: row.updated_at,
      })),
    };
  }
}

const facetBytes = (facets: Record<string, FacetValue[]>) =>
  Object.values(facets).reduce((bytes, values) => bytes + values.reduce((b, v) => b + 60 + v.value.length * 2, 0), 0);
