import type { StoredTextDoc } from './text-index.js';
import type { StoreRows } from '../storage/store-rows.js';
import { foldedTokens, weighted } from './posting-terms.js';
import { EMPTY_DOCS, grown, intersection, summed, union, type Phrase } from './sorted-postings.js';
import { titleTermIds, type TitleSequences } from './title-sequences.js';
import { kthLargest } from '../storage/kth-largest.js';

/**
 * A store's text index held in memory for ranking: the postings of every term with each document's
 * weighted frequency, scored with exactly FTS5's bm25 (same IDF, document length, average length and
 * column weights), so an answer does not depend on which of the two ranked it. FTS5 computes bm25 for
 * every match, reading each one's size record: 150 ms for a word 220,000 of 1M products carry. Here
 * the same ranking walks typed arrays (bench/scale.bench.ts).
 *
 * Documents are numbered in the order they were added (the build reads them by rowid, PostingsBuilder);
 * following the catalog marks replaced documents dead and appends their new versions, whose postings
 * live in a small tail beside the packed ones until the next build. Each document also keeps its
 * product's store row and its title's words in order, so a hit is answered without reading it back.
 */

/** bm25's parameters as FTS5 fixes them (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

/** One way to satisfy a clause: a word, or every word starting with it. */
export interface PostingsAlternative {
  token: string;
  prefix: boolean;
}

/** A query for the postings: an AND of clauses, each an OR of alternatives (FTS5 phrases, in order). */
export type PostingsQuery = PostingsAlternative[][];

/** A match as search reads it (a TextHit), with its document's rowid in the engine's index. */
export interface RankedHit {
  rowid: number;
  /** bm25 as FTS5 gives it, negated: higher is better. */
  relevance: number;
  /** The product's code, as the store's row numbering holds it: a rowid read back with another code is a stale index. */
  productCode: string;
  /** The product's row in that numbering. */
  row: number;
  /** Whether the title has the asked phrase's words contiguously, in order (search's phrase tier). */
  titlePhrase: boolean;
}

export class RankedPostings {
  /** Terms of the packed postings, sorted; terms first seen since are in `#addedTerms`. */
  readonly #terms: string[];
  readonly #termIds = new Map<string, number>();
  readonly #addedTerms: string[] = [];
  readonly #packed: { start: Int32Array; docs: Int32Array; freqs: Float32Array | Uint16Array };
  /** Postings of the documents appended since the build, by term id. */
  readonly #tail = new Map<number, { docs: number[]; freqs: number[] }>();
  #rowids: Int32Array;
  #lengths: Int32Array;
  /** Each document's product row in the store's numbering. */
  #rows: Int32Array;
  readonly #numbering: StoreRows;
  readonly #titles: TitleSequences;
  #dead: Uint8Array;
  /** Documents numbered so far (live and dead). */
  #count: number;
  /** Open addressing from a product's row to document number + 1. */
  #slots: Int32Array;
  #live: number;
  #tokens = 0;
  /** Documents the build packed. */
  readonly #built: number;
  #tailPostings = 0;

  constructor(
    private readonly weights: readonly number[],
    terms: string[],
    packed: { start: Int32Array; docs: Int32Array; freqs: Float32Array | Uint16Array },
    docs: {
      rowids: Int32Array;
      lengths: Int32Array;
      rows: Int32Array;
      titles: TitleSequences;
      numbering: StoreRows;
    },
  ) {
    this.#terms = terms;
    terms.forEach((term, id) => this.#termIds.set(term, id));
    this.#packed = packed;
    this.#rowids = docs.rowids;
    this.#lengths = docs.lengths;
    this.#rows = docs.rows;
    this.#titles = docs.titles;
    this.#numbering = docs.numbering;
    this.#count = docs.rowids.length;
    this.#built = this.#count;
    this.#live = this.#count;
    this.#dead = new Uint8Array(this.#count);
    for (let doc = 0; doc < this.#count; doc++) this.#tokens += docs.lengths[doc];
    this.#slots = new Int32Array(slotsFor(this.#count));
    for (let doc = 0; doc < this.#count; doc++) this.#place(doc);
  }

  /** Live documents. */
  get size(): number {
    return this.#live;
  }

  /** Documents appended or dropped since the build: past a share of the whole, a build is due. */
  get drift(): number {
    return this.#count - this.#built + (this.#count - this.#live);
  }

  /** Rough bytes held: postings (8 a posting), the per-document arrays, the titles, the terms. */
  get bytes(): number {
    return (
      this.#packed.docs.length * 8 +
      this.#tailPostings * 24 +
      this.#rowids.length * 13 +
      this.#titles.bytes +
      this.#slots.length * 4 +
      (this.#terms.length + this.#addedTerms.length) * 80
    );
  }

  /** The live documents of a product code: what a follow checks by rowid. */
  docsOf(code: string): Array<{ doc: number; rowid: number; code: string }> {
    const row = this.#numbering.get(code);
    const found: Array<{ doc: number; rowid: number; code: string }> = [];
    if (row === undefined) return found;
    const mask = this.#slots.length - 1;
    for (let slot = slotOfRow(row, mask); this.#slots[slot] !== 0; slot = (slot + 1) & mask) {
      const doc = this.#slots[slot] - 1;
      if (this.#rows[doc] === row && !this.#dead[doc]) found.push({ doc, rowid: this.#rowids[doc], code });
    }
    return found;
  }

  drop(doc: number) {
    if (this.#dead[doc]) return;
    this.#dead[doc] = 1;
    this.#live--;
    this.#tokens -= this.#lengths[doc];
  }

  append(posted: StoredTextDoc) {
    const doc = this.#count;
    if (doc === this.#rowids.length || doc === this.#dead.length) this.#grow(Math.max(16, doc * 2));
    const { frequencies, length } = weighted(posted.columns, this.weights);
    for (const [term, frequency] of frequencies) {
      let id = this.#termIds.get(term);
      if (id === undefined) {
        id = this.#terms.length + this.#addedTerms.length;
        this.#addedTerms.push(term);
        this.#termIds.set(term, id);
      }
      let tail = this.#tail.get(id);
      if (!tail) this.#tail.set(id, (tail = { docs: [], freqs: [] }));
      tail.docs.push(doc);
      tail.freqs.push(frequency);
      this.#tailPostings++;
    }
    this.#titles.add(titleTermIds(posted, this.#termIds));
    this.#rowids[doc] = posted.rowid;
    this.#lengths[doc] = length;
    this.#rows[doc] = this.#numbering.add(posted.code);
    this.#count++;
    this.#live++;
    this.#tokens += length;
    if (this.#count * 2 > this.#slots.length) {
      this.#slots = new Int32Array(slotsFor(this.#count));
      for (let d = 0; d < this.#count; d++) this.#place(d);
    } else this.#place(doc);
  }

  /** Documents with every clause, counted. */
  count(query: PostingsQuery): number {
    return this.#matches(
      query.map((clause) => clause.map((alt) => this.#phrase(alt))),
      'all',
    ).length;
  }

  /**
   * The best `limit` matches by bm25 (FTS5's, column weights as built), equal scores at the cut taken in
   * rowid order: what `ORDER BY bm25(...), rowid LIMIT n` keeps; best first, equal scores by code (as
   * the engine's search orders them). `sampleEvery` keeps only rowids divisible by it.
   * `phrase`: the analysed words whose presence in order in each hit's title is told (`titlePhrase`);
   * `unordered`: the same hits in any order (the caller sorts them: 10,000 objects sorted for nothing).
   */
  search(
    query: PostingsQuery,
    mode: 'all' | 'any',
    limit: number,
    {
      sampleEvery = 1,
      phrase = [],
      unordered = false,
    }: { sampleEvery?: number; phrase?: string[]; unordered?: boolean } = {},
  ): RankedHit[] {
    const rowids = this.#rowids;
    // Each alternative is one FTS5 phrase; bm25 sums the phrases in query order.
    const phrases = query.map((clause) => clause.map((alt) => this.#phrase(alt)));
    let matched = this.#matches(phrases, mode);
    if (sampleEvery > 1) matched = matched.filter((doc) => rowids[doc] % sampleEvery === 0);
    const score = this.#scores(phrases.flat(), matched);
    let chosen = matched;
    let chosenScore = score;
    if (matched.length > limit) {
      const cut = kthLargest(score.slice(), limit);
      const kept = new Int32Array(limit);
      const keptScore = new Float64Array(limit);
      let n = 0;
      for (let i = 0; i < matched.length; i++)
        if (score[i] > cut) {
          kept[n] = matched[i];
          keptScore[n++] = score[i];
        }
      // Equal scores at the cut in rowid order, as FTS5's ORDER BY rank, rowid takes them (documents
      // are numbered in rowid order, but for the few appended since the build).
      const at: number[] = [];
      for (let i = 0; i < matched.length; i++) if (score[i] === cut) at.push(matched[i]);
      if (at.some((doc) => doc >= this.#built)) at.sort((x, y) => rowids[x] - rowids[y]);
      for (let i = 0; n < limit; i++) {
        kept[n] = at[i];
        keptScore[n++] = cut;
      }
      chosen = kept;
      chosenScore = keptScore;
    }
    const phraseIds = this.#phraseIds(phrase);
    const codes = this.#numbering.codes;
    const hits = new Array<RankedHit>(chosen.length);
    for (let i = 0; i < chosen.length; i++) {
      const doc = chosen[i];
      hits[i] = {
        rowid: rowids[doc],
        relevance: chosenScore[i],
        productCode: codes[this.#rows[doc]],
        row: this.#rows[doc],
        titlePhrase: phraseIds !== undefined && this.#titles.hasPhrase(doc, phraseIds),
      };
    }
    if (unordered) return hits;
    return hits.sort(
      (x, y) =>
        y.relevance - x.relevance || (x.productCode < y.productCode ? -1 : x.productCode > y.productCode ? 1 : 0),
    );
  }

  /** A phrase's words as term ids, folded as titles are; undefined when some word is in no document (or none is asked). */
  #phraseIds(phrase: string[]): Int32Array | undefined {
    const tokens = phrase.flatMap((word) => foldedTokens(word));
    if (tokens.length === 0) return undefined;
    const ids = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      const id = this.#termIds.get(tokens[i]);
      if (id === undefined) return undefined;
      ids[i] = id;
    }
    return ids;
  }

  /** The documents (ascending) with every clause ('all') or any ('any'). */
  #matches(phrases: Phrase[][], mode: 'all' | 'any'): Int32Array {
    const clauses = phrases.map((alternatives) => alternatives.map((p) => p.docs).reduce(union, EMPTY_DOCS));
    if (mode === 'any') return clauses.reduce(union, EMPTY_DOCS);
    clauses.sort((x, y) => x.length - y.length);
    return clauses.slice(1).reduce(intersection, clauses[0] ?? EMPTY_DOCS);
  }

  /**
   * bm25 of each matched document: for each phrase in order, its IDF (from how many live documents
   * carry it) times FTS5's frequency factor, summed as FTS5 sums them:
   * idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl)).
   */
  #scores(phrases: Phrase[], matched: Int32Array): Float64Array {
    const score = new Float64Array(matched.length);
    const lengths = this.#lengths;
    const avgdl = this.#live > 0 ? this.#tokens / this.#live : 0;
    for (const { docs, freqs } of phrases) {
      const hits = docs.length;
      if (hits === 0) continue;
      let idf = Math.log((this.#live - hits + 0.5) / (hits + 0.5));
      if (idf <= 0) idf = 1e-6;
      // Both ascending: one pass over the two.
      for (let i = 0, j = 0; i < matched.length && j < hits;) {
        const doc = matched[i];
        const other = docs[j];
        if (doc < other) i++;
        else if (doc > other) j++;
        else {
          const f = freqs[j];
          score[i] += idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * lengths[doc]) / avgdl)));
          i++;
          j++;
        }
      }
    }
    return score;
  }

  /** An alternative's live documents (ascending) with its weighted frequency in each (every term a prefix begins, summed). */
  #phrase(alternative: PostingsAlternative): Phrase {
    const lists = this.#termsOf(alternative).map((term) => this.#postings(term));
    while (lists.length > 1) {
      const merged: Phrase[] = [];
      for (let i = 0; i < lists.length; i += 2)
        merged.push(i + 1 < lists.length ? summed(lists[i], lists[i + 1]) : lists[i]);
      lists.splice(0, lists.length, ...merged);
    }
    return lists[0] ?? { docs: EMPTY_DOCS, freqs: new Float32Array(0) };
  }

  /** A term's live postings, ascending: the packed ones, then the tail's (numbered after every packed one). */
  #postings(term: number): Phrase {
    const { start, docs, freqs } = this.#packed;
    const packed =
      term < this.#terms.length
        ? { docs: docs.subarray(start[term], start[term + 1]), freqs: freqs.subarray(start[term], start[term + 1]) }
        : { docs: EMPTY_DOCS, freqs: new Float32Array(0) };
    const tail = this.#tail.get(term);
    if (!tail && this.#live === this.#count) return packed;
    const dead = this.#dead;
    const size = packed.docs.length + (tail?.docs.length ?? 0);
    const live = { docs: new Int32Array(size), freqs: new Float32Array(size) };
    let n = 0;
    const keep = (doc: number, frequency: number) => {
      if (dead[doc] !== 0) return;
      live.docs[n] = doc;
      live.freqs[n++] = frequency;
    };
    for (let i = 0; i < packed.docs.length; i++) keep(packed.docs[i], packed.freqs[i]);
    if (tail) for (let i = 0; i < tail.docs.length; i++) keep(tail.docs[i], tail.freqs[i]);
    return { docs: live.docs.subarray(0, n), freqs: live.freqs.subarray(0, n) };
  }

  /** Term ids an alternative matches: the word itself, or every term it begins. */
  #termsOf(alternative: PostingsAlternative): number[] {
    const [token] = foldedTokens(alternative.token);
    if (token === undefined) return [];
    if (!alternative.prefix) {
      const id = this.#termIds.get(token);
      return id === undefined ? [] : [id];
    }
    const ids: number[] = [];
    let low = 0;
    let high = this.#terms.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#terms[mid] < token) low = mid + 1;
      else high = mid;
    }
    for (let id = low; id < this.#terms.length && this.#terms[id].startsWith(token); id++) ids.push(id);
    this.#addedTerms.forEach((term, i) => {
      if (term.startsWith(token)) ids.push(this.#terms.length + i);
    });
    return ids;
  }

  #place(doc: number) {
    const mask = this.#slots.length - 1;
    let slot = slotOfRow(this.#rows[doc], mask);
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = doc + 1;
  }

  #grow(capacity: number) {
    this.#rowids = grown(this.#rowids, capacity);
    this.#lengths = grown(this.#lengths, capacity);
    this.#rows = grown(this.#rows, capacity);
    this.#dead = grown(this.#dead, capacity);
  }
}

/** Where a product row starts its probe in the code table (`mask`: its size less one): rows spread by a multiplicative hash. */
function slotOfRow(row: number, mask: number): number {
  return Math.imul(row, 0x9e3779b1) & mask;
}

/** A power of two at least twice `n` (the code table stays at most half full). */
function slotsFor(n: number): number {
  let slots = 16;
  while (slots < n * 2) slots *= 2;
  return slots;
}
