import type { Db, StorageHandle } from '../storage/database.js';
import type { QueryPlan } from './query-plan.js';
import { SqliteTextIndex } from './sqlite-text-index.js';
import { PostgresTextIndex } from './postgres-text-index.js';

/** A product as the text index sees it: analyzed (folded, stemmed) text per weighted field. */
export interface IndexedDoc {
  productCode: string;
  title: string;
  titleTerms: string;
  category: string;
  other: string;
  /** Canonical words the catalog vocabulary resolved (audience, colour family), least weighted. */
  concepts: string;
  /** Folded words as written (not stemmed), for the typo vocabulary only. */
  surfaceTerms: string[];
}

/**
 * A match: its code, its relevance and, for phrase matches, its analyzed title or (where the ranking
 * knew the query's words) whether the title holds them in order (titles for display come from the listing).
 */
export type TextHit = { productCode: string; relevance: number } & (
  | { titleTerms: string }
  /** `row`: the product's row in the store's row numbering of this process (storeRows). */
  | { titlePhrase: boolean; row: number }
);

export type MatchMode = 'all' | 'any';

export interface SearchOptions {
  /**
   * Rank only the documents whose index row number is a multiple of this: an evenly spread sample
   * of a huge match set, for previews that need good matches at once rather than the very best.
   */
  sampleEvery?: number;
  /** The caller orders the hits itself: they may come in any order (the in-memory ranking then skips its sort). */
  unordered?: boolean;
}

/** A document as the index holds it, for a ranking kept in memory beside the engine (SQLite). */
export interface StoredTextDoc {
  rowid: number;
  code: string;
  /** The text of each weighted column, in the order of `weights`. */
  columns: string[];
}

/** Reads of the index's own documents by rowid: what an in-memory ranking is built and followed from. */
export interface TextDocuments {
  /** The engine's column weights (bm25's). */
  readonly weights: readonly number[];
  /** How many documents the store's index holds. */
  count(storeId: string): Promise<number>;
  /** The store's documents after `afterRowid`, by rowid, at most `size`. */
  page(storeId: string, afterRowid: number, size: number): Promise<StoredTextDoc[]>;
  /** The current documents of these product codes. */
  ofCodes(storeId: string, codes: string[]): Promise<StoredTextDoc[]>;
  /** The product code of each of these rowids the store's index still holds. */
  codesAt(storeId: string, rowids: number[]): Promise<Map<number, string>>;
}

/** The engine-specific full-text index (SQLite FTS5 / PostgreSQL tsvector + GIN). */
export interface TextIndex {
  /** Replaces the docs of the given codes and removes `removed`, in the caller's transaction. */
  write(trx: Db, storeId: string, docs: IndexedDoc[], removed: string[]): Promise<void>;
  clearStore(trx: Db, storeId: string): Promise<void>;
  /** Best first; `relevance` is positive, higher is better (engine-specific scale). */
  search(storeId: string, plan: QueryPlan, mode: MatchMode, limit: number, options?: SearchOptions): Promise<TextHit[]>;
  /** How many documents match every clause (what `search(plan, 'all', ∞)` would return, counted). */
  count(storeId: string, plan: QueryPlan): Promise<number>;
  /**
   * `search(plan, 'all', limit)` (in any order) and `count(plan)` in one read, where the engine does
   * both in one pass over the matches (PostgreSQL).
   */
  searchCounted?(storeId: string, plan: QueryPlan, limit: number): Promise<{ hits: TextHit[]; total: number }>;
  /** The index's documents by rowid (SQLite's FTS5), for a ranking kept in memory. */
  readonly documents?: TextDocuments;
  /** After writes were committed: tidies what they left for reads to wade through (PostgreSQL). */
  settle?(): Promise<void>;
}

export function createTextIndex(storage: StorageHandle): TextIndex {
  return storage.dialect.name === 'sqlite' ? new SqliteTextIndex(storage) : new PostgresTextIndex(storage);
}
