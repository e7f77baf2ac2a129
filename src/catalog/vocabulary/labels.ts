import { analyzerFor, foldText, stem } from '../../search/analyzer.js';

/**
 * Label folding shared by every vocabulary lookup: accents and case fold, punctuation (`-`, `.`,
 * `'`, `/`, `&`, …) separates words, and each word is reduced to its singular, so that `T-Shirts`,
 * `Tshirts`, `t shirt` and `T-SHIRT` meet. A label is looked up by its words and by its words run
 * together (`t shirt` and `tshirt`).
 */

/** Labels longer than this are cut before folding (a 500-character label is data, not a category). */
export const MAX_LABEL_LENGTH = 120;

/** The folded, singular words of a label ("Flip-Flops" -> ["flip", "flop"]). */
export function labelWords(label: string): string[] {
  return foldText(label.slice(0, MAX_LABEL_LENGTH))
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
    .map(stem);
}

/** The lookup key of a label: its folded singular words run together ("T-Shirts" -> "tshirt"). */
export function labelKey(label: string): string {
  return labelWords(label).join('');
}

/** A label as the report shows it when it must be folded for matching (trimmed, spaces collapsed). */
export function tidyLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ');
}

/** Whether a label carries any word at all (empty, whitespace-only and punctuation-only labels do not). */
export function hasWords(label: string): boolean {
  return labelWords(label).length > 0;
}

/**
 * The alternatives of a label written as several ("Hat/beanie", "Shirts & Tops", "Ties and
 * Cufflinks"): the parts, in order. A label without a separator gives no parts.
 */
export function labelParts(label: string): string[] {
  const parts = label
    .split(/\s*(?:\/|&|\+|,|;|\|)\s*|\s+(?:and|or)\s+/i)
    .map((part) => part.trim())
    .filter((part) => hasWords(part));
  return parts.length > 1 ? parts : [];
}

const KEY_CACHE = 20_000;
const keysByLanguage = new Map<string, Map<string, string>>();

/**
 * A label's words in a catalog language: folded, elisions dropped, each stemmed by that language's
 * stemmer (English: `labelWords`), so `Kleider` meets `Kleid` and `Chaussures` meets `chaussure`.
 */
export function labelWordsIn(label: string, language: string): string[] {
  if (language === 'en') return labelWords(label);
  const analyzer = analyzerFor(language);
  return analyzer.rawTokens(label.slice(0, MAX_LABEL_LENGTH)).map((word) => analyzer.stem(word));
}

/** A label's lookup key in a catalog language (English: `labelKey`). */
export function labelKeyIn(label: string, language: string): string {
  if (language === 'en') return labelKey(label);
  let keys = keysByLanguage.get(language);
  if (!keys) keysByLanguage.set(language, (keys = new Map()));
  let key = keys.get(label);
  if (key === undefined) {
    key = labelWordsIn(label, language).join('');
    if (keys.size >= KEY_CACHE) keys.clear();
    keys.set(label, key);
  }
  return key;
}

/**
 * A label's words in a language, a compound standing for its catalog words when it is not a word of
 * the vocabulary itself (`Sommerkleider` -> `sommer`, `kleid`).
 */
export function labelWordsWithParts(label: string, language: string, known: (word: string) => boolean): string[] {
  if (language === 'en') return labelWords(label);
  const analyzer = analyzerFor(language);
  return analyzer.rawTokens(label.slice(0, MAX_LABEL_LENGTH)).flatMap((word) => {
    const stemmed = analyzer.stem(word);
    if (known(stemmed)) return [stemmed];
    const parts = analyzer.compoundParts(word);
    return parts.length > 0 ? parts : [stemmed];
  });
}
