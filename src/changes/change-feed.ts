import type { Executor, StorageHandle } from '../storage/database.js';

export type ChangeOp = 'created' | 'updated' | 'deleted';

export interface ChangeEntry {
  /** 'image': a catalogue image finished (or failed) embedding; key = its URL. */
  entity: 'product' | 'asset' | 'collection' | 'image';
  key: string;
  op: ChangeOp;
  /** The entity's status after the write (null on delete): readers can tell visibility without a lookup. */
  status: string | null;
}

export interface Change extends ChangeEntry { seq: number; createdAt: string }

/**
 * The ordered per-store change log that search indexing, image indexing, collections and webhooks
 * follow. Sequence numbers come from a counter on the store row, bumped inside the writing
 * transaction: the row lock serialises writers of one store, so sequence numbers become visible in
 * commit order and a reader that resumes after N never misses a change nor sees one twice.
 */
export class ChangeFeed {
  constructor(private readonly storage: StorageHandle) {}

  /** Appends entries in the caller's transaction; returns the last sequence number used. */
  async append(trx: Executor, storeId: string, entries: ChangeEntry[]): Promise<number> {
    if (entries.length === 0) return this.latest(trx, storeId);
    const bumped = await trx.updateTable('stores')
      .set((eb) => ({ change_seq: eb('change_seq', '+', entries.length) }))
      .where('id', '=', storeId)
      .returning('change_seq')
      .executeTakeFirstOrThrow();
    const last = Number(bumped.change_seq);
    const first = last - entries.length + 1;
    const createdAt = new Date().toISOString();
    const rows = entries.map((entry, i) => ({
      store_id: storeId, seq: first + i, entity: entry.entity, entity_key: entry.key, op: entry.op, status: entry.status, created_at: createdAt,
    }));
    const chunk = Math.floor(this.storage.dialect.maxParameters / 7);
    for (let i = 0; i < rows.length; i += chunk) await trx.insertInto('change_log').values(rows.slice(i, i + chunk)).execute();
    return last;
  }

  /** Changes after `afterSeq`, oldest first. */
  async read(storeId: string, afterSeq: number, limit = 1000): Promise<Change[]> {
    const rows = await this.storage.db.selectFrom('change_log').selectAll()
      .where('store_id', '=', storeId).where('seq', '>', afterSeq)
      .orderBy('seq').limit(limit).execute();
    return rows.map((row) => ({
      seq: Number(row.seq), entity: row.entity as ChangeEntry['entity'], key: row.entity_key, op: row.op as ChangeOp,
      status: row.status, createdAt: row.created_at,
    }));
  }

  /** The last sequence number of a store (0 before its first write). */
  async latest(db: Executor, storeId: string): Promise<number> {
    const row = await db.selectFrom('stores').select('change_seq').where('id', '=', storeId).executeTakeFirst();
    return Number(row?.change_seq ?? 0);
  }
}
