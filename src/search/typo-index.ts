/** Damerau-free Levenshtein distance with an early exit above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
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

/**
 * A store's vocabulary with a deletion neighbourhood (SymSpell): typo candidates for a word are
 * found by looking up its deletions, then checked with a real edit distance. Lookups cost
 * microseconds whatever the vocabulary size.
 */
export class TypoIndex {
  /** term -> document frequency (how many products carry it: likelier meant when typos tie). */
  readonly #terms = new Map<string, number>();
  readonly #byDeletion = new Map<string, string[]>();

  get size(): number { return this.#terms.size; }

  has(term: string): boolean { return this.#terms.has(term); }

  add(term: string, documentFrequency = 1) {
    const known = this.#terms.has(term);
    this.#terms.set(term, documentFrequency);
    if (known) return;
    const keys = new Set<string>([term]);
    deletions(term, term.length >= 9 ? 2 : 1, keys);
    for (const key of keys) {
      const list = this.#byDeletion.get(key);
      if (list) list.push(term); else this.#byDeletion.set(key, [term]);
    }
  }

  /** Vocabulary terms within `max` edits of `word` (none when the word is known). */
  candidates(word: string, max: number, limit = 5): string[] {
    if (max <= 0 || this.#terms.has(word)) return [];
    const keys = new Set<string>([word]);
    deletions(word, max, keys);
    const found = new Map<string, number>();
    for (const key of keys) {
      for (const term of this.#byDeletion.get(key) ?? []) {
        if (found.has(term)) continue;
        const distance = editDistance(word, term, max);
        if (distance <= max) found.set(term, distance);
      }
    }
    const df = (term: string) => this.#terms.get(term) ?? 0;
    const ranked = [...found].sort((a, b) => a[1] - b[1] || df(b[0]) - df(a[0]) || a[0].localeCompare(b[0]));
    if (ranked.length === 0) return [];
    // Rare look-alikes would outrank the meant word through IDF: keep the closest ones that are
    // at least a tenth as common as the best candidate.
    const [best, bestDistance] = ranked[0];
    return ranked.filter(([term, distance]) => distance === bestDistance && df(term) * 10 >= df(best)).slice(0, limit).map(([term]) => term);
  }
}
