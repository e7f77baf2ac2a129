import type { Executor, StorageHandle } from '../storage/database.js';
import { inTransaction } from '../storage/transactions.js';
import type { ChangeFeed } from './change-feed.js';

export interface FollowedChange { seq: number; entity: string; key: string }

/** What a follower does with a batch of changes, in the transaction that moves its cursor. */
export type ApplyChanges = (trx: Executor, storeId: string, changes: FollowedChange[]) => Promise<void>;

const BATCH = 2000;

/**
 * Follows each store's change log for one consumer (search index, collections, …) from a cursor
 * kept in feed_cursors and moved in the same transaction as the consumer's writes: a crash or restart
 * resumes exactly where it stopped, re-applying is harmless for idempotent consumers, and the locked
 * cursor row keeps several processes from applying the same changes at once.
 */
export class ChangeFollower {
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly consumer: string,
    private readonly apply: ApplyChanges,
  ) {}

  /** Locks the consumer's cursor for a store (creating it at 0) and returns its position. */
  async lockCursor(trx: Executor, storeId: string): Promise<number> {
    await trx.insertInto('feed_cursors').values({ consumer: this.consumer, store_id: storeId, seq: 0 })
      .onConflict((oc) => oc.columns(['consumer', 'store_id']).doNothing()).execute();
    const row = await this.storage.dialect.lockRows(
      trx.selectFrom('feed_cursors').select('seq').where('consumer', '=', this.consumer).where('store_id', '=', storeId),
    ).executeTakeFirstOrThrow();
    return Number(row.seq);
  }

  async moveCursor(trx: Executor, storeId: string, seq: number) {
    await trx.updateTable('feed_cursors').set({ seq }).where('consumer', '=', this.consumer).where('store_id', '=', storeId).execute();
  }

  /** Changes of a store not yet applied by this consumer. */
  async lag(storeId: string): Promise<number> {
    const [latest, cursor] = await Promise.all([
      this.changes.latest(this.storage.db, storeId),
      this.storage.db.selectFrom('feed_cursors').select('seq').where('consumer', '=', this.consumer).where('store_id', '=', storeId).executeTakeFirst(),
    ]);
    return latest - Number(cursor?.seq ?? 0);
  }

  /** Applies a store's pending changes in batches; returns how many were applied. */
  async catchUp(storeId: string): Promise<number> {
    let applied = 0;
    for (;;) {
      const done = await inTransaction(this.storage, async (trx) => {
        const from = await this.lockCursor(trx, storeId);
        const rows = await trx.selectFrom('change_log').select(['seq', 'entity', 'entity_key'])
          .where('store_id', '=', storeId).where('seq', '>', from).orderBy('seq').limit(BATCH).execute();
        if (rows.length === 0) return 0;
        await this.apply(trx, storeId, rows.map((r) => ({ seq: Number(r.seq), entity: r.entity, key: r.entity_key })));
        await this.moveCursor(trx, storeId, Number(rows[rows.length - 1].seq));
        return rows.length;
      });
      applied += done;
      if (done < BATCH) return applied;
    }
  }

  /** Every `intervalMs`, catches up the stores whose change log moved past this consumer's cursor. */
  start(intervalMs: number, onError: (error: unknown) => void = () => {}) {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#running) return;
      this.#running = true;
      this.#tick().catch(onError).finally(() => { this.#running = false; });
    }, intervalMs);
    this.#timer.unref();
  }

  async #tick() {
    const behind = await this.storage.db.selectFrom('stores')
      .leftJoin('feed_cursors', (join) => join.onRef('feed_cursors.store_id', '=', 'stores.id').on('feed_cursors.consumer', '=', this.consumer))
      .select('stores.id').where((eb) => eb('stores.change_seq', '>', eb.fn.coalesce('feed_cursors.seq', eb.lit(0)))).execute();
    for (const { id } of behind) await this.catchUp(id);
  }

  async stop() {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    while (this.#running) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
