import { setImmediate as nextTurn } from 'node:timers/promises';
import { onPrimary } from '../storage/read-routing.js';
import type { Db, StorageHandle } from '../storage/database.js';
import { inTransaction } from '../storage/transactions.js';
import { TableStatistics } from '../storage/table-statistics.js';
import type { StoreAtSeq } from '../storage/seq-cache.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import { PollingWorker, type WorkerErrorLog } from './workers.js';

export interface FollowedChange {
  seq: number;
  entity: string;
  key: string;
}

/** What a follower does with a batch of changes, in the transaction that moves its cursor. */
export type ApplyChanges = (trx: Db, storeId: string, changes: FollowedChange[]) => Promise<void>;

/**
 * Changes applied per transaction: small enough that a request arriving meanwhile does not wait long,
 * at some cost in catch-up speed. On PostgreSQL a request arriving during a large catch-up waited about
 * a third less at 500 than at 2,000 (a whole catalog took about half again as long); 200 cut its wait
 * by another fifth but made the catch-up 16 % longer. SQLite's driver holds the event loop for a whole
 * transaction: after an import of 300,000 products a listing waited 48–52 ms at the median and at most
 * 150–199 ms at 200, against 96–99 and 300–313 at 500, for the same catch-up time (21.5–23.2 s).
 */
const BATCH = { inProcess: 200, roundTrips: 500 } as const;
/** Read-your-writes: a read applies at most this many pending changes of its store inline. */
export const READ_YOUR_WRITES_LIMIT = 500;

/**
 * Follows each store's change log for one consumer (search index, collections, image catalogue)
 * from a cursor kept in feed_cursors and moved in the same transaction as the consumer's writes: a
 * crash or restart resumes exactly where it stopped, re-applying is harmless for idempotent
 * consumers, and the locked cursor row keeps several processes from applying the same changes at
 * once. As a background worker it polls every `intervalMs` for stores whose log moved.
 */
export class ChangeFollower extends PollingWorker {
  #onApplied: (storeId: string, applied: number) => void = () => {};
  /** Per store, a sequence up to which this consumer's cursor is known to have been committed. */
  readonly #applied = new Map<string, number>();
  /** Per store, the read-your-writes catch-up this process is running. */
  readonly #inline = new Map<string, Promise<number>>();

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    /** The cursor's name in feed_cursors (kept stable: renaming it would re-apply the whole log). */
    readonly consumer: string,
    private readonly apply: ApplyChanges,
    options: {
      name: string;
      intervalMs?: number;
      onError?: WorkerErrorLog;
      /** Tables the consumer's writes grow, about a row per change: their statistics are kept fresh. */
      grows?: readonly string[];
    },
  ) {
    super(options.name, options.intervalMs ?? 200, () => this.#catchUpAll(), options.onError);
    if (options.grows?.length)
      this.statistics = new TableStatistics(storage, options.grows, (error) =>
        options.onError?.(`${options.name} statistics`, error),
      );
  }

  /** The planner statistics of the tables this consumer grows (undefined: none named). */
  readonly statistics: TableStatistics | undefined;

  /** Called after changes were applied (e.g. to wake the worker that takes what they queued). */
  onApplied(listener: (storeId: string, applied: number) => void) {
    this.#onApplied = listener;
  }

  /** Locks the consumer's cursor for a store (creating it at 0) and returns its position. */
  async lockCursor(trx: Db, storeId: string): Promise<number> {
    await trx
      .insertInto('feed_cursors')
      .values({ consumer: this.consumer, store_id: storeId, seq: 0 })
      .onConflict((oc) => oc.columns(['consumer', 'store_id']).doNothing())
      .execute();
    const row = await trx.dialect
      .lockRows(
        trx
          .selectFrom('feed_cursors')
          .select('seq')
          .where('consumer', '=', this.consumer)
          .where('store_id', '=', storeId),
      )
      .executeTakeFirstOrThrow();
    return Number(row.seq);
  }

  async moveCursor(trx: Db, storeId: string, seq: number) {
    await trx
      .updateTable('feed_cursors')
      .set({ seq })
      .where('consumer', '=', this.consumer)
      .where('store_id', '=', storeId)
      .execute();
  }

  /** Changes of a store not yet applied by this consumer. */
  async lag(storeId: string): Promise<number> {
    const { latest, cursor } = await this.changes.positionOf(storeId, this.consumer);
    return latest - cursor;
  }

  /** Applies a store's pending changes in batches; returns how many were applied. */
  async catchUp(storeId: string): Promise<number> {
    // An engine called in the process (SQLite) holds the event loop for a whole transaction.
    const batch = this.storage.dialect.roundTripPerStatement ? BATCH.roundTrips : BATCH.inProcess;
    let applied = 0;
    for (;;) {
      const done = await inTransaction(this.storage, async (trx) => {
        const from = await this.lockCursor(trx, storeId);
        const rows = await trx
          .selectFrom('change_log')
          .select(['seq', 'entity', 'entity_key'])
          .where('store_id', '=', storeId)
          .where('seq', '>', from)
          .orderBy('seq')
          .limit(batch)
          .execute();
        if (rows.length === 0) return { count: 0, cursor: from };
        await this.apply(
          trx,
          storeId,
          rows.map((r) => ({ seq: Number(r.seq), entity: r.entity, key: r.entity_key })),
        );
        const cursor = Number(rows[rows.length - 1].seq);
        await this.moveCursor(trx, storeId, cursor);
        return { count: rows.length, cursor };
      });
      this.#sawApplied(storeId, done.cursor);
      this.statistics?.wrote(done.count);
      if (done.count === 0) break;
      applied += done.count;
      if (done.count < batch) break;
      // A turn of the event loop between batches: on SQLite every query resolves at once, and a large
      // import's catch-up (300,000 changes) held every request of the process for 20 s.
      await nextTurn();
    }
    if (applied > 0) this.#onApplied(storeId, applied);
    return applied;
  }

  /**
   * The read-your-writes step of a read (search, collections): when only a few changes are
   * pending, apply them now so the read sees the writes that came before it; a large backlog is
   * left to the background run (the read answers from the index as it stands). Returns the lag
   * that remains.
   */
  async readYourWrites(store: string | StoreAtSeq): Promise<number> {
    return (await this.readYourWritesAt(store)).lag;
  }

  /**
   * readYourWrites, also giving the consumer's cursor as it stands after it (undefined when changes
   * were applied just now: it moved on), for a reader that keeps what the consumer wrote up to there.
   * Given the store as the request read it (with its change sequence), a store this process has seen
   * applied up to that sequence costs no query: cursors only move forward. `apply: false` only
   * reports where the consumer stands (a read that does not ask for its writes).
   */
  async readYourWritesAt(
    store: string | StoreAtSeq,
    options: { apply?: boolean } = {},
  ): Promise<{ lag: number; cursor: number | undefined }> {
    const storeId = typeof store === 'string' ? store : store.id;
    const applied = this.#applied.get(storeId);
    if (typeof store !== 'string' && applied !== undefined && applied >= store.changeSeq)
      return { lag: 0, cursor: applied };
    // Where the consumer stands is the primary's answer (a replica's may be behind what this
    // process already keeps in memory from it).
    const { latest, cursor } = await onPrimary(() => this.changes.positionOf(storeId, this.consumer));
    this.#sawApplied(storeId, cursor);
    const lag = latest - cursor;
    if (lag === 0 || lag > READ_YOUR_WRITES_LIMIT || options.apply === false) return { lag, cursor };
    await this.#catchUpInline(storeId, latest);
    return { lag: 0, cursor: undefined };
  }

  /**
   * One inline catch-up per store at a time in this process: the reads that find changes pending
   * while one runs wait for it, and run the next only if their writes came after it (the cursor
   * below `upTo`). Each read ran its own before, and under a steady stream of writes every read of
   * the store queued on the cursor's lock one by one (16 waiting 0.6 s each in the soak).
   */
  async #catchUpInline(storeId: string, upTo: number): Promise<void> {
    for (;;) {
      const running = this.#inline.get(storeId);
      if (!running) break;
      await running.catch(() => undefined);
      if ((this.#applied.get(storeId) ?? -1) >= upTo) return;
    }
    const run = this.catchUp(storeId).finally(() => {
      if (this.#inline.get(storeId) === run) this.#inline.delete(storeId);
    });
    this.#inline.set(storeId, run);
    await run;
  }

  /** Remembers how far a store's changes are known to be applied (by any process: the committed cursor). */
  #sawApplied(storeId: string, seq: number) {
    if (seq <= (this.#applied.get(storeId) ?? -1)) return;
    if (this.#applied.size >= 100_000) this.#applied.clear();
    this.#applied.set(storeId, seq);
  }

  async #catchUpAll() {
    for (const storeId of (await this.changes.storesBehind(this.consumer)).keys()) await this.catchUp(storeId);
  }
}
