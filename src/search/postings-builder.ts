import type { StoredTextDoc } from './text-index.js';
import type { StoreRows } from '../storage/store-rows.js';
import { weighted } from './posting-terms.js';
import { IntList } from './sorted-postings.js';
import { titleTermIds, TitleSequences } from './title-sequences.js';
import { RankedPostings } from './ranked-postings.js';

/** Collects a store's documents in read order, then packs them (`finish`) into its RankedPostings. */
export class PostingsBuilder {
  readonly #termIds = new Map<string, number>();
  readonly #terms: string[] = [];
  readonly #docTerms = new IntList(1 << 16);
  readonly #docFreqs = new IntList(1 << 16);
  readonly #docStart = new IntList();
  readonly #rowids = new IntList();
  readonly #lengths = new IntList();
  readonly #rows = new IntList();
  readonly #titles = new TitleSequences();

  /** `rows`: the store's row numbering its other in-memory indexes share (a hit names its product by it). */
  constructor(
    private readonly weights: readonly number[],
    private readonly rows: StoreRows,
  ) {
    this.#docStart.push(0);
  }

  add(doc: StoredTextDoc) {
    const { frequencies, length } = weighted(doc.columns, this.weights);
    for (const [term, frequency] of frequencies) {
      let id = this.#termIds.get(term);
      if (id === undefined) {
        id = this.#terms.length;
        this.#terms.push(term);
        this.#termIds.set(term, id);
      }
      this.#docTerms.push(id);
      this.#docFreqs.push(frequency);
    }
    this.#titles.add(titleTermIds(doc, this.#termIds));
    this.#docStart.push(this.#docTerms.length);
    this.#rowids.push(doc.rowid);
    this.#lengths.push(length);
    this.#rows.push(this.rows.add(doc.code));
  }

  /** The packed index: terms sorted (prefixes are ranges), each term's documents in read order. */
  finish(): RankedPostings {
    const order = this.#terms.map((_, id) => id).sort((a, b) => (this.#terms[a] < this.#terms[b] ? -1 : 1));
    const idOf = new Int32Array(order.length);
    order.forEach((old, id) => (idOf[old] = id));
    const start = new Int32Array(order.length + 1);
    const docTerms = this.#docTerms.values;
    for (let i = 0; i < this.#docTerms.length; i++) start[idOf[docTerms[i]] + 1]++;
    for (let t = 0; t < order.length; t++) start[t + 1] += start[t];
    const docs = new Int32Array(this.#docTerms.length);
    // Frequencies are whole (whole column weights): 16 bits hold them unless a word repeats thousands
    // of times in a document (22 MB less than floats at 1M products).
    const narrow = this.#docFreqs.values.subarray(0, this.#docTerms.length).every((f) => f >= 0 && f <= 0xffff);
    const freqs = narrow ? new Uint16Array(this.#docTerms.length) : new Float32Array(this.#docTerms.length);
    const fill = start.slice(0, order.length);
    const docStart = this.#docStart.values;
    for (let doc = 0; doc < this.#rowids.length; doc++) {
      for (let i = docStart[doc]; i < docStart[doc + 1]; i++) {
        const at = fill[idOf[docTerms[i]]]++;
        docs[at] = doc;
        freqs[at] = this.#docFreqs.values[i];
      }
    }
    const n = this.#rowids.length;
    return new RankedPostings(
      this.weights,
      order.map((old) => this.#terms[old]),
      { start, docs, freqs },
      {
        rowids: this.#rowids.values.slice(0, n),
        lengths: this.#lengths.values.slice(0, n),
        rows: this.#rows.values.slice(0, n),
        titles: this.#titles.renumbered(idOf),
        numbering: this.rows,
      },
    );
  }
}
