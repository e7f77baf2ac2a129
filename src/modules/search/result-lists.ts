import type { StorageHandle } from '../../storage/database.js';
import { BoundedCache } from '../../storage/bounded-cache.js';
import { StoreGenerations } from '../../storage/store-generations.js';
import {
  analyzeSynonyms,
  commonWordRelaxations,
  matchEstimate,
  planQuery,
  relaxations,
  withoutConcepts,
  type QueryPlan,
  type SynonymGroups,
} from '../../search/query-plan.js';
import type { MatchMode, SearchOptions, TextHit, TextIndex } from '../../search/text-index.js';
import type { TypoIndex } from '../../search/typo-index.js';
import { StoreVocabularies } from './store-vocabularies.js';
import { analyzerFor, type Analyzer } from '../../search/analyzer.js';
import { RANKED_PAGING } from '../../catalog/paging.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { Store } from '../stores/store.js';
import type { SearchIndexer } from './search-indexer.js';
import { correction } from './query-correction.js';
import { storeRows, type StoreRows } from '../../storage/store-rows.js';
import { byScore, ScoredHits, titleHasPhrase, type SearchResult } from './scored-hits.js';
import { PostingsIndex } from './postings-index.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';

/**
 * Everything a query matches, best first (at most the ranked window): rows of the store's row numbering
 * and their scores, as typed arrays (12 bytes a hit; objects with a code each took about 96), so a
 * store's popular queries stay kept at a million products too.
 */
export interface ResultList {
  /** Rows of `numbering`, best first (equal scores by product_code). */
  rows: Int32Array;
  scores: Float64Array;
  /** The numbering the rows are in, held while the list is used. */
  numbering: StoreRows;
  /** The spelling the catalog supports, when a word of the query is not in it and was read as another. */
  correctedQuery: string | null;
  /** Nothing had every word: the hits are for the query with its least specific words dropped. */
  relaxed: boolean;
}

/** A kept list holds its numbering weakly: a numbering every index of the store has dropped is not kept for it. */
interface KeptList extends Omit<ResultList, 'numbering'> {
  numbering: WeakRef<StoreRows>;
}

/**
 * Bytes one hit of a kept result list holds: its row and its score. The listing reads the same arrays
 * unless some of the rows are no longer live (a copy then, while that listing stands).
 */
const BYTES_PER_HIT = 12;
/**
 * Rough bytes a kept list costs beside its hits: its key, the cache's entry, the list's arrays and the
 * typed arrays of its ranked rows. Counted at 200 before a heap snapshot of the soak showed each list
 * costing two to three times what was counted.
 */
const BYTES_PER_LIST = 700;

/** A hit with every word: tier 2 when its title has them in order (a phrase match), else 1. */
const phraseTier = (plan: QueryPlan) => (hit: TextHit) => (titleHasPhrase(hit, plan.tokens) ? 2 : 1);

/** Products carrying a preview's words above which suggestions rank a spread sample of about sampleSize of them (topHits). */
const PREVIEW_SAMPLE = { sampleFrom: 20_000, sampleSize: 2_000 };

/**
 * A query's whole result list from the store's text index: exact codes, then every product with all
 * the words (phrase in the title first), up to the ranked window; when nothing has every word, the
 * query relaxed. Lists are kept per store while its catalog is unchanged and its index current, so a
 * listing page's next page, facet click or sort costs no query.
 */
export class ResultLists {
  readonly #vocabularies: StoreVocabularies;
  readonly #synonyms = new Map<string, { source: string; groups: SynonymGroups }>();
  readonly #lists: BoundedCache<KeptList> | undefined;
  /** Large stores' ranking in memory (SQLite); undefined where the engine ranks every store. */
  readonly #postings: PostingsIndex | undefined;
  /** Per store: the generation (change sequence, language, synonyms) its kept lists were read at (older ones are dropped). */
  readonly #generations = new StoreGenerations((key) => this.#lists?.delete(key));

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      textIndex: TextIndex;
      indexer: SearchIndexer;
      products: ProductsReadPort;
      vocabularyBytes: number;
      resultBytes: number;
      /** Large stores' in-memory ranking: the log it follows, its budget and the store size from which it ranks. */
      changes: ChangeFeed;
      postingsBytes: number;
      postingsMinProducts: number;
      onError?: WorkerErrorLog;
      /** When suggestions rank a sample of a preview's matches, and about how many (tests set it small). */
      preview?: { sampleFrom: number; sampleSize: number };
    },
  ) {
    // A budget of 0 keeps no list: every query is read from the text index.
    this.#lists =
      deps.resultBytes > 0
        ? new BoundedCache(
            'search.results',
            deps.resultBytes,
            (list, key) => BYTES_PER_LIST + key.length + list.rows.length * BYTES_PER_HIT,
            (key) => this.#generations.forget(key),
          )
        : undefined;
    this.#postings =
      deps.textIndex.documents && deps.postingsBytes > 0
        ? new PostingsIndex({
            documents: deps.textIndex.documents,
            changes: deps.changes,
            budgetBytes: deps.postingsBytes,
            minDocs: deps.postingsMinProducts,
            onError: deps.onError,
          })
        : undefined;
    this.#vocabularies = new StoreVocabularies(deps.storage, deps.vocabularyBytes);
  }

  /** The store's vocabulary as of the search index's `cursor` (StoreVocabularies). */
  vocabulary(storeId: string, cursor: number | undefined, language = 'en'): Promise<TypoIndex> {
    return this.#vocabularies.vocabulary(storeId, cursor, language);
  }

  /** Drops the kept lists and vocabularies (a closing process). */
  close() {
    this.#lists?.close();
    this.#generations.clear();
    this.#vocabularies.close();
    this.#postings?.close();
  }

  /** The text index's hits: from large stores' postings when current at `cursor` (the same bm25), else the engine's. */
  async #textSearch(
    store: Store,
    cursor: number | undefined,
    plan: QueryPlan,
    mode: MatchMode,
    limit: number,
    options: SearchOptions = {},
  ): Promise<TextHit[]> {
    const sampleEvery = Math.max(1, Math.floor(options.sampleEvery ?? 1));
    const ranked = await this.#postings?.search(store, cursor, plan, mode, limit, { ...options, sampleEvery });
    return ranked ?? this.deps.textIndex.search(store.id, plan, mode, limit, options);
  }

  /** The store's vocabulary as of its index (read-your-writes applied first when asked). */
  async currentVocabulary(
    store: Store,
    options: { readYourWrites: boolean },
  ): Promise<{ vocabulary: TypoIndex; cursor: number | undefined }> {
    const { cursor } = await this.deps.indexer.follower.readYourWritesAt(store, { apply: options.readYourWrites });
    return { vocabulary: await this.vocabulary(store.id, cursor, store.indexLanguage), cursor };
  }

  /**
   * The best few products for a text (its last word a prefix unless finished), as cheap as a plain
   * search; `cursor` is the index position the vocabulary was read at.
   */
  async topHits(
    store: Store,
    text: string,
    { vocabulary, cursor }: { vocabulary: TypoIndex; cursor: number | undefined },
    limit: number,
    lastWordIsPrefix: boolean,
  ): Promise<string[]> {
    const plan = withoutConcepts(
      planQuery(text, vocabulary, this.synonymsOf(store), { lastWordIsPrefix, analyzer: this.analyzerOf(store) }),
    );
    if (plan.clauses.length === 0) return [];
    const fetch = limit + 10;
    // A preview needs good products at once, not the very best of 700,000: when the vocabulary says
    // that many carry the words, an evenly spread sample of about 2,000 of them is ranked
    // (1M products, `casual`: 422 ms for every match). A sample too thin to fill it ranks them all.
    const { sampleFrom, sampleSize } = this.deps.preview ?? PREVIEW_SAMPLE;
    const estimate = matchEstimate(plan, vocabulary);
    if (estimate > sampleFrom) {
      const sampleEvery = Math.floor(estimate / sampleSize);
      const sampled = await this.#textSearch(store, cursor, plan, 'all', fetch, { sampleEvery });
      if (sampled.length >= fetch) return sampled.map((hit) => hit.productCode);
    }
    const hits = await this.#textSearch(store, cursor, plan, 'all', fetch);
    return hits.map((hit) => hit.productCode);
  }

  /** Queries are read in the language the store's index holds (the previous one while a switch re-indexes). */
  analyzerOf(store: Store): Analyzer {
    return analyzerFor(store.indexLanguage);
  }

  synonymsOf(store: Store): SynonymGroups {
    const source = `${store.indexLanguage}:${JSON.stringify(store.synonyms)}`;
    const cached = this.#synonyms.get(store.id);
    if (cached && cached.source === source) return cached.groups;
    const groups = analyzeSynonyms(store.synonyms, this.analyzerOf(store));
    this.#synonyms.set(store.id, { source, groups });
    return groups;
  }

  /** `readYourWrites`: apply the store's few pending changes to the index first (the route says so). */
  async resultList(store: Store, text: string, options: { readYourWrites: boolean }): Promise<ResultList> {
    const query = text.trim();
    const generation = `${store.changeSeq}\u0000${store.indexLanguage}\u0000${JSON.stringify(store.synonyms)}`;
    const key = `${store.id}\u0000${text}`;
    if (this.#generations.isCurrent(store.id, generation)) {
      const kept = this.#lists?.get(key);
      // A numbering still held by an index of the store is the one the store's indexes use now.
      const numbering = kept?.numbering.deref();
      if (kept && numbering) return { ...kept, numbering };
    }
    const { list, current } = await this.#compute(store, query, !/\s$/.test(text), options);
    // A list read while the index was behind the catalog is of that moment only.
    if (current && this.#lists && this.#generations.keep(store, generation, key))
      this.#lists.set(key, { ...list, numbering: new WeakRef(list.numbering) });
    return list;
  }

  /**
   * A plain text search's page without listing the whole result: the best `wanted` hits (the engine's
   * best `wanted + 10`, phrase matches first among them, as text search always ranked) and the exact
   * count of products with every word. Undefined when only the whole list can answer: an exact code,
   * an index behind the catalog, or nothing with every word (the query is then relaxed).
   */
  async firstHits(
    store: Store,
    text: string,
    wanted: number,
    options: { readYourWrites: boolean },
  ): Promise<{ hits: SearchResult[]; total: number; correctedQuery: string | null } | undefined> {
    const query = text.trim();
    const [exact, { vocabulary, current, cursor }] = await Promise.all([
      this.deps.products.visibleByExactCode(store.id, query, 1),
      this.#vocabularyAfterWrites(store, options),
    ]);
    if (exact.length > 0 || !current) return undefined;
    const wide = planQuery(query, vocabulary, this.synonymsOf(store), {
      lastWordIsPrefix: !/\s$/.test(text),
      concepts: true,
      analyzer: this.analyzerOf(store),
    });
    const plan = withoutConcepts(wide);
    if (plan.clauses.length === 0) return undefined;
    const fetch = wanted + 10;
    const scored = new ScoredHits();
    const counted = await this.#searchCounted(store, plan, wide, fetch, scored);
    const complete = counted
      ? scored.hits.length < fetch
      : await this.#everyWord(store, cursor, plan, wide, fetch, scored);
    // Fewer than asked for: that is all of them. Otherwise counted (every product with the words
    // themselves also has them with resolved concepts: `wide` counts all).
    const total = complete
      ? scored.hits.length
      : (counted?.total ??
        (wide === plan ? this.#postings?.count(store, cursor, plan) : undefined) ??
        (await this.deps.textIndex.count(store.id, wide)));
    if (total === 0) return undefined;
    const hits = scored.hits.sort(byScore).slice(0, wanted);
    return { hits, total, correctedQuery: correction(query, vocabulary, this.analyzerOf(store)) };
  }

  /**
   * The products with every word, best `limit` of each: phrase matches in the title (tier 2), the
   * words anywhere (tier 1), then, when that was all of them, the words some only through what the
   * catalog vocabulary resolved ("women" for `Ladieswear`, tier 0.5). True when nothing was left out.
   */
  async #everyWord(
    store: Store,
    cursor: number | undefined,
    plan: QueryPlan,
    wide: QueryPlan,
    limit: number,
    scored: ScoredHits,
  ) {
    // Scored and sorted here: the hits may come in any order.
    const all = await this.#textSearch(store, cursor, plan, 'all', limit, { unordered: true });
    scored.addAll(all, phraseTier(plan));
    if (all.length >= limit || wide === plan) return all.length < limit;
    const more = await this.deps.textIndex.search(store.id, wide, 'all', limit);
    scored.addAll(more, () => 0.5);
    return more.length < limit;
  }

  /**
   * `#everyWord` and the count in one read, where the engine ranks every store and can count as it
   * ranks (PostgreSQL) and the query resolved no concept (the count is then of the same matches).
   */
  async #searchCounted(store: Store, plan: QueryPlan, wide: QueryPlan, limit: number, scored: ScoredHits) {
    if (wide !== plan || this.#postings || !this.deps.textIndex.searchCounted) return undefined;
    const { hits, total } = await this.deps.textIndex.searchCounted(store.id, plan, limit);
    scored.addAll(hits, phraseTier(plan));
    return { total };
  }

  /** The vocabulary once read-your-writes brought the index up to date, and whether it is current. */
  async #vocabularyAfterWrites(store: Store, options: { readYourWrites: boolean }) {
    const { lag, cursor } = await this.deps.indexer.follower.readYourWritesAt(store, { apply: options.readYourWrites });
    // Every product write and its change-log entry commit together, and the indexer moves its cursor
    // with what it wrote: no lag means no product was hidden or deleted since it was indexed.
    return { vocabulary: await this.vocabulary(store.id, cursor, store.indexLanguage), current: lag === 0, cursor };
  }

  async #compute(store: Store, query: string, lastWordIsPrefix: boolean, options: { readYourWrites: boolean }) {
    const window = RANKED_PAGING.maxOffset;
    // Independent round trips at once: the exact-code lookup reads the products, the vocabulary must
    // follow the index once read-your-writes has brought it up to date.
    const [exact, { vocabulary, current, cursor }] = await Promise.all([
      this.deps.products.visibleByExactCode(store.id, query, window),
      this.#vocabularyAfterWrites(store, options),
    ]);
    const exactHits: SearchResult[] = exact.map((hit) => ({ product_code: hit.code, score: 1 }));
    const wide = planQuery(query, vocabulary, this.synonymsOf(store), {
      lastWordIsPrefix,
      concepts: true,
      analyzer: this.analyzerOf(store),
    });
    const plan = withoutConcepts(wide);
    let relaxed = false;
    const scored = new ScoredHits(exact.map((hit) => hit.code));
    if (plan.clauses.length > 0) {
      await this.#everyWord(store, cursor, plan, wide, window, scored);
      // Nothing has every word: the query relaxed, its most common (least specific) words dropped first.
      if (scored.hits.length === 0 && exactHits.length === 0) {
        for (const partial of [...relaxations(plan, vocabulary), ...commonWordRelaxations(plan, vocabulary)]) {
          scored.addAll(await this.#textSearch(store, cursor, partial, 'all', window, { unordered: true }), () => 0);
          if (scored.hits.length > 0) break;
        }
        relaxed = scored.hits.length > 0;
      }
    }
    const visible = current ? scored.hits : await this.#visible(store.id, scored.hits);
    // The exact codes were left out of the scored hits: each product is once in the two.
    const hits = (exactHits.length > 0 ? [...exactHits, ...visible] : visible).sort(byScore).slice(0, window);
    const correctedQuery = hits.length > 0 && !relaxed ? correction(query, vocabulary, this.analyzerOf(store)) : null;
    // Rows the postings gave are in the store's numbering, which they hold: the one now. Other hits
    // (exact codes, the engine's answers) are numbered by code.
    const numbering = storeRows(store.id);
    const rows = new Int32Array(hits.length);
    const scores = new Float64Array(hits.length);
    hits.forEach((hit, i) => {
      rows[i] = hit.row ?? numbering.add(hit.product_code);
      scores[i] = hit.score;
    });
    const list: ResultList = { rows, scores, numbering, correctedQuery, relaxed };
    return { list, current };
  }

  /**
   * Drops hits whose product was deleted or hidden after it was indexed: while the index is behind
   * (a backlog larger than read-your-writes applies inline), it follows within moments.
   */
  async #visible(storeId: string, hits: SearchResult[]): Promise<SearchResult[]> {
    if (hits.length === 0) return hits;
    const visible = await this.deps.products.visibleCodes(
      storeId,
      hits.map((hit) => hit.product_code),
    );
    return hits.filter((hit) => visible.has(hit.product_code));
  }
}
