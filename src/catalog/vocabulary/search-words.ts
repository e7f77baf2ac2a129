import { analyze } from '../../search/analyzer.js';
import { audienceOfWord, audienceSearchWords } from './audiences.js';
import { familyOfWord } from './colours.js';
import { isGarmentLabel, resolveCategoryLabel } from './categories.js';
import type { StoreVocabulary } from './store-vocabulary.js';

/**
 * What the catalog vocabulary adds to text search: a product's document carries the canonical words
 * of its resolved audience and colour family ("women" for `Ladieswear`, "green" for `Greenish
 * Khaki`), in a field of its own, so they match below the product's own words; a query word that
 * names an audience or a family ("ladies", "gray") also asks for that canonical word. The words are
 * marked (`0women`) so they never change the statistics of the product's own words: a query that
 * does not need the vocabulary ranks exactly as it would without it.
 */
const mark = (tokens: string[]) => tokens.map((token) => `0${token}`);

export function conceptWords(
  vocabulary: Pick<StoreVocabulary, 'audience' | 'colour'>,
  labels: { department: string; colour: string },
): string[] {
  const words = audienceSearchWords(vocabulary.audience(labels.department).audience);
  const family = vocabulary.colour(labels.colour).family;
  if (family && family !== 'multi' && family !== 'clear') words.push(family);
  return mark(analyze(words.join(' ')));
}

/**
 * The languages a query's words are read in: the index's language, then English (a French shopper
 * may type "dress"); not every language, so an English word is never read as a foreign one.
 */
export function queryLanguages(language: string): readonly string[] {
  return language === 'en' ? ['en'] : [language, 'en'];
}

/** The canonical (analyzed, marked) tokens a query word also stands for: "ladies" -> ["0women"]. */
export function queryConceptTokens(rawWord: string, languages: readonly string[] = ['en']): string[] {
  const canonical = audienceOfWord(rawWord, languages) ?? familyOfWord(rawWord, languages);
  return canonical ? mark(analyze(canonical)) : [];
}

/**
 * Whether a query word is one the catalog vocabulary knows: an audience ("women", "ladies"), a colour
 * family ("grey") or a garment ("shirt", "tee"). Such a word is meant as written, so text search never
 * corrects it into another word of the store ("women" is not a typo of "woven").
 */
export function isCatalogWord(rawWord: string, languages: readonly string[] = ['en']): boolean {
  if (audienceOfWord(rawWord, languages) !== undefined || familyOfWord(rawWord, languages) !== undefined) return true;
  if (/\s/.test(rawWord.trim())) return false;
  // English as before (a label or its head word); another language's word only as written, never a
  // compound split into one ("ambanduhren", a typo, is no word the vocabulary knows).
  if (languages.includes('en') && resolveCategoryLabel(rawWord, ['en']) !== undefined) return true;
  return languages.some((language) => language !== 'en' && isGarmentLabel(rawWord, language));
}
