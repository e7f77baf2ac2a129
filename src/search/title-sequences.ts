import { IntList } from './sorted-postings.js';
import { foldedTokens } from './posting-terms.js';
import type { StoredTextDoc } from './text-index.js';

/** A document's title (its first column) as the ids of its words, each numbered already with the document's terms. */
export function titleTermIds(doc: StoredTextDoc, termIds: ReadonlyMap<string, number>): number[] {
  return foldedTokens(doc.columns[0] ?? '').map((token) => termIds.get(token)!);
}

/**
 * Each document's title as term ids in order, numbered as RankedPostings numbers its documents: whether
 * a title holds a query's words as a phrase (search's tier 2) is answered here, where it took reading
 * every match's analysed title back from the engine (at 1M products, a quarter of a filtered search).
 */
export class TitleSequences {
  /** Where each document's title begins in `#terms`; one more entry than documents. */
  #starts = new IntList();
  #terms = new IntList(1 << 16);

  constructor() {
    this.#starts.push(0);
  }

  /** The next document's title. */
  add(termIds: readonly number[]) {
    for (const id of termIds) this.#terms.push(id);
    this.#starts.push(this.#terms.length);
  }

  /** The same titles with every term id renumbered (`idOf[old]`), held at their exact size. */
  renumbered(idOf: Int32Array): TitleSequences {
    const next = new TitleSequences();
    next.#starts.values = this.#starts.values.slice(0, this.#starts.length);
    next.#starts.length = this.#starts.length;
    const terms = new Int32Array(this.#terms.length);
    for (let i = 0; i < terms.length; i++) terms[i] = idOf[this.#terms.values[i]];
    next.#terms.values = terms;
    next.#terms.length = terms.length;
    return next;
  }

  /** Whether the document's title has these term ids contiguously, in order. */
  hasPhrase(doc: number, phrase: Int32Array): boolean {
    const terms = this.#terms.values;
    const start = this.#starts.values[doc];
    const last = this.#starts.values[doc + 1] - phrase.length;
    for (let at = start; at <= last; at++) {
      let i = 0;
      while (i < phrase.length && terms[at + i] === phrase[i]) i++;
      if (i === phrase.length) return true;
    }
    return false;
  }

  get bytes(): number {
    return (this.#starts.values.length + this.#terms.values.length) * 4;
  }
}
