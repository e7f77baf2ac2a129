import { sql } from 'kysely';
import type { Db, StorageHandle } from './database.js';
import { chunked } from './chunks.js';
import { inTransaction } from './transactions.js';

export type ChangeOp = 'created' | 'updated' | 'deleted';
export type ChangeEntity = 'product' | 'asset' | 'collection' | 'image' | 'store';

export interface ChangeEntry {
  /**
   * 'image': a catalogue image finished (or failed) embedding; key = its URL. 'store': a store setting
   * its indexes rebuild for (key `language`: the text index is rebuilt in the new language).
   */
  entity: ChangeEntity;
  key: string;
  op: ChangeOp;
  /** The entity's status after the write (null on delete): readers can tell visibility without a lookup. */
  status: string | null;
  /**
   * The field names the write changed (`Status` among them when the status changed). An empty list
   * marks a change that alters no stored field (a vocabulary override re-reading products): internal
   * followers act on it, the public feed leaves it out.
   */
  fields?: string[];
}

export interface Change extends ChangeEntry {
  seq: number;
  createdAt: string;
}

/** Entries deleted per transaction when pruning. */
const PRUNE_STEP = 20_000;

/**
 * The ordered per-store change log, and the one API every reader of it goes through (followers,
 * in-memory indexes, caches). Sequence numbers come from a counter on the store row, bumped inside
 * the writing transaction: the row lock serialises writers of one store, so sequence numbers
 * become visible in commit order and a reader that resumes after N never misses a change nor sees
 * one twice.
 */
export class ChangeFeed {
  constructor(private readonly storage: StorageHandle) {}

  /** Appends entries in the caller's transaction; returns the last sequence number used. */
  async append(trx: Db, storeId: string, entries: ChangeEntry[]): Promise<number> {
    if (entries.length === 0) return this.latest(storeId, trx);
    const bumped = await trx
      .updateTable('stores')
      .set((eb) => ({ change_seq: eb('change_seq', '+', entries.length) }))
      .where('id', '=', storeId)
      .returning('change_seq')
      .executeTakeFirstOrThrow();
    const last = Number(bumped.change_seq);
    const first = last - entries.length + 1;
    const createdAt = new Date().toISOString();
    const rows = entries.map((entry, i) => ({
      store_id: storeId,
      seq: first + i,
      entity: entry.entity,
      entity_key: entry.key,
      op: entry.op,
      status: entry.status,
      fields: entry.fields ? JSON.stringify(entry.fields) : null,
      created_at: createdAt,
    }));
    for (const chunk of chunked(trx, rows, { paramsPerItem: 8 }))
      await trx.insertInto('change_log').values(chunk).execute();
    return last;
  }

  /** Changes after `afterSeq` (up to `uptoSeq` when given), oldest first. */
  async read(
    storeId: string,
    afterSeq: number,
    options: { limit?: number; uptoSeq?: number; entities?: ChangeEntity[] } = {},
    db: Db = this.storage.db,
  ): Promise<Change[]> {
    let query = db.selectFrom('change_log').selectAll().where('store_id', '=', storeId).where('seq', '>', afterSeq);
    if (options.uptoSeq !== undefined) query = query.where('seq', '<=', options.uptoSeq);
    if (options.entities) query = query.where('entity', 'in', options.entities);
    const rows = await query
      .orderBy('seq')
      .limit(options.limit ?? 1000)
      .execute();
    return rows.map((row) => ({
      seq: Number(row.seq),
      entity: row.entity as ChangeEntity,
      key: row.entity_key,
      op: row.op as ChangeOp,
      status: row.status,
      ...(row.fields !== null && { fields: JSON.parse(row.fields) as string[] }),
      createdAt: row.created_at,
    }));
  }

  /** The latest sequence and the retention floor of a store's log, in one read. */
  async bounds(storeId: string): Promise<{ latest: number; floor: number }> {
    const row = await this.storage.db
      .selectFrom('stores')
      .select(['change_seq', 'change_floor'])
      .where('id', '=', storeId)
      .executeTakeFirst();
    return { latest: Number(row?.change_seq ?? 0), floor: Number(row?.change_floor ?? 0) };
  }

  /** The last sequence pruned from a store's log (0: its whole history is there). */
  async floor(storeId: string, db: Db = this.storage.db): Promise<number> {
    const row = await db.selectFrom('stores').select('change_floor').where('id', '=', storeId).executeTakeFirst();
    return Number(row?.change_floor ?? 0);
  }

  /**
   * Drops a store's entries written before `before` (ISO time), but none that `keepAfter` (the
   * slowest internal follower's cursor) has not read. Sequence and time grow together, so the cut is
   * found by bisecting the sequence range with primary-key lookups. Returns the new floor.
   */
  async prune(storeId: string, before: string, keepAfter: number): Promise<number> {
    const floor = await this.floor(storeId);
    let low = floor;
    let high = Math.min(keepAfter, await this.latest(storeId));
    const createdAt = async (seq: number) =>
      (
        await this.storage.db
          .selectFrom('change_log')
          .select('created_at')
          .where('store_id', '=', storeId)
          .where('seq', '>=', seq)
          .orderBy('seq')
          .limit(1)
          .executeTakeFirst()
      )?.created_at;
    // Invariant: everything up to `low` may go; the entry at `high + 1` (if any) must stay.
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      const at = await createdAt(middle);
      if (at !== undefined && at < before) low = middle;
      else high = middle - 1;
    }
    // In steps, so that a long-neglected log does not hold the writer for one huge delete.
    for (let upto = Math.min(low, floor + PRUNE_STEP); upto > floor; upto = Math.min(low, upto + PRUNE_STEP)) {
      const cut = upto;
      await inTransaction(this.storage, async (trx) => {
        await trx.deleteFrom('change_log').where('store_id', '=', storeId).where('seq', '<=', cut).execute();
        await trx.updateTable('stores').set({ change_floor: cut }).where('id', '=', storeId).execute();
      });
      if (cut === low) break;
    }
    return Math.max(floor, low);
  }

  /**
   * The distinct keys changed per entity in (afterSeq, uptoSeq]: what an in-memory index needs to
   * bring itself up to date (the rows themselves are read from their owners). Undefined when part
   * of the range is no longer retained.
   */
  async changedKeys(
    storeId: string,
    afterSeq: number,
    uptoSeq: number,
    entities: ChangeEntity[],
  ): Promise<Map<ChangeEntity, string[]> | undefined> {
    // Part of that range was pruned (an index left idle longer than the retention): rebuild instead.
    if (afterSeq < (await this.floor(storeId))) return undefined;
    const rows = await this.storage.db
      .selectFrom('change_log')
      .select(['entity', 'entity_key'])
      .distinct()
      .where('store_id', '=', storeId)
      .where('seq', '>', afterSeq)
      .where('seq', '<=', uptoSeq)
      .where('entity', 'in', entities)
      .execute();
    const keys = new Map<ChangeEntity, string[]>(entities.map((entity) => [entity, []]));
    for (const row of rows) keys.get(row.entity as ChangeEntity)?.push(row.entity_key);
    return keys;
  }

  /** The last sequence number of a store (0 before its first write). */
  async latest(storeId: string, db: Db = this.storage.db): Promise<number> {
    const row = await db.selectFrom('stores').select('change_seq').where('id', '=', storeId).executeTakeFirst();
    return Number(row?.change_seq ?? 0);
  }

  /** A store's latest sequence and a consumer's cursor on it, in one read (a search's read-your-writes check). */
  async positionOf(storeId: string, consumer: string): Promise<{ latest: number; cursor: number }> {
    const row = await this.storage.db
      .selectFrom('stores')
      .leftJoin('feed_cursors', (join) =>
        join.onRef('feed_cursors.store_id', '=', 'stores.id').on('feed_cursors.consumer', '=', consumer),
      )
      .select(['stores.change_seq', 'feed_cursors.seq'])
      .where('stores.id', '=', storeId)
      .executeTakeFirst();
    return { latest: Number(row?.change_seq ?? 0), cursor: Number(row?.seq ?? 0) };
  }

  /** Changes written but not yet applied, per consumer, over every store (/metrics). */
  async lagByConsumer(consumers: readonly string[]): Promise<Record<string, number>> {
    // A store a follower has not started on yet (no cursor) is behind by its whole log: right after a
    // start or a bulk load, the gauge shows the work ahead rather than nothing.
    const lags = await Promise.all(
      consumers.map(async (consumer) => {
        const row = await this.storage.db
          .selectFrom('stores as s')
          .leftJoin('feed_cursors as c', (join) =>
            join.onRef('c.store_id', '=', 's.id').on('c.consumer', '=', consumer),
          )
          .select(sql<number>`coalesce(sum(s.change_seq - coalesce(c.seq, 0)), 0)`.as('lag'))
          .executeTakeFirstOrThrow();
        return [consumer, Math.max(0, Number(row.lag))] as const;
      }),
    );
    return Object.fromEntries(lags);
  }

  /** Stores whose log has moved past a consumer's cursor, with their latest sequence and that cursor. */
  async storesBehind(consumer: string): Promise<Map<string, { latest: number; cursor: number }>> {
    const rows = await this.storage.db
      .selectFrom('stores')
      .leftJoin('feed_cursors', (join) =>
        join.onRef('feed_cursors.store_id', '=', 'stores.id').on('feed_cursors.consumer', '=', consumer),
      )
      .select(['stores.id', 'stores.change_seq', 'feed_cursors.seq'])
      .where((eb) => eb('stores.change_seq', '>', eb.fn.coalesce('feed_cursors.seq', eb.lit(0))))
      .execute();
    return new Map(rows.map((row) => [row.id, { latest: Number(row.change_seq), cursor: Number(row.seq ?? 0) }]));
  }
}
