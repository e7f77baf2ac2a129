import type { StorageHandle } from '../../storage/database.js';
import { LiveStoreIndex, type LiveIndex } from '../../storage/live-store-index.js';
import { TypoIndex } from '../../search/typo-index.js';
import * as repo from './search.repository.js';

/** A store's typo vocabulary (LiveStoreIndex): `seq` is the search index's cursor when it was last read. */
interface VocabularyEntry extends LiveIndex {
  /** The last search_vocab row read (the terms are written in the transaction that moves the cursor). */
  termSeq: number;
  index: TypoIndex;
  terms: number;
}

/** A store's vocabulary is built for its index's language: a language switch reads it anew. */
const vocabularyKey = (language: string) => `terms:${language}`;
/**
 * Bytes a vocabulary term costs in memory: the term and its map entry, and its deletion neighbourhood
 * once a query needed it (TypoIndex). With the neighbourhood, stores of 500 and 2,000 products measured
 * 1,050-1,130 B a term in one process after a full collection; the neighbourhood alone about 930.
 */
const BYTES_PER_TERM = 120;
const BYTES_PER_TERM_NEIGHBOURHOOD = 980;

/**
 * The stores' typo vocabularies (the terms their search index holds, with document frequencies),
 * kept per process within VITRINE_SEARCH_VOCABULARY_MB and followed from the index's cursor.
 */
export class StoreVocabularies {
  readonly #vocabularies: LiveStoreIndex<VocabularyEntry>;

  constructor(
    private readonly storage: StorageHandle,
    budgetBytes: number,
  ) {
    this.#vocabularies = new LiveStoreIndex<VocabularyEntry>({
      name: 'search.vocabulary',
      budgetBytes,
      sizeOf: (entry) =>
        256 + entry.terms * (BYTES_PER_TERM + (entry.index.hasNeighbourhood ? BYTES_PER_TERM_NEIGHBOURHOOD : 0)),
      build: async (storeId, target) => {
        // Counted again once a query builds its deletion neighbourhood (about nine tenths of its memory).
        const index = new TypoIndex(() => this.#vocabularies.reweigh(storeId, entry));
        const entry: VocabularyEntry = { seq: -1, key: target.key, termSeq: -1, index, terms: 0 };
        await this.#readTerms(storeId, entry, target.seq);
        return entry;
      },
      follow: async (storeId, entry, target) => {
        await this.#readTerms(storeId, entry, target.seq);
        return true;
      },
    });
  }

  /**
   * The store's vocabulary, extended with the terms indexed since this process last looked. The
   * indexer adds terms in the transaction that moves its cursor, so while the cursor has not moved
   * there is nothing new to read; without a cursor, the terms are read.
   */
  async vocabulary(storeId: string, cursor: number | undefined, language = 'en'): Promise<TypoIndex> {
    const target = { seq: cursor ?? Number.POSITIVE_INFINITY, key: vocabularyKey(language) };
    return (await this.#vocabularies.current(storeId, target, undefined)).index;
  }

  close() {
    this.#vocabularies.close();
  }

  async #readTerms(storeId: string, entry: VocabularyEntry, cursor: number) {
    const rows = await repo.vocabularySince(this.storage.db, storeId, entry.termSeq);
    for (const row of rows) {
      entry.index.add(row.term, Number(row.df));
      if (Number(row.seq) > entry.termSeq) entry.termSeq = Number(row.seq);
    }
    entry.terms += rows.length;
    entry.seq = Number.isFinite(cursor) ? cursor : -1;
  }
}
