import snowball from 'snowball-stemmers';
import stopwordLists from 'stopword';
import { languageData, type LanguageData } from '../languages/languages.js';

/**
 * Text analysis shared by indexing and querying, so both sides agree on every token: accent and
 * case folding, splitting on anything that is not a letter or digit, and stemming. English keeps a
 * light plural stemmer ("dresses" -> "dress", "shoes" -> "shoe", "accessories" -> "accessory");
 * the other catalog languages get their Snowball stemmer, stop words, elisions (`l'`, `dell'`), the
 * forms the stemmer misses, and compounds split into their catalog words (`Sommerkleid` is also
 * `sommer` + `kleid`).
 */
const COMBINING_MARKS = /\p{M}+/gu;
const TOKEN_SEPARATORS = /[^\p{L}\p{N}]+/u;

/** Letters that carry no combining mark to drop but are typed plainly: `weiss`, `laeder`, `brod`, `noeud`. */
const PLAIN_LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', đ: 'd', ł: 'l', þ: 'th' };
const NOT_PLAIN = /[ßæøœđłþ]/g;

export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(NOT_PLAIN, (letter) => PLAIN_LETTERS[letter]);
}

/** English's light plural stemmer. */
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

/** A catalog language's analysis: the same steps on documents and on queries. */
export interface Analyzer {
  readonly language: string;
  /** Folded words as written, elided articles dropped ("l'écharpe" -> ["echarpe"]). */
  rawTokens(text: string): string[];
  /** A folded word to its stem. */
  stem(rawToken: string): string;
  /** What the index stores for a text: stems, stop words dropped. */
  analyze(text: string): string[];
  /** The catalog words of a text's compounds (`Sommerkleid` -> sommer, kleid), indexed below the text's own words. */
  compoundTerms(text: string): string[];
  /** The stems of the catalog words a compound is made of ([] when it is none). */
  compoundParts(rawToken: string): string[];
  isStopWord(rawToken: string): boolean;
}

const ENGLISH: Analyzer = {
  language: 'en',
  rawTokens,
  stem,
  analyze,
  compoundParts: () => [],
  compoundTerms: () => [],
  isStopWord: () => false,
};

/** Words of a `label, label; …` list, folded. */
function wordsOf(lists: Iterable<string>): string[] {
  return [...lists].flatMap((list) => rawTokens(list.replace(/[’']/g, ' ')));
}

/** Compound heads shorter than this split off only after a long modifier ("strohhut", not "adidas"). */
const SHORT_HEAD = 4;
/** Stems kept per language (a catalog has a bounded vocabulary; a fuzzed one does not). */
const STEM_CACHE = 50_000;

class LanguageAnalyzer implements Analyzer {
  readonly language: string;
  readonly #stemmer: { stem(word: string): string };
  readonly #stops: Set<string>;
  readonly #forms = new Map<string, string>();
  readonly #heads: Set<string>;
  readonly #elision: RegExp | undefined;
  readonly #stems = new Map<string, string>();

  constructor(private readonly data: LanguageData) {
    this.language = data.code;
    this.#stemmer = snowball.newStemmer(data.stemmer);
    const labels = [...Object.values(data.garments), ...Object.values(data.audiences), ...Object.values(data.colours)]
      .flatMap((list) => list.split(','))
      .map((label) => rawTokens(label.replace(/[’']/g, ' ')));
    const catalogWords = new Set(labels.flat());
    // Stop words that are a label by themselves here ("or" is gold in French) are words, not noise.
    const ownWords = new Set([...labels.filter((l) => l.length === 1).flat(), ...wordsOf([data.keep ?? ''])]);
    this.#stops = new Set(wordsOf(stopwordLists[data.stopwords] ?? []).filter((w) => !ownWords.has(w)));
    for (const pair of (data.forms ?? '').split(',')) {
      const [form, word] = pair.trim().split(/\s+/);
      if (form && word) this.#forms.set(foldText(form), foldText(word));
    }
    this.#heads = data.compounds ? new Set([...catalogWords].filter((w) => w.length >= 3)) : new Set();
    const elisions = (data.elisions ?? '').split(/\s+/).filter(Boolean);
    this.#elision =
      elisions.length > 0 ? new RegExp(`(^|[^\\p{L}])(?:${elisions.join('|')})['’](?=\\p{L})`, 'giu') : undefined;
  }

  rawTokens(text: string): string[] {
    return rawTokens(this.#elision ? text.replace(this.#elision, '$1 ') : text);
  }

  stem(rawToken: string): string {
    let stemmed = this.#stems.get(rawToken);
    if (stemmed === undefined) {
      const word = this.#forms.get(rawToken) ?? rawToken;
      stemmed = /\d/.test(word) || word.length <= 2 ? word : foldText(this.#stemmer.stem(word));
      if (this.#stems.size >= STEM_CACHE) this.#stems.clear();
      this.#stems.set(rawToken, stemmed);
    }
    return stemmed;
  }

  isStopWord(rawToken: string): boolean {
    return this.#stops.has(rawToken);
  }

  analyze(text: string): string[] {
    const words = this.rawTokens(text);
    const kept = words.filter((w) => !this.#stops.has(w));
    return (kept.length > 0 ? kept : words).map((word) => this.stem(word));
  }

  compoundTerms(text: string): string[] {
    if (this.#heads.size === 0) return [];
    return this.rawTokens(text).flatMap((word) => this.compoundParts(word));
  }

  compoundParts(rawToken: string): string[] {
    if (this.#heads.size === 0 || rawToken.length < 6 || /\d/.test(rawToken)) return [];
    const words = this.#split(rawToken, 2);
    return words.length > 1 ? words.map((w) => this.stem(w)) : [];
  }

  /** A compound's catalog words: the longest known head at its end, then its modifier (split again). */
  #split(word: string, depth: number): string[] {
    for (let at = 3; at <= word.length - 3; at++) {
      const head = word.slice(at);
      if (!this.#heads.has(head) || (head.length < SHORT_HEAD && at < 4)) continue;
      // A linking "s" between the parts ("Arbeitshose") belongs to neither.
      let modifier = word.slice(0, at);
      if (modifier.length > 4 && modifier.endsWith('s') && !this.#heads.has(modifier)) modifier = modifier.slice(0, -1);
      const front = depth > 1 ? this.#split(modifier, depth - 1) : [];
      return [...(front.length > 1 ? front : [modifier]), head];
    }
    return [word];
  }
}

const ANALYZERS = new Map<string, Analyzer>([['en', ENGLISH]]);

/** The analyzer of a catalog language (English for a tag Vitrine does not know). */
export function analyzerFor(language: string): Analyzer {
  let analyzer = ANALYZERS.get(language);
  if (!analyzer) {
    const data = languageData(language);
    analyzer = data.code === 'en' ? ENGLISH : new LanguageAnalyzer(data);
    ANALYZERS.set(language, analyzer);
  }
  return analyzer;
}
