import type { TypoIndex } from '../../search/typo-index.js';
import { allowedEdits, analyzerFor, type Analyzer } from '../../search/analyzer.js';
import { isCatalogWord, queryLanguages } from '../../catalog/vocabulary/search-words.js';

/**
 * The query as the catalog spells it: each word the store's words do not hold (nor its vocabulary
 * know) replaced by its most frequent typo candidate; null when no word was replaced.
 */
export function correction(
  query: string,
  vocabulary: TypoIndex,
  analyzer: Analyzer = analyzerFor('en'),
): string | null {
  const words = analyzer.rawTokens(query);
  const languages = queryLanguages(analyzer.language);
  const stem = (word: string) => analyzer.stem(word);
  let changed = false;
  const spelled = words.map((word) => {
    if (
      vocabulary.has(word) ||
      vocabulary.has(stem(word)) ||
      analyzer.isStopWord(word) ||
      isCatalogWord(word, languages) ||
      allowedEdits(word) === 0
    )
      return word;
    const candidates = vocabulary
      .candidates([stem(word), word], allowedEdits(word), 3)
      .sort((a, b) => vocabulary.frequency(b) - vocabulary.frequency(a));
    if (candidates.length === 0) return word;
    changed = true;
    // The vocabulary holds stems beside words; a Snowball stem is no word ("chaussur"): say a word of
    // the catalog that has it. (English stems are words: "dress".)
    if (analyzer.language === 'en') return candidates[0];
    const target = stem(candidates[0]);
    return candidates.find((c) => c !== target && stem(c) === target) ?? candidates[0];
  });
  return changed ? spelled.join(' ') : null;
}
