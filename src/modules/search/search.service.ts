import type { StorageHandle } from '../../storage/database.js';
import { InvalidInputError } from '../../errors.js';
import type { TextIndex } from '../../search/text-index.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { Store } from '../stores/store.js';
import type { SearchIndexer } from './search-indexer.js';
import type { StoresService } from '../stores/stores.service.js';
import { parseSynonyms } from './synonyms.js';
import type { ProductCard } from '../../catalog/product-summary.js';
import type { CatalogListing, ProductCards } from '../products/product-cards.js';
import {
  compileFilters,
  BUILT_IN,
  parseFiltersParam,
  RuleError,
  type AudienceResolver,
  type CompiledFilters,
} from '../../catalog/filters.js';
import type { SignalReader } from '../../catalog/signal-reader.js';
import { vocabularyForStore } from '../../catalog/vocabulary/store-vocabulary.js';
import { CANONICAL_FIELDS } from '../../catalog/product-fields.js';
import type { GroupVariants } from '../../catalog/variants.js';
import type { ListingSnapshot, ListingSort } from '../products/catalog-listing.js';
import { ResultLists, type ResultList } from './result-lists.js';
import type { SearchResult } from './scored-hits.js';
import { cardOf, discover, type Candidates, type DiscoveryCard, type DiscoveryQuery } from './discovery.js';
import { activeRules, NO_RULES, parseSearchRules, type SearchRule } from './search-rules.js';
import { suggest, type Suggestions } from './suggestions.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';

export { shapeScore, type SearchResult } from './scored-hits.js';

/** A hit as answered: the ranked result with its card, and with grouping its family's variants and sizes. */
export type SearchHit = Omit<SearchResult, 'score'> & { title: string; score?: number } & ProductCard & {
    variant_count?: number;
    sizes?: string[];
  };

export type SearchSort = 'relevance' | ListingSort | 'trending' | 'popular';

/** A product's shopper signals (the events module), by product code. */
export type SignalsOf = (storeId: string) => Promise<SignalReader<{ trend: number; popular: number }>>;

/** A listing request: words or none (browse), the one filter language, facets, order, grouping, page. */
export interface ListingRequest {
  query?: string;
  /** A JSON `filters` parameter (GET), or the object of a body (POST). */
  filters?: string | Record<string, unknown>;
  facets?: string[];
  facetLimit?: number;
  sort?: SearchSort;
  group: GroupVariants;
  collectionId?: string;
  offset: number;
  limit: number;
  /** The shopper searching: their taste reorders hits within each relevance band. */
  shopperId?: string;
}

/** A shopper's affinity per listing row (the events module); undefined for a shopper without events. */
export type TasteOf = (
  store: Store,
  shopperId: string,
  listing: CatalogListing,
) => Promise<{ affinity(listing: CatalogListing): (row: number) => number } | undefined>;

export interface ListingAnswer {
  hits: SearchHit[];
  total: number;
  facets: Record<string, Array<{ value: string; count: number }>>;
  price_range: { min: number; max: number } | null;
  applied_rules: string[];
  corrected_query: string | null;
  relaxed: boolean;
}

/** Attributes a rule may name besides the store's own: the canonical fields and the variant fields. */
const ALWAYS_KNOWN = new Set([...CANONICAL_FIELDS, 'Size', 'Stock'].map((f) => f.toLowerCase()));

export class SearchService {
  readonly #lists: ResultLists;
  readonly #rules = new Map<string, { source: string; rules: SearchRule[] }>();
  readonly #signalSorts = new WeakMap<
    object,
    WeakMap<ListingSnapshot, Partial<Record<'trending' | 'popular', { name: string; signal: (row: number) => number }>>>
  >();
  // The snapshot by a weak reference: a kept result list outlives the store's listing when the card
  // budget evicts it, and a strong one held every evicted listing's rows (300-500 KB a store of 2,000
  // products) for as long as the list was kept (bench/index-memory.bench.ts).
  readonly #rowsOfLists = new WeakMap<
    Int32Array,
    { snapshot: WeakRef<ListingSnapshot>; rows: Int32Array; scores: Float64Array }
  >();

  private readonly stores: StoresService;
  private readonly cards: ProductCards;
  private readonly signals: SignalsOf;
  private readonly tasteOf: TasteOf;
  private readonly collectionMembers: (
    store: Store,
    id: string,
    options: { readYourWrites: boolean },
  ) => Promise<string[]>;

  constructor(deps: {
    storage: StorageHandle;
    textIndex: TextIndex;
    indexer: SearchIndexer;
    products: ProductsReadPort;
    stores: StoresService;
    /** Hits' cards and the catalog listing (the products module's live index). */
    cards: ProductCards;
    /** A collection's visible members in its order (the collections module). */
    collectionMembers: (store: Store, id: string, options: { readYourWrites: boolean }) => Promise<string[]>;
    /** Shopper signals for the trending and popular sorts (the events module). */
    signals: SignalsOf;
    /** Shoppers' tastes for the personal reorder (the events module). */
    tasteOf: TasteOf;
    /** The memory budget of the typo vocabularies (VITRINE_SEARCH_VOCABULARY_MB). */
    vocabularyBytes: number;
    /** The memory budget of recent queries' result lists (VITRINE_SEARCH_RESULTS_MB). */
    resultBytes: number;
    /** The change log (large stores' in-memory ranking follows it). */
    changes: ChangeFeed;
    /** VITRINE_SEARCH_POSTINGS_MB and VITRINE_SEARCH_POSTINGS_FROM. */
    postingsBytes: number;
    postingsMinProducts: number;
    onError?: WorkerErrorLog;
  }) {
    this.stores = deps.stores;
    this.cards = deps.cards;
    this.collectionMembers = deps.collectionMembers;
    this.signals = deps.signals;
    this.tasteOf = deps.tasteOf;
    this.#lists = new ResultLists(deps);
  }

  /** Replaces a store's synonym groups (422 naming the rule they break); applied from the next query. */
  async setSynonyms(storeUuid: string, input: unknown): Promise<{ synonyms: string[][] }> {
    const synonyms = parseSynonyms(input);
    await this.stores.saveSynonyms(storeUuid, synonyms);
    return { synonyms };
  }

  /** A store's merchandising rules. */
  async getRules(storeUuid: string): Promise<{ rules: SearchRule[] }> {
    return { rules: this.#rulesOf(await this.stores.getStore(storeUuid)) };
  }

  /**
   * Replaces a store's merchandising rules: each checked (422 naming the path of the first fault), a
   * boost's or bury's attribute one the store's products have (or a canonical one).
   */
  async setRules(storeUuid: string, input: unknown): Promise<{ rules: SearchRule[] }> {
    const store = await this.stores.getStore(storeUuid);
    const { columns } = await this.cards.listing(store);
    const knows = (attribute: string) =>
      ALWAYS_KNOWN.has(attribute.toLowerCase()) || columns.column(attribute) !== undefined;
    const rules = parseSearchRules(input, knows);
    await this.stores.saveSearchRules(storeUuid, rules.length > 0 ? JSON.stringify(rules) : null);
    return { rules };
  }

  #rulesOf(store: Store): SearchRule[] {
    const source = store.searchRules ?? '';
    const cached = this.#rules.get(store.id);
    if (cached && cached.source === source) return cached.rules;
    const rules = source === '' ? [] : (JSON.parse(source) as SearchRule[]);
    this.#rules.set(store.id, { source, rules });
    return rules;
  }

  /** Text search (GET /v1/search): a query is required; the page of hits and the total after filters and grouping. */
  /** Drops what the service keeps in memory (a closing process). */
  close() {
    this.#lists.close();
  }

  async search(
    store: Store,
    input: Omit<ListingRequest, 'group'> & { query: string; group?: GroupVariants },
    options: { readYourWrites: boolean },
  ): Promise<{ hits: SearchHit[]; total: number }> {
    if (input.query.trim() === '') throw new InvalidInputError("query parameter 'query' must not be empty", 'query');
    const request: ListingRequest = { group: 'colour', ...input };
    const first = (await this.#plain(store, request)) ? await this.#firstPage(store, request, options) : undefined;
    if (first) return first;
    const answer = await this.listing(store, request, options);
    return { hits: answer.hits, total: answer.total };
  }

  /**
   * Whether a text search is plain enough to be answered from its first hits and a count: no filters,
   * relevance order, no merchandising rule for it, and one product per card in this store (no family
   * with several variants, or no grouping). Everything else lists the whole result.
   */
  async #plain(store: Store, request: ListingRequest): Promise<boolean> {
    if ((typeof request.filters === 'string' ? request.filters.trim() : request.filters) || request.collectionId)
      return false;
    if ((request.sort ?? 'relevance') !== 'relevance') return false;
    if (request.shopperId && (await this.#personal(store, request))) return false;
    const rules = this.#rulesOf(store);
    if (rules.length > 0) {
      const active = activeRules(rules, { query: request.query ?? '', now: new Date() }, BUILT_IN);
      if (active.pins.length + active.hide.size + active.boost.length + active.bury.length > 0) return false;
    }
    if (request.group === 'false') return true;
    const { snapshot } = await this.cards.listing(store);
    return snapshot.grouping(request.group).count === snapshot.liveRows.length;
  }

  async #firstPage(store: Store, request: ListingRequest, options: { readYourWrites: boolean }) {
    const first = await this.#lists.firstHits(store, request.query ?? '', request.offset + request.limit, options);
    if (!first) return undefined;
    const listing = await this.cards.listing(store);
    const hits = first.hits.slice(request.offset).flatMap((hit) => {
      const row = listing.rowOf.get(hit.product_code);
      return row === undefined || !listing.rows.live[row]
        ? []
        : [this.#hitOf(listing, request.group, cardOf(listing, request.group, row, hit.score))];
    });
    return { hits, total: first.total };
  }

  #hitOf(listing: CatalogListing, group: GroupVariants, card: DiscoveryCard): SearchHit {
    const { title, ...fields } = listing.cardOf(card.code)!;
    return {
      product_code: card.code,
      title,
      ...(card.score === undefined ? {} : { score: card.score }),
      ...fields,
      ...(group !== 'false' ? { variant_count: card.variantCount, sizes: card.sizes } : {}),
    };
  }

  /**
   * A listing page (POST /v1/search/query): the query's results, or without words every visible
   * product (a collection's members), filtered, faceted, grouped, sorted, with the store's rules.
   */
  async listing(store: Store, request: ListingRequest, options: { readYourWrites: boolean }): Promise<ListingAnswer> {
    const resolver = vocabularyForStore(store);
    const filters = this.#filtersOf(request.filters, resolver);
    const text = request.query ?? '';
    const browsing = text.trim() === '';
    const list = browsing ? undefined : await this.#lists.resultList(store, text, options);
    const members = request.collectionId
      ? await this.collectionMembers(store, request.collectionId, options)
      : undefined;
    const rules = this.#rulesOf(store);
    const active =
      rules.length === 0
        ? NO_RULES
        : activeRules(rules, { query: text, collectionId: request.collectionId, now: new Date() }, resolver);
    const signals =
      request.sort === 'trending' || request.sort === 'popular' ? await this.signals(store.id) : undefined;
    const personal = list ? await this.#personal(store, request) : undefined;
    // From here on synchronous: the listing is read at one moment.
    const listing = await this.cards.listing(store);
    let candidates: Candidates;
    if (list) {
      const ranked = this.#rankedRows(list, listing);
      if (members) {
        const inCollection = new Set(members.map((code) => listing.rowOf.get(code)));
        const keep = ranked.rows.map((row) => (inCollection.has(row) ? 1 : 0));
        candidates = {
          kind: 'ranked',
          rows: ranked.rows.filter((_, i) => keep[i] === 1),
          scores: ranked.scores.filter((_, i) => keep[i] === 1),
        };
      } else candidates = { kind: 'ranked', ...ranked };
    } else if (members) {
      const rows = members
        .map((code) => listing.rowOf.get(code) ?? -1)
        .filter((row) => row >= 0 && listing.rows.live[row]);
      candidates = { kind: 'browse', rows: Int32Array.from(rows) };
    } else candidates = { kind: 'browse' };
    const result = discover(listing, {
      candidates,
      filters,
      resolver,
      facets: request.facets ?? [],
      facetLimit: request.facetLimit ?? 50,
      sort: this.#sortOf(request, browsing && !members, listing, signals),
      group: request.group,
      offset: request.offset,
      limit: request.limit,
      rules: active,
      personal: personal?.affinity(listing),
    });
    const hits = result.cards.map((card) => this.#hitOf(listing, request.group, card));
    return {
      hits,
      total: result.total,
      facets: result.facets,
      price_range: result.priceRange,
      applied_rules: result.appliedRules,
      corrected_query: list?.correctedQuery ?? null,
      relaxed: list?.relaxed ?? false,
    };
  }

  /**
   * A result list's hits as listing rows (visible ones only), kept with the list while the listing
   * stands: the list's own arrays when every row is live in the listing's numbering, else a copy.
   */
  #rankedRows(list: ResultList, listing: CatalogListing): { rows: Int32Array; scores: Float64Array } {
    const cached = this.#rowsOfLists.get(list.rows);
    if (cached && cached.snapshot.deref() === listing.snapshot) return cached;
    const live = listing.rows.live;
    const sameNumbering = list.numbering === listing.rowOf;
    let { rows, scores } = list;
    if (!sameNumbering || !rows.every((row) => live[row])) {
      rows = new Int32Array(list.rows.length);
      scores = new Float64Array(list.rows.length);
      let n = 0;
      for (let i = 0; i < list.rows.length; i++) {
        const row = sameNumbering ? list.rows[i] : listing.rowOf.get(list.numbering.codes[list.rows[i]]);
        if (row === undefined || !live[row]) continue;
        rows[n] = row;
        scores[n++] = list.scores[i]!;
      }
      rows = rows.slice(0, n);
      scores = scores.slice(0, n);
    }
    const mapped = { snapshot: new WeakRef(listing.snapshot), rows, scores };
    this.#rowsOfLists.set(list.rows, mapped);
    return mapped;
  }

  /** The taste of the shopper a relevance-ordered request names (undefined: nothing to personalise). */
  async #personal(store: Store, request: ListingRequest) {
    if (!request.shopperId || (request.sort ?? 'relevance') !== 'relevance') return undefined;
    return this.tasteOf(store, request.shopperId, await this.cards.listing(store));
  }

  /** Suggestions while typing (GET /v1/search/suggest). */
  async suggest(
    store: Store,
    input: { prefix: string; limit: number },
    options: { readYourWrites: boolean },
  ): Promise<Suggestions> {
    return suggest(this.#lists, this.cards, store, input, options);
  }

  /**
   * The order a listing asks for: without words (nor a collection's order) no relevance, the newest
   * first; trending and popular read each product's shopper signal (0 without events).
   */
  #sortOf(
    request: ListingRequest,
    browsingAll: boolean,
    listing: CatalogListing,
    signals: Awaited<ReturnType<SignalsOf>> | undefined,
  ): DiscoveryQuery['sort'] {
    const sort = request.sort ?? 'relevance';
    if ((sort === 'trending' || sort === 'popular') && signals) {
      // One table per signals read, listing version and sort: the same function object, so the
      // listing engine can keep the whole catalog's order under it.
      let bySnapshot = this.#signalSorts.get(signals);
      if (!bySnapshot) this.#signalSorts.set(signals, (bySnapshot = new WeakMap()));
      let sorts = bySnapshot.get(listing.snapshot);
      if (!sorts) bySnapshot.set(listing.snapshot, (sorts = {}));
      if (!sorts[sort]) {
        const value = new Float64Array(listing.rows.rowCount);
        signals.forEach((signal, code) => {
          const row = listing.rowOf.get(code);
          if (row !== undefined) value[row] = sort === 'trending' ? signal.trend : signal.popular;
        });
        sorts[sort] = { name: sort, signal: (row) => value[row] };
      }
      return sorts[sort];
    }
    // (trending and popular always come with their signals read.)
    if (sort === 'trending' || sort === 'popular' || (browsingAll && sort === 'relevance')) return 'newest';
    return sort;
  }

  /** Filters of a GET parameter (JSON text: 400 / 422 naming `filters`) or a body (422 naming the path). */
  #filtersOf(filters: ListingRequest['filters'], resolver: AudienceResolver): CompiledFilters {
    if (filters === undefined) return [];
    if (typeof filters === 'string') return parseFiltersParam(filters, resolver);
    try {
      return compileFilters(filters, resolver);
    } catch (error) {
      if (error instanceof RuleError) {
        const path = /^(filters(?:\.[^ :]+)?)/.exec(error.message)?.[1] ?? 'filters';
        throw new InvalidInputError(error.message, path);
      }
      throw error;
    }
  }
}
