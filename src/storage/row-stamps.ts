import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db, StorageHandle } from './dialect.js';
import { withDialect } from './dialect.js';

/**
 * Row stamps: a `changed` column written with every insert or update of a row, so that a reader can
 * ask for the rows written since its last read instead of every row (the daily event counters,
 * re-read each second by every API process).
 *
 * The stamp must let a reader miss nothing, whatever order concurrent writers commit in:
 * - SQLite has one writer at a time, so a counter per store and table, taken in the writing
 *   transaction (`row_stamps`), grows in commit order: a reader asks for stamps above the highest it
 *   has seen. (The table's own highest stamp + 1 would not do: deleting that row hands it out again.)
 * - PostgreSQL commits concurrent transactions in any order, so no counter can do that. The stamp is
 *   the writing transaction's id; a reader keeps the snapshot its last read saw and asks for the rows
 *   whose transaction that snapshot did not see (committed since, or in progress then). A row read
 *   twice is read whole each time, so a reader that keeps the latest version of each row is exact.
 */
export type StampCursor =
  | { readonly engine: 'sqlite'; readonly seen: number }
  | {
      readonly engine: 'postgres';
      readonly snapshot: string;
    };

/**
 * The stamp to write in `table.changed` for rows of `storeId` (in the insert and in its upsert); to
 * be taken inside the writing transaction.
 */
export async function rowStamp(db: Db, table: 'product_event_days', storeId: string): Promise<RawBuilder<number>> {
  if (db.dialect.name === 'postgres') return sql<number>`pg_current_xact_id()::text::bigint`;
  const { stamp } = await db
    .insertInto('row_stamps')
    .values({ store_id: storeId, stamped: table, stamp: 1 })
    .onConflict((oc) => oc.columns(['store_id', 'stamped']).doUpdateSet({ stamp: sql`row_stamps.stamp + 1` }))
    .returning('stamp')
    .executeTakeFirstOrThrow();
  return sql<number>`${stamp}`;
}

/**
 * Runs `read` with a condition on `changed` that keeps the rows written since `after` (every row
 * when `after` is absent), and returns them with the cursor for the next read.
 */
export async function readChangedRows<Row extends { changed: number }>(
  storage: StorageHandle,
  after: StampCursor | undefined,
  read: (db: Db, since: RawBuilder<SqlBool>) => Promise<Row[]>,
): Promise<{ rows: Row[]; cursor: StampCursor }> {
  if (storage.dialect.name !== 'postgres') {
    const seen = after?.engine === 'sqlite' ? after.seen : -1;
    const rows = await read(storage.db, sql<SqlBool>`changed > ${seen}`);
    return { rows, cursor: { engine: 'sqlite', seen: rows.reduce((max, row) => Math.max(max, row.changed), seen) } };
  }
  // One snapshot for both statements: the rows read are exactly those the new cursor's snapshot sees.
  return storage.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const db = withDialect(trx, storage.dialect);
      const { rows: now } = await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(db);
      const since =
        after?.engine === 'postgres'
          ? sql<SqlBool>`changed >= pg_snapshot_xmin(${after.snapshot}::pg_snapshot)::text::bigint
              and not pg_visible_in_snapshot(changed::text::xid8, ${after.snapshot}::pg_snapshot)`
          : sql<SqlBool>`true`;
      return { rows: await read(db, since), cursor: { engine: 'postgres', snapshot: now[0].snapshot } };
    });
}
