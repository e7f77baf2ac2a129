import type { Store } from '../stores/store.js';
import type { ProductCards } from '../products/product-cards.js';
import type { ResultLists } from './result-lists.js';
import { discover } from './discovery.js';
import { NO_RULES } from './search-rules.js';
import { BUILT_IN } from '../../catalog/filters.js';

export interface Suggestions {
  queries: Array<{ text: string; hits: number }>;
  products: Array<{ product_code: string; title: string; image_url: string }>;
  categories: Array<{ value: string; count: number }>;
}

/** Typo tolerance starts at the third character typed. */
const FUZZY_FROM = 3;

/**
 * Suggestions for text being typed: completions of its last word from the catalog's own words (most
 * frequent first; from the third character also words one edit away), the best products for the best
 * completion (the text so far when nothing completes it), and the categories whose label has a word starting with what was typed. `hits` of a
 * completion is the number of products carrying the completed word, and for several words the count
 * of its rarest word: at most that many products have them all.
 */
export async function suggest(
  lists: ResultLists,
  cards: ProductCards,
  store: Store,
  input: { prefix: string; limit: number },
  options: { readYourWrites: boolean },
): Promise<Suggestions> {
  // Words and stems in the language the store's index holds ("robes" and "robe" are one suggestion).
  const analyzer = lists.analyzerOf(store);
  const stem = (word: string) => analyzer.stem(word);
  const rawTokens = (text: string) => analyzer.rawTokens(text);
  const words = rawTokens(input.prefix);
  if (words.length === 0) return { queries: [], products: [], categories: [] };
  const last = words[words.length - 1];
  const head = words.slice(0, -1);
  const current = await lists.currentVocabulary(store, options);
  const { vocabulary } = current;

  // Completions, one per stem ("dress" and "dresses" are one suggestion), exact ones before fuzzy ones.
  const completions: string[] = [];
  const stems = new Set<string>();
  const take = (found: string[]) => {
    // A Snowball stem is no word ("rob" beside "robe"): a word of the catalog with that stem is shown instead.
    const words = new Set(found.filter((term) => stem(term) !== term).map(stem));
    const terms = analyzer.language === 'en' ? found : found.filter((term) => stem(term) !== term || !words.has(term));
    for (const term of terms) {
      if (completions.length >= input.limit) return;
      if (/^\d+$/.test(term) || stems.has(stem(term))) continue;
      stems.add(stem(term));
      completions.push(term);
    }
  };
  take(vocabulary.completions(last, input.limit * 4));
  if (completions.length < input.limit && last.length >= FUZZY_FROM)
    take(vocabulary.completions(last, input.limit * 4, true));
  const headCount = Math.min(...head.map((w) => vocabulary.frequency(w) || vocabulary.frequency(stem(w))), Infinity);
  const queries = completions.map((word) => ({
    text: [...head, word].join(' '),
    hits: Math.min(headCount, vocabulary.frequency(word)),
  }));

  // The products of the best completion ("dress" for "dre"): what the shopper is most likely typing, and
  // a finished word is a cheaper query than a prefix (PostgreSQL expands `dre:*` over the index).
  const topCodes = await lists.topHits(store, queries[0]?.text ?? input.prefix, current, input.limit, !queries[0]);
  const listing = await cards.listing(store);
  const products = topCodes
    .flatMap((code) => {
      const card = listing.cardOf(code);
      return card ? [{ product_code: code, title: card.title, image_url: card.image_url }] : [];
    })
    .slice(0, input.limit);
  const categoryCounts = listing.snapshot.memo(
    'suggest:categories',
    () =>
      discover(listing, {
        candidates: { kind: 'browse' },
        filters: [],
        resolver: BUILT_IN,
        facets: ['Category'],
        facetLimit: Number.MAX_SAFE_INTEGER,
        sort: 'relevance',
        group: 'colour',
        offset: 0,
        limit: 0,
        rules: NO_RULES,
      }).facets.Category,
  );
  const categories = categoryCounts
    .filter(({ value }) => rawTokens(value).some((word) => word.startsWith(last)))
    .slice(0, input.limit);
  return { queries, products, categories };
}
