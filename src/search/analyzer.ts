/**
 * Text analysis shared by indexing and querying, so both sides agree on every token: accent and
 * case folding, splitting on anything that is not a letter or digit, and a light English plural
 * stemmer ("dresses" -> "dress", "shoes" -> "shoe", "watches" -> "watch", "accessories" -> "accessory").
 */
const COMBINING_MARKS = /\p{M}+/gu;
const TOKEN_SEPARATORS = /[^\p{L}\p{N}]+/u;

export function foldText(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
}

export function stem(token: string): string {
  if (token.length <= 3 || /\d/.test(token)) return token;
  if (token.endsWith('sses')) return token.slice(0, -2);
  if (/(ches|shes|xes|zzes)$/.test(token)) return token.slice(0, -2);
  if (token.endsWith('ies') && token.length > 4) return `${token.slice(0, -3)}y`;
  if (token.endsWith('s') && !/(ss|us|is)$/.test(token)) return token.slice(0, -1);
  return token;
}

/** Folded tokens of a text, unstemmed (the last query word is also matched as a prefix of this form). */
export function rawTokens(text: string): string[] {
  return foldText(text)
    .split(TOKEN_SEPARATORS)
    .filter((t) => t.length > 0);
}

export function analyze(text: string): string[] {
  return rawTokens(text).map(stem);
}

/** Numbers and codes are never typo-corrected. */
export function isFuzzyEligible(token: string): boolean {
  return !/\d/.test(token) && token.length >= 5;
}

/** Edits allowed for a word (CONTRACT/issue: one edit from 5 letters, two from 9). */
export function allowedEdits(token: string): number {
  if (!isFuzzyEligible(token)) return 0;
  return token.length >= 9 ? 2 : 1;
}
