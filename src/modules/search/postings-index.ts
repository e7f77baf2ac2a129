import { setImmediate as nextTurn } from 'node:timers/promises';
import { LiveStoreIndex, type LiveIndex } from '../../storage/live-store-index.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';
import type { QueryPlan } from '../../search/query-plan.js';
import type { MatchMode, SearchOptions, TextDocuments, TextHit } from '../../search/text-index.js';
import type { PostingsQuery, RankedPostings } from '../../search/ranked-postings.js';
import { PostingsBuilder } from '../../search/postings-builder.js';
import { storeRows } from '../../storage/store-rows.js';
import type { Store } from '../stores/store.js';

/** A store's in-memory ranking, or (postings undefined) the note that the store is too small for one. */
interface PostingsEntry extends LiveIndex {
  postings?: RankedPostings;
}

/** Documents read per page while building (the event loop serves other requests between pages). */
const BUILD_PAGE = 5_000;
/** A follow with more changed products than this share of the store's documents rebuilds instead. */
const REBUILD_SHARE = 0.1;
/**
 * Hits of an answer read back from the engine (its best, unless it comes in any order), to find out
 * an index renumbered under the same position (`vitrine reindex`). The postings answer the rest
 * themselves: reading every hit's code and title back was a quarter of a filtered search at 1M products.
 */
const CHECKED_HITS = 16;

/**
 * Large stores' text ranking in memory (RankedPostings): FTS5 matches and ranks fast up to some tens
 * of thousands of products; past that, bm25 over every match dominates every broad query. A store with
 * at least `minDocs` documents gets its postings, built in the background on its first query and
 * followed from the change log; until they are current at a request's index position, and for any
 * query they cannot express (phrases of several words, concept clauses), the engine answers.
 */
export class PostingsIndex {
  readonly #index: LiveStoreIndex<PostingsEntry>;

  constructor(
    private readonly deps: {
      documents: TextDocuments;
      changes: ChangeFeed;
      budgetBytes: number;
      minDocs: number;
      onError?: WorkerErrorLog;
    },
  ) {
    this.#index = new LiveStoreIndex<PostingsEntry>({
      name: 'search.postings',
      budgetBytes: deps.budgetBytes,
      sizeOf: (entry) => 128 + (entry.postings?.bytes ?? 0),
      build: (storeId, target) => this.#build(storeId, target.seq, target.key),
      follow: (storeId, entry, target) => this.#follow(storeId, entry, target.seq),
    });
  }

  /**
   * The text hits of the plan from the store's postings when they are current at `cursor` (the
   * search index's position the request reads at); undefined when the engine must answer: the store
   * is small, its postings are being built or brought up to `cursor` (started here, not awaited), or
   * the plan is not one the postings express.
   */
  async search(
    store: Store,
    cursor: number | undefined,
    plan: QueryPlan,
    mode: MatchMode,
    limit: number,
    options: SearchOptions = {},
  ): Promise<TextHit[] | undefined> {
    const query = postingsQuery(plan);
    const postings = query && this.#ready(store, cursor);
    if (!query || !postings) return undefined;
    const ranked = postings.search(query, mode, limit, { ...options, phrase: plan.tokens });
    const checked = ranked.slice(0, CHECKED_HITS);
    const found = await this.deps.documents.codesAt(
      store.id,
      checked.map((hit) => hit.rowid),
    );
    // A rowid now another product's: the index was rebuilt under the same position (`vitrine
    // reindex` numbers documents anew), the postings are built again and the engine answers.
    if (checked.some((hit) => found.has(hit.rowid) && found.get(hit.rowid) !== hit.productCode)) {
      this.#index.invalidate(store.id);
      return undefined;
    }
    if (found.size < checked.length) {
      // Documents replaced since the postings' position (a write after the request's): the engine
      // answers as of now. Most of them gone: rebuilt under the same position, as above.
      if (found.size * 2 < checked.length) this.#index.invalidate(store.id);
      return undefined;
    }
    return ranked;
  }

  /** How many documents have every clause, from the postings when current (as `search`). */
  count(store: Store, cursor: number | undefined, plan: QueryPlan): number | undefined {
    const query = postingsQuery(plan);
    const postings = query && this.#ready(store, cursor);
    return query && postings ? postings.count(query) : undefined;
  }

  close() {
    this.#index.close();
  }

  #ready(store: Store, cursor: number | undefined): RankedPostings | undefined {
    if (this.deps.budgetBytes <= 0 || cursor === undefined) return undefined;
    const target = { seq: cursor, key: store.indexLanguage };
    // Counted as a use: with several large stores over the budget, the least searched is dropped first.
    const entry = this.#index.used(store.id);
    if (entry && entry.key === target.key && entry.seq >= cursor) return entry.postings;
    if (!this.#index.inFlight(store.id))
      this.#index.current(store.id, target).catch((error: unknown) => this.deps.onError?.('search.postings', error));
    return undefined;
  }

  async #build(storeId: string, seq: number, key: string): Promise<PostingsEntry> {
    const { documents } = this.deps;
    if ((await documents.count(storeId)) < this.deps.minDocs) return { seq, key };
    const builder = new PostingsBuilder(documents.weights, storeRows(storeId));
    for (let after = 0; ;) {
      const page = await documents.page(storeId, after, BUILD_PAGE);
      for (const doc of page) builder.add(doc);
      if (page.length < BUILD_PAGE) break;
      after = page[page.length - 1].rowid;
      // SQLite's reads resolve at once: a turn of the event loop lets requests in between pages.
      await nextTurn();
    }
    // Read page by page while the indexer may write: the position is the one asked for before the
    // first page, so the next follow re-checks every product changed meanwhile.
    return { seq, key, postings: builder.finish() };
  }

  /**
   * Applies the products changed since the entry's position: each document of a changed code that the
   * index no longer holds, or holds anew under the same rowid, is dropped, and the code's current
   * document appended. False (a rebuild) past a share of the store, when the log was pruned, or when a
   * rowid now holds another product (the index was renumbered: `vitrine reindex`).
   */
  async #follow(storeId: string, entry: PostingsEntry, latest: number): Promise<boolean> {
    const { postings } = entry;
    if (!postings) {
      if ((await this.deps.documents.count(storeId)) >= this.deps.minDocs) return false;
      entry.seq = latest;
      return true;
    }
    const limit = Math.max(1_000, postings.size * REBUILD_SHARE);
    if (latest - entry.seq > limit * 4) return false;
    const changed = await this.deps.changes.changedKeys(storeId, entry.seq, latest, ['product']);
    const codes = changed?.get('product');
    if (!codes || codes.length > limit || postings.drift > postings.size * REBUILD_SHARE * 2) return false;
    const candidates = codes.flatMap((code) => postings.docsOf(code));
    const [present, current] = await Promise.all([
      this.deps.documents.codesAt(
        storeId,
        candidates.map((c) => c.rowid),
      ),
      this.deps.documents.ofCodes(storeId, codes),
    ]);
    if (candidates.some(({ rowid, code }) => present.has(rowid) && present.get(rowid) !== code)) return false;
    const currentRowids = new Set(current.map((doc) => doc.rowid));
    for (const { doc, rowid } of candidates) if (!present.has(rowid) || currentRowids.has(rowid)) postings.drop(doc);
    for (const doc of current) postings.append(doc);
    entry.seq = latest;
    return true;
  }
}

/** The plan as the postings express it: single words and prefixes only (no phrase of several words, no concept). */
function postingsQuery(plan: QueryPlan): PostingsQuery | undefined {
  const query: PostingsQuery = [];
  for (const alternatives of plan.clauses) {
    const clause = [];
    for (const alternative of alternatives) {
      if (alternative.kind === 'prefix') clause.push({ token: alternative.token, prefix: true });
      else if (alternative.kind === 'phrase' && alternative.tokens.length === 1)
        clause.push({ token: alternative.tokens[0], prefix: false });
      else return undefined;
    }
    query.push(clause);
  }
  return query.length > 0 ? query : undefined;
}
