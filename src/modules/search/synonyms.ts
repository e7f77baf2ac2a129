import { InvalidInputError } from '../../errors.js';
import { formatLimit, MAX_SYNONYM_GROUPS, MAX_SYNONYM_TERM_LENGTH, MIN_SYNONYM_TERMS } from '../../catalog/limits.js';

/**
 * A store's synonym groups as an operator gives them (`{"synonyms": [["tee", "t-shirt"], …]}`),
 * checked (422 naming the rule) and tidied: terms trimmed, repeats within a group dropped.
 */
export function parseSynonyms(input: unknown): string[][] {
  const groups = (input as { synonyms?: unknown } | null)?.synonyms;
  if (
    !Array.isArray(groups) ||
    groups.some(
      (g) =>
        !Array.isArray(g) ||
        g.length < MIN_SYNONYM_TERMS ||
        g.some((t) => typeof t !== 'string' || t.trim() === '' || t.length > MAX_SYNONYM_TERM_LENGTH),
    )
  ) {
    throw new InvalidInputError(
      `synonyms must be an array of groups, each an array of at least ${MIN_SYNONYM_TERMS} non-empty terms (at most ${MAX_SYNONYM_TERM_LENGTH} characters)`,
      'synonyms',
    );
  }
  if (groups.length > MAX_SYNONYM_GROUPS)
    throw new InvalidInputError(`at most ${formatLimit(MAX_SYNONYM_GROUPS)} synonym groups`, 'synonyms');
  return (groups as string[][]).map((g) => [...new Set(g.map((t) => t.trim()))]);
}
