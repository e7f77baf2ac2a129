import { allowedEdits, analyzerFor, type Analyzer } from './analyzer.js';
import type { TypoIndex } from './typo-index.js';
import { isCatalogWord, queryConceptTokens, queryLanguages } from '../catalog/vocabulary/search-words.js';

/**
 * One way to satisfy a clause: a phrase of stemmed tokens, a prefix, or a concept token the catalog
 * vocabulary resolved for the product (audience, colour family; kept apart from the product's words).
 */
export type Alternative =
  { kind: 'phrase'; tokens: string[] } | { kind: 'prefix'; token: string } | { kind: 'concept'; token: string };

/** A query is an AND of clauses; each clause is an OR of alternatives. */
export interface QueryPlan {
  clauses: Alternative[][];
  tokens: string[];
}

export const MAX_QUERY_TOKENS = 12;
/** Products carrying a word for it to count as a finished word when typed last. */
export const COMMON_WORD = 50;

/** Synonym groups, analyzed: each member a token sequence ("sports shoes" -> ["sport", "shoe"]). */
export type SynonymGroups = string[][][];

export function analyzeSynonyms(groups: string[][], analyzer: Analyzer = analyzerFor('en')): SynonymGroups {
  return groups
    .map((group) => group.map((member) => analyzer.analyze(member)).filter((tokens) => tokens.length > 0))
    .filter((g) => g.length > 1);
}

function startsWithAt(tokens: string[], at: number, member: string[]): boolean {
  return member.every((token, i) => tokens[at + i] === token);
}

/**
 * Builds the match plan: stemmed tokens; synonyms (a member found in the query adds the other
 * members as phrase alternatives); typo candidates from the store's vocabulary; the last word also
 * as a prefix of what was typed.
 */
export function planQuery(
  query: string,
  vocabulary: TypoIndex,
  synonyms: SynonymGroups,
  options: { lastWordIsPrefix?: boolean; concepts?: boolean; analyzer?: Analyzer } = {},
): QueryPlan {
  const analyzer = options.analyzer ?? analyzerFor('en');
  const languages = queryLanguages(analyzer.language);
  const words = analyzer.rawTokens(query);
  // Stop words ("robe de soirée") say nothing about the product, unless the query is nothing else.
  const meaningful = words.filter((word) => !analyzer.isStopWord(word));
  const raw = (meaningful.length > 0 ? meaningful : words).slice(0, MAX_QUERY_TOKENS);
  const stem = (word: string) => analyzer.stem(word);
  const tokens = raw.map(stem);
  const clauses: Alternative[][] = [];
  for (let i = 0; i < tokens.length;) {
    const group = synonyms.find((g) => g.some((member) => startsWithAt(tokens, i, member)));
    if (group) {
      const member = group.filter((m) => startsWithAt(tokens, i, m)).sort((a, b) => b.length - a.length)[0];
      clauses.push(group.map((m) => ({ kind: 'phrase', tokens: m })));
      i += member.length;
      continue;
    }
    const token = tokens[i];
    const alternatives: Alternative[] = [{ kind: 'phrase', tokens: [token] }];
    // Edits allowed by the word as typed ("jeens" has 5 letters though its stem has 4).
    // The vocabulary holds words as written and as stemmed; a candidate is matched by its stem.
    // A word the catalog vocabulary knows (an audience, colour or garment) is meant as written: never
    // corrected into another word of the store.
    const corrections = isCatalogWord(raw[i], languages)
      ? new Set<string>()
      : new Set(vocabulary.candidates([token, raw[i]], allowedEdits(raw[i]), 3).map(stem));
    corrections.delete(token);
    for (const candidate of corrections) alternatives.push({ kind: 'phrase', tokens: [candidate] });
    // A compound also matches its catalog words written apart ("Sommerkleid" finds "Sommer-Kleid").
    const parts = analyzer.compoundParts(raw[i]);
    if (parts.length > 1) alternatives.push({ kind: 'phrase', tokens: parts });
    // The last word may be cut short: match it as typed, as a prefix (at least 2 characters) - unless
    // it is a common word already ("top" is meant as typed, not as "topwear").
    const finished = vocabulary.frequency(token) >= COMMON_WORD || vocabulary.frequency(raw[i]) >= COMMON_WORD;
    // A word naming an audience or a colour family that the store's own words rarely say also matches
    // what the catalog vocabulary resolved ("women" finds `Ladieswear` products, "ladies" finds
    // `Women`). A store that says the word itself is searched by its own words, as without the vocabulary.
    if (options.concepts && !finished)
      for (const concept of queryConceptTokens(raw[i], languages))
        alternatives.push({ kind: 'concept', token: concept });
    if (i === tokens.length - 1 && (options.lastWordIsPrefix ?? true) && raw[i].length >= 2 && !finished)
      alternatives.push({ kind: 'prefix', token: raw[i] });
    clauses.push(alternatives);
    i++;
  }
  return { clauses, tokens };
}

/** The plan on the product's own words only; the same plan when it asks for no concept. */
export function withoutConcepts(plan: QueryPlan): QueryPlan {
  if (!plan.clauses.some((alts) => alts.some((alt) => alt.kind === 'concept'))) return plan;
  return { ...plan, clauses: plan.clauses.map((alts) => alts.filter((alt) => alt.kind !== 'concept')) };
}

/** Whether the stemmed query tokens appear contiguously in a stemmed text (a phrase match). */
export function containsPhrase(text: string[], phrase: string[]): boolean {
  if (phrase.length === 0 || phrase.length > text.length) return false;
  for (let i = 0; i + phrase.length <= text.length; i++) if (startsWithAt(text, i, phrase)) return true;
  return false;
}

/** The clauses' positions by the vocabulary's document frequencies, most common first or rarest first. */
/**
 * About how many products a clause matches, by the vocabulary's document frequencies: the sum over
 * its alternatives. A prefix alternative is estimated by its word as typed: the other alternatives
 * already count the completions meant.
 */
function clauseFrequency(alts: Alternative[], vocabulary: TypoIndex): number {
  return alts.reduce(
    (sum, alt) =>
      sum +
      (alt.kind !== 'phrase'
        ? vocabulary.frequency(alt.token)
        : Math.min(...alt.tokens.map((t) => vocabulary.frequency(t)))),
    0,
  );
}

/** About how many products can match every clause: its least frequent clause's estimate (0 without clauses). */
export function matchEstimate(plan: QueryPlan, vocabulary: TypoIndex): number {
  return plan.clauses.length === 0 ? 0 : Math.min(...plan.clauses.map((alts) => clauseFrequency(alts, vocabulary)));
}

function byFrequency(plan: QueryPlan, vocabulary: TypoIndex, first: 'common' | 'rare'): number[] {
  // Ties drop the earlier word: modifiers ("red") come before the noun ("dress") in product queries.
  return plan.clauses
    .map((alts, index) => ({ index, frequency: clauseFrequency(alts, vocabulary) }))
    .sort((a, b) => (first === 'common' ? b.frequency - a.frequency : a.frequency - b.frequency) || a.index - b.index)
    .map(({ index }) => index);
}

/** Plans that each drop one more clause, in the order given; the last keeps a single clause. */
function dropping(plan: QueryPlan, order: number[]): QueryPlan[] {
  const plans: QueryPlan[] = [];
  const dropped = new Set<number>();
  for (const index of order.slice(0, -1)) {
    dropped.add(index);
    plans.push({ clauses: plan.clauses.filter((_, i) => !dropped.has(i)), tokens: plan.tokens });
  }
  return plans;
}

/**
 * Partial-match plans, each one clause shorter: the most common clause is dropped first ("men
 * yellow casual shoes" -> "yellow casual shoes" -> "yellow shoes"), so the words that say most about
 * the product are kept, and each step stays a selective AND.
 */
export function relaxations(plan: QueryPlan, vocabulary: TypoIndex): QueryPlan[] {
  return dropping(plan, byFrequency(plan, vocabulary, 'common'));
}

/**
 * The partial matches left once the rare words are exhausted: the rarest clause is dropped first
 * ("men mushroom brown casual shoes" -> "men brown casual shoes"). Each step is still an AND, so
 * on a large catalog this fills a page at the cost of the products it ranks, where "any word"
 * would rank every product that has one of the common words (40,000 of 44,000 for that query).
 */
export function commonWordRelaxations(plan: QueryPlan, vocabulary: TypoIndex): QueryPlan[] {
  return dropping(plan, byFrequency(plan, vocabulary, 'rare'));
}
