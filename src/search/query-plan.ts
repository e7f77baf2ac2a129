import { allowedEdits, analyze, rawTokens, stem } from './analyzer.js';
import type { TypoIndex } from './typo-index.js';

/** One way to satisfy a clause: a phrase of stemmed tokens, or a prefix. */
export type Alternative = { kind: 'phrase'; tokens: string[] } | { kind: 'prefix'; token: string };

/** A query is an AND of clauses; each clause is an OR of alternatives. */
export interface QueryPlan { clauses: Alternative[][]; tokens: string[] }

export const MAX_QUERY_TOKENS = 12;

/** Synonym groups, analyzed: each member a token sequence ("sports shoes" -> ["sport", "shoe"]). */
export type SynonymGroups = string[][][];

export function analyzeSynonyms(groups: string[][]): SynonymGroups {
  return groups.map((group) => group.map((member) => analyze(member)).filter((tokens) => tokens.length > 0)).filter((g) => g.length > 1);
}

function startsWithAt(tokens: string[], at: number, member: string[]): boolean {
  return member.every((token, i) => tokens[at + i] === token);
}

/**
 * Builds the match plan: stemmed tokens; synonyms (a member found in the query adds the other
 * members as phrase alternatives); typo candidates from the store's vocabulary; the last word also
 * as a prefix of what was typed.
 */
export function planQuery(query: string, vocabulary: TypoIndex, synonyms: SynonymGroups, options: { lastWordIsPrefix?: boolean } = {}): QueryPlan {
  const raw = rawTokens(query).slice(0, MAX_QUERY_TOKENS);
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
    for (const candidate of vocabulary.candidates(token, allowedEdits(raw[i]), 3)) alternatives.push({ kind: 'phrase', tokens: [candidate] });
    // The last word may be cut short: match it as typed, as a prefix (at least 2 characters).
    if (i === tokens.length - 1 && (options.lastWordIsPrefix ?? true) && raw[i].length >= 2) alternatives.push({ kind: 'prefix', token: raw[i] });
    clauses.push(alternatives);
    i++;
  }
  return { clauses, tokens };
}

/** Whether the stemmed query tokens appear contiguously in a stemmed text (a phrase match). */
export function containsPhrase(text: string[], phrase: string[]): boolean {
  if (phrase.length === 0 || phrase.length > text.length) return false;
  for (let i = 0; i + phrase.length <= text.length; i++) if (startsWithAt(text, i, phrase)) return true;
  return false;
}
