import type { StorageHandle } from '../../storage/database.js';
import { InvalidInputError } from '../../errors.js';
import { analyzeSynonyms, containsPhrase, planQuery, relaxations, type SynonymGroups } from '../../search/query-plan.js';
import type { TextHit, TextIndex } from '../../search/text-index.js';
import { TypoIndex } from '../../search/typo-index.js';
import { VISIBLE_STATUSES } from '../products/quality-checks.js';
import type { Store } from '../stores/store.js';
import type { SearchIndexer } from './search-indexer.js';

export interface SearchResult { product_code: string; title: string; score: number }

/** Read-your-writes: a query first indexes up to this many pending changes of its store inline. */
const INLINE_CATCH_UP = 500;

/**
 * Score in (0, 1], best first (documented in the OpenAPI description):
 * 1 for an exact product_code / parent_code; otherwise (tier + r / (r + 1)) / 4 with tier 2 for
 * a phrase match in the title (all words in order), 1 for all words anywhere, 0 for some words,
 * and r the engine's relevance (bm25 / ts_rank with title and category weighted above the rest).
 */
export function shapeScore(tier: number, relevance: number): number {
  const r = Math.max(relevance, 0);
  return Math.max((tier + r / (r + 1)) / 4, 1e-6);
}

export class SearchService {
  readonly #vocabularies = new Map<string, { seq: number; index: TypoIndex }>();
  readonly #synonyms = new Map<string, { source: string; groups: SynonymGroups }>();

  constructor(private readonly storage: StorageHandle, private readonly index: TextIndex, private readonly indexer: SearchIndexer) {}

  /** The store's vocabulary, extended with the terms indexed since this process last looked. */
  async #vocabulary(storeId: string): Promise<TypoIndex> {
    let entry = this.#vocabularies.get(storeId);
    if (!entry) { entry = { seq: -1, index: new TypoIndex() }; this.#vocabularies.set(storeId, entry); }
    const rows = await this.storage.db.selectFrom('search_vocab').select(['term', 'df', 'seq'])
      .where('store_id', '=', storeId).where('seq', '>', entry.seq).execute();
    for (const row of rows) {
      entry.index.add(row.term, Number(row.df));
      if (Number(row.seq) > entry.seq) entry.seq = Number(row.seq);
    }
    return entry.index;
  }

  #synonymsOf(store: Store): SynonymGroups {
    const source = JSON.stringify(store.synonyms);
    const cached = this.#synonyms.get(store.id);
    if (cached && cached.source === source) return cached.groups;
    const groups = analyzeSynonyms(store.synonyms);
    this.#synonyms.set(store.id, { source, groups });
    return groups;
  }

  async search(store: Store, input: { query: string; offset: number; limit: number }): Promise<SearchResult[]> {
    const query = input.query.trim();
    if (query === '') throw new InvalidInputError("query parameter 'query' must not be empty", 'query');
    const lag = await this.indexer.lag(store.id);
    if (lag > 0 && lag <= INLINE_CATCH_UP) await this.indexer.catchUp(store.id);

    const wanted = input.offset + input.limit;
    const results = new Map<string, SearchResult>();
    // An exact product or parent code ranks first.
    // Two lookups rather than one OR, so each uses its index.
    const byCode = (column: 'product_code' | 'parent_code') => this.storage.db.selectFrom('products').select(['product_code', 'title'])
      .where('store_id', '=', store.id).where(column, '=', query).where('status', 'in', [...VISIBLE_STATUSES])
      .orderBy('product_code').limit(wanted).execute();
    const exact = [...await byCode('product_code'), ...await byCode('parent_code')];
    for (const row of exact) results.set(row.product_code, { product_code: row.product_code, title: row.title ?? row.product_code, score: 1 });

    // A query ending in a space has a finished last word; otherwise the last word may be cut short.
    const vocabulary = await this.#vocabulary(store.id);
    const plan = planQuery(query, vocabulary, this.#synonymsOf(store), { lastWordIsPrefix: !/\s$/.test(input.query) });
    if (plan.clauses.length > 0 && results.size < wanted) {
      // Over-fetch a little: hits re-checked against the catalog may drop out.
      const fetch = wanted + 10;
      const all = await this.index.search(store.id, plan, 'all', fetch);
      const scored: SearchResult[] = [];
      const add = (hit: TextHit, tier: number) => {
        if (results.has(hit.productCode) || scored.some((s) => s.product_code === hit.productCode)) return;
        scored.push({ product_code: hit.productCode, title: hit.title, score: shapeScore(tier, hit.relevance) });
      };
      for (const hit of all) add(hit, containsPhrase(hit.titleTerms.split(' '), plan.tokens) ? 2 : 1);
      // Too few products have every word: partial matches, dropping the most common words first.
      for (const relaxed of all.length < fetch ? relaxations(plan, vocabulary) : []) {
        for (const hit of await this.index.search(store.id, relaxed, 'all', fetch)) add(hit, 0);
        if (scored.length >= fetch) break;
      }
      // Still short (a small catalog): any word at all. Rare on large catalogs, where it would be costly.
      if (scored.length < fetch && plan.clauses.length > 1) {
        for (const hit of await this.index.search(store.id, plan, 'any', fetch)) add(hit, 0);
      }
      for (const hit of await this.#visible(store.id, scored)) results.set(hit.product_code, hit);
    }
    return [...results.values()]
      .sort((a, b) => b.score - a.score || (a.product_code < b.product_code ? -1 : a.product_code > b.product_code ? 1 : 0))
      .slice(input.offset, wanted);
  }

  /** Drops hits whose product was deleted or hidden after it was indexed (the index follows within a moment). */
  async #visible(storeId: string, hits: SearchResult[]): Promise<SearchResult[]> {
    if (hits.length === 0) return hits;
    const visible = new Set<string>();
    for (let i = 0; i < hits.length; i += 500) {
      const rows = await this.storage.db.selectFrom('products').select('product_code')
        .where('store_id', '=', storeId).where('status', 'in', [...VISIBLE_STATUSES])
        .where('product_code', 'in', hits.slice(i, i + 500).map((h) => h.product_code)).execute();
      for (const row of rows) visible.add(row.product_code);
    }
    return hits.filter((hit) => visible.has(hit.product_code));
  }
}
