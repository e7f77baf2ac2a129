import { containsPhrase } from '../../search/query-plan.js';
import type { TextHit } from '../../search/text-index.js';

export interface SearchResult {
  product_code: string;
  score: number;
  /** The product's row in the store's row numbering (storeRows) when the ranking knew it. */
  row?: number;
}

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

/** Text hits scored once each: a product keeps the first (best) tier it was found in. */
export class ScoredHits {
  readonly hits: SearchResult[] = [];
  /** Codes scored so far; undefined while `hits` holds one engine answer only (which names a product once). */
  #seen: Set<string> | undefined;

  constructor(already: Iterable<string> = []) {
    const seen = new Set(already);
    if (seen.size > 0) this.#seen = seen;
  }

  /** Scores one answer of the engine, each hit at its tier, but the products already scored. */
  addAll(answer: readonly TextHit[], tierOf: (hit: TextHit) => number) {
    // The first answer needs no set: 10,000 codes hashed for nothing at 1M products.
    if (this.#seen === undefined && this.hits.length > 0)
      this.#seen = new Set(this.hits.map((hit) => hit.product_code));
    const seen = this.#seen;
    for (const hit of answer) {
      if (seen) {
        if (seen.has(hit.productCode)) continue;
        seen.add(hit.productCode);
      }
      const score = shapeScore(tierOf(hit), hit.relevance);
      this.hits.push(
        'row' in hit
          ? { product_code: hit.productCode, score, row: hit.row }
          : { product_code: hit.productCode, score },
      );
    }
  }
}

/** Whether the hit's title has the query's words in order: as its ranking told, else from its analysed title. */
export function titleHasPhrase(hit: TextHit, tokens: string[]): boolean {
  return 'titlePhrase' in hit ? hit.titlePhrase : containsPhrase(hit.titleTerms.split(' '), tokens);
}

/** Best first; equal scores by product_code. */
export const byScore = (a: SearchResult, b: SearchResult) =>
  b.score - a.score || (a.product_code < b.product_code ? -1 : a.product_code > b.product_code ? 1 : 0);
