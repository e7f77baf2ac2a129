import type { StorageHandle } from '../../storage/database.js';
import { InvalidInputError } from '../../errors.js';
import { LiveStoreIndex, type LiveIndex } from '../../storage/live-store-index.js';
import {
  analyzeSynonyms,
  commonWordRelaxations,
  containsPhrase,
  planQuery,
  relaxations,
  withoutConcepts,
  type SynonymGroups,
} from '../../search/query-plan.js';
import type { TextHit, TextIndex } from '../../search/text-index.js';
import { TypoIndex } from '../../search/typo-index.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { Store } from '../stores/store.js';
import type { SearchIndexer } from './search-indexer.js';
import * as repo from './search.repository.js';
import type { StoresService } from '../stores/stores.service.js';
import { parseSynonyms } from './synonyms.js';
import type { ProductCard } from '../../catalog/product-summary.js';
import type { ProductCards } from '../products/product-cards.js';
import { parseFiltersParam } from '../../catalog/filters.js';
import { RANKED_PAGING } from '../../catalog/paging.js';
import { vocabularyForOverrides } from '../../catalog/vocabulary/store-vocabulary.js';

export interface SearchResult {
  product_code: string;
  title: string;
  score: number;
}

/** A text search hit as answered: the ranked result with its card (family, picture, price). */
export type SearchHit = SearchResult & ProductCard;

const NO_CARD: ProductCard = { parent_code: null, image_url: '', price: null, currency: '' };
/** Candidates a filtered query ranks at least (then filters): a page of 20 at any depth fits. */
export const FILTERED_WINDOW = 2000;

/**
 * Score in (0, 1], best first (documented in the OpenAPI description):
 * 1 for an exact product_code / parent_code; otherwise (tier + r / (r + 1)) / 4 with tier 2 for
 * a phrase match in the title (all words in order), 1 for all words anywhere, 0.5 for all words
 * with some matched only by the audience or colour family the catalog vocabulary resolved, 0 for some words,
 * and r the engine's relevance (bm25 / ts_rank with title and category weighted above the rest).
 */
export function shapeScore(tier: number, relevance: number): number {
  const r = Math.max(relevance, 0);
  return Math.max((tier + r / (r + 1)) / 4, 1e-6);
}

/** A store's typo vocabulary (LiveStoreIndex): `seq` is the search index's cursor when it was last read. */
interface VocabularyEntry extends LiveIndex {
  /** The last search_vocab row read (the terms are written in the transaction that moves the cursor). */
  termSeq: number;
  index: TypoIndex;
  terms: number;
}

/** The vocabulary depends on nothing but the store's terms. */
const VOCABULARY_KEY = 'terms';

/** Rough bytes a vocabulary term costs in memory (the term, its deletion neighbourhood, map entries). */
const BYTES_PER_TERM = 600;

export class SearchService {
  /** Per-store typo vocabularies, bounded by memory (least recently used evicted, rebuilt from search_vocab on demand). */
  readonly #vocabularies: LiveStoreIndex<VocabularyEntry>;
  readonly #synonyms = new Map<string, { source: string; groups: SynonymGroups }>();

  private readonly storage: StorageHandle;
  private readonly index: TextIndex;
  private readonly indexer: SearchIndexer;
  private readonly products: ProductsReadPort;
  private readonly stores: StoresService;
  private readonly cards: ProductCards;

  constructor(deps: {
    storage: StorageHandle;
    textIndex: TextIndex;
    indexer: SearchIndexer;
    products: ProductsReadPort;
    stores: StoresService;
    /** Hits' family, picture and price (the products module's live card index). */
    cards: ProductCards;
    /** The memory budget of the typo vocabularies (VITRINE_SEARCH_VOCABULARY_MB). */
    vocabularyBytes: number;
  }) {
    this.storage = deps.storage;
    this.index = deps.textIndex;
    this.indexer = deps.indexer;
    this.products = deps.products;
    this.stores = deps.stores;
    this.cards = deps.cards;
    const options = deps;
    this.#vocabularies = new LiveStoreIndex<VocabularyEntry>({
      name: 'search.vocabulary',
      budgetBytes: options.vocabularyBytes,
      sizeOf: (entry) => 256 + entry.terms * BYTES_PER_TERM,
      build: async (storeId, target) => {
        const entry: VocabularyEntry = { seq: -1, key: VOCABULARY_KEY, termSeq: -1, index: new TypoIndex(), terms: 0 };
        await this.#readTerms(storeId, entry, target.seq);
        return entry;
      },
      follow: async (storeId, entry, target) => {
        await this.#readTerms(storeId, entry, target.seq);
        return true;
      },
    });
  }

  /**
   * The store's vocabulary, extended with the terms indexed since this process last looked. The
   * indexer adds terms in the transaction that moves its cursor, so while the cursor (read before,
   * `cursor`) has not moved there is nothing new to read; without a cursor, the terms are read.
   */
  async #vocabulary(storeId: string, cursor: number | undefined): Promise<TypoIndex> {
    const target = { seq: cursor ?? Number.POSITIVE_INFINITY, key: VOCABULARY_KEY };
    return (await this.#vocabularies.current(storeId, target, undefined)).index;
  }

  /** Adds the terms written since `entry.termSeq`; the entry is then current up to `cursor`. */
  async #readTerms(storeId: string, entry: VocabularyEntry, cursor: number) {
    const rows = await repo.vocabularySince(this.storage.db, storeId, entry.termSeq);
    for (const row of rows) {
      entry.index.add(row.term, Number(row.df));
      if (Number(row.seq) > entry.termSeq) entry.termSeq = Number(row.seq);
    }
    entry.terms += rows.length;
    entry.seq = Number.isFinite(cursor) ? cursor : -1;
  }

  /** Replaces a store's synonym groups (422 naming the rule they break); applied from the next query. */
  async setSynonyms(storeUuid: string, input: unknown): Promise<{ synonyms: string[][] }> {
    const synonyms = parseSynonyms(input);
    await this.stores.saveSynonyms(storeUuid, synonyms);
    return { synonyms };
  }

  #synonymsOf(store: Store): SynonymGroups {
    const source = JSON.stringify(store.synonyms);
    const cached = this.#synonyms.get(store.id);
    if (cached && cached.source === source) return cached.groups;
    const groups = analyzeSynonyms(store.synonyms);
    this.#synonyms.set(store.id, { source, groups });
    return groups;
  }

  /** `readYourWrites`: apply the store's few pending changes to the index first (the route says so). */
  async search(
    store: Store,
    input: { query: string; offset: number; limit: number; filters?: string },
    options: { readYourWrites: boolean },
  ): Promise<SearchHit[]> {
    const accept = input.filters === undefined ? undefined : await this.#filterOf(store, input.filters);
    const page = await this.#rank(store, input, options, accept);
    // The page's cards from memory: a results grid needs no second call per product.
    const cards = await this.cards.cardsOf(
      store,
      page.map((hit) => hit.product_code),
    );
    return page.map((hit) => ({ ...hit, ...(cards.get(hit.product_code) ?? NO_CARD) }));
  }

  /**
   * The catalog's one filter language, Department read with the store's own overrides, as a test of
   * a product code; undefined when the parameter names no condition.
   */
  async #filterOf(store: Store, raw: string): Promise<((code: string) => boolean) | undefined> {
    const resolver = vocabularyForOverrides(store.vocabularyOverrides);
    const filters = parseFiltersParam(raw, resolver);
    return filters.length > 0 ? this.cards.matcher(store, filters, resolver) : undefined;
  }

  /** The page of ranked results: exact codes first, then the text index's hits by shaped score. */
  async #rank(
    store: Store,
    input: { query: string; offset: number; limit: number },
    options: { readYourWrites: boolean },
    accept?: (code: string) => boolean,
  ): Promise<SearchResult[]> {
    const query = input.query.trim();
    if (query === '') throw new InvalidInputError("query parameter 'query' must not be empty", 'query');
    const wanted = input.offset + input.limit;
    // Independent round trips at once (on PostgreSQL each is one): the exact-code lookup reads the
    // products, the vocabulary must follow the index once read-your-writes has brought it up to date.
    const [exact, { vocabulary, indexIsCurrent }] = await Promise.all([
      this.products.visibleByExactCode(store.id, query, wanted),
      this.indexer.follower
        .readYourWritesAt(store, { apply: options.readYourWrites })
        .then(async ({ lag, cursor }) => ({
          vocabulary: await this.#vocabulary(store.id, cursor),
          // Every product write and its change-log entry commit together, and the indexer moves its
          // cursor with what it wrote: no lag means no product was hidden or deleted since it was indexed.
          indexIsCurrent: lag === 0,
        })),
    ]);
    const results = new Map<string, SearchResult>();
    // An exact product or parent code ranks first.
    for (const hit of exact)
      if (!accept || accept(hit.code)) results.set(hit.code, { product_code: hit.code, title: hit.title, score: 1 });

    // A query ending in a space has a finished last word; otherwise the last word may be cut short.
    const wide = planQuery(query, vocabulary, this.#synonymsOf(store), {
      lastWordIsPrefix: !/\s$/.test(input.query),
      concepts: true,
    });
    const plan = withoutConcepts(wide);
    if (plan.clauses.length > 0 && results.size < wanted) {
      // Over-fetch a little: hits re-checked against the catalog may drop out. With filters, a window of
      // candidates wide enough to fill the page after filtering (the ranked window: at most 10,000).
      const fetch = accept ? Math.min(Math.max(wanted * 20, FILTERED_WINDOW), RANKED_PAGING.maxOffset) : wanted + 10;
      const all = await this.index.search(store.id, plan, 'all', fetch);
      const scored: SearchResult[] = [];
      const add = (hit: TextHit, tier: number) => {
        if (accept && !accept(hit.productCode)) return;
        if (results.has(hit.productCode) || scored.some((s) => s.product_code === hit.productCode)) return;
        scored.push({ product_code: hit.productCode, title: hit.title, score: shapeScore(tier, hit.relevance) });
      };
      for (const hit of all) add(hit, containsPhrase(hit.titleTerms.split(' '), plan.tokens) ? 2 : 1);
      // Then every word, some of them only through what the catalog vocabulary resolved ("women" for
      // `Ladieswear`, "green" for `Greenish Khaki`): below the products that say it themselves.
      if (all.length < fetch && wide !== plan)
        for (const hit of await this.index.search(store.id, wide, 'all', fetch)) add(hit, 0.5);
      // Too few products have every word: partial matches, dropping the most common words first.
      for (const relaxed of all.length < fetch ? relaxations(plan, vocabulary) : []) {
        for (const hit of await this.index.search(store.id, relaxed, 'all', fetch)) add(hit, 0);
        if (scored.length >= fetch) break;
      }
      // Still short: the common words together, the rarest dropped first.
      for (const relaxed of scored.length < fetch ? commonWordRelaxations(plan, vocabulary) : []) {
        for (const hit of await this.index.search(store.id, relaxed, 'all', fetch)) add(hit, 0);
        if (scored.length >= fetch) break;
      }
      // Still short (a small catalog): any word at all. Rare on large catalogs, where it would be costly.
      if (scored.length < fetch && plan.clauses.length > 1) {
        for (const hit of await this.index.search(store.id, plan, 'any', fetch)) add(hit, 0);
      }
      for (const hit of indexIsCurrent ? scored : await this.#visible(store.id, scored))
        results.set(hit.product_code, hit);
    }
    return [...results.values()]
      .sort(
        (a, b) => b.score - a.score || (a.product_code < b.product_code ? -1 : a.product_code > b.product_code ? 1 : 0),
      )
      .slice(input.offset, wanted);
  }

  /**
   * Drops hits whose product was deleted or hidden after it was indexed: while the index is behind
   * (a backlog larger than read-your-writes applies inline), it follows within moments.
   */
  async #visible(storeId: string, hits: SearchResult[]): Promise<SearchResult[]> {
    if (hits.length === 0) return hits;
    const visible = await this.products.visibleCodes(
      storeId,
      hits.map((hit) => hit.product_code),
    );
    return hits.filter((hit) => visible.has(hit.product_code));
  }
}
