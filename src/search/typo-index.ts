/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, "tsihrt" -> "tshirt"
 * is one edit, as typists make them), with an early exit above `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, beforePrevious[j - 2] + 1);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length];
}

function deletions(word: string, depth: number, into: Set<string>) {
  if (depth === 0) return;
  for (let i = 0; i < word.length; i++) {
    const shorter = word.slice(0, i) + word.slice(i + 1);
    if (!into.has(shorter)) {
      into.add(shorter);
      deletions(shorter, depth - 1, into);
    }
  }
}

/** Files a term under itself and its deletions (two for a word of nine letters or more, else one). */
function addDeletions(byDeletion: Map<string, string[]>, term: string) {
  const keys = new Set<string>([term]);
  deletions(term, term.length >= 9 ? 2 : 1, keys);
  for (const key of keys) {
    const list = byDeletion.get(key);
    if (list) list.push(term);
    else byDeletion.set(key, [term]);
  }
}

/** A known word may still be a typo of a word one edit away that is this many times more common. */
const COMMON_FACTOR = 50;

/**
 * A store's vocabulary with a deletion neighbourhood (SymSpell): typo candidates for a word are
 * found by looking up its deletions, then checked with a real edit distance. Lookups cost
 * microseconds whatever the vocabulary size. The neighbourhood is built with the first word that
 * needs it (a word the store does not know, or one rare enough to be a typo): it is nine tenths of
 * the index's memory (about 970 of 1,070 bytes a term) and of its build (8 ms a store of 2,000
 * products), and a query of known words never reads it.
 */
export class TypoIndex {
  /** term -> document frequency (how many products carry it: likelier meant when typos tie). */
  readonly #terms = new Map<string, number>();
  #byDeletion: Map<string, string[]> | undefined;
  /** The highest document frequency added (never lowered: an upper bound). */
  #maxFrequency = 0;
  /** The terms in code-point order, for completions; rebuilt after an add. */
  #sorted: string[] | undefined;

  /** `onNeighbourhood`: called once the deletion neighbourhood has been built (its owner counts the memory). */
  constructor(private readonly onNeighbourhood?: () => void) {}

  get size(): number {
    return this.#terms.size;
  }

  /** Whether the deletion neighbourhood is built (the index's memory is then about ten times its terms'). */
  get hasNeighbourhood(): boolean {
    return this.#byDeletion !== undefined;
  }

  has(term: string): boolean {
    return this.#terms.has(term);
  }

  /** How many products carry a term (0 when unknown). */
  frequency(term: string): number {
    return this.#terms.get(term) ?? 0;
  }

  add(term: string, documentFrequency = 1) {
    const known = this.#terms.has(term);
    this.#terms.set(term, documentFrequency);
    if (documentFrequency > this.#maxFrequency) this.#maxFrequency = documentFrequency;
    if (known) return;
    this.#sorted = undefined;
    if (this.#byDeletion) addDeletions(this.#byDeletion, term);
  }

  #neighbourhood(): Map<string, string[]> {
    if (this.#byDeletion) return this.#byDeletion;
    const byDeletion = new Map<string, string[]>();
    for (const term of this.#terms.keys()) addDeletions(byDeletion, term);
    this.#byDeletion = byDeletion;
    this.onNeighbourhood?.();
    return byDeletion;
  }

  /**
   * Terms that complete `prefix`, most frequent first. With `fuzzy`, also terms whose beginning is
   * one edit from it (same first letter): "drse" completes to "dress".
   */
  completions(prefix: string, limit: number, fuzzy = false): string[] {
    const sorted = (this.#sorted ??= [...this.#terms.keys()].sort());
    const from = lowerBound(sorted, fuzzy ? prefix[0] : prefix);
    const found: string[] = [];
    for (let i = from; i < sorted.length; i++) {
      const term = sorted[i];
      if (fuzzy ? term[0] !== prefix[0] : !term.startsWith(prefix)) break;
      if (term.length <= prefix.length - (fuzzy ? 1 : 0)) continue;
      if (term.startsWith(prefix)) found.push(term);
      else if (fuzzy) {
        const head = [prefix.length - 1, prefix.length, prefix.length + 1].map((n) => term.slice(0, n));
        if (head.some((h) => editDistance(prefix, h, 1) <= 1)) found.push(term);
      }
    }
    const df = (term: string) => this.#terms.get(term) ?? 0;
    return found.sort((a, b) => df(b) - df(a) || (a < b ? -1 : 1)).slice(0, limit);
  }

  /**
   * Vocabulary terms within `max` edits of any of `forms` (the word as typed and its stem). A known
   * word gets none, unless it is rare and a far more common word is one edit away ("shrt" -> "shirt").
   */
  candidates(forms: string | string[], max: number, limit = 5): string[] {
    const words = [...new Set(Array.isArray(forms) ? forms : [forms])];
    if (max <= 0) return [];
    const df = (term: string) => this.#terms.get(term) ?? 0;
    const knownDf = Math.max(0, ...words.map((w) => (this.#terms.has(w) ? df(w) : 0)));
    const known = words.some((w) => this.#terms.has(w));
    // A known word is corrected only into a word far more common than it: none can be.
    if (known && this.#maxFrequency < knownDf * COMMON_FACTOR) return [];
    const byDeletion = this.#neighbourhood();
    const found = new Map<string, number>();
    for (const word of words) {
      const keys = new Set<string>([word]);
      deletions(word, max, keys);
      for (const key of keys) {
        for (const term of byDeletion.get(key) ?? []) {
          if (words.includes(term)) continue;
          const distance = editDistance(word, term, max);
          if (distance <= max && distance < (found.get(term) ?? Infinity)) found.set(term, distance);
        }
      }
    }
    if (known) {
      for (const [term, distance] of found) if (distance > 1 || df(term) < knownDf * COMMON_FACTOR) found.delete(term);
    }
    const ranked = [...found].sort((a, b) => a[1] - b[1] || df(b[0]) - df(a[0]) || a[0].localeCompare(b[0]));
    if (ranked.length === 0) return [];
    // Rare look-alikes would outrank the meant word through IDF: keep the closest ones that are
    // at least a tenth as common as the best candidate.
    const [best, bestDistance] = ranked[0];
    return ranked
      .filter(([term, distance]) => distance === bestDistance && df(term) * 10 >= df(best))
      .slice(0, limit)
      .map(([term]) => term);
  }
}

/** The first index of `sorted` whose value is not below `value`. */
function lowerBound(sorted: string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid] < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
