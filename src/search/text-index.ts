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

/** A match: its code, its analyzed title (for phrase matches) and relevance (titles for display come from the listing). */
export interface TextHit {
  productCode: string;
  titleTerms: string;
  relevance: number;
}

export type MatchMode = 'all' | 'any';

export interface SearchOptions {
  /**
   * Rank only the documents whose index row number is a multiple of this: an evenly spread sample
   * of a huge match set, for previews that need good matches at once rather than the very best.
   */
  sampleEvery?: number;
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
  /** After writes were committed: tidies what they left for reads to wade through (PostgreSQL). */
  settle?(): Promise<void>;
}

export function createTextIndex(storage: StorageHandle): TextIndex {
  return storage.dialect.name === 'sqlite' ? new SqliteTextIndex(storage) : new PostgresTextIndex(storage);
}
