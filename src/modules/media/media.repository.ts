import type { Insertable } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { MediaTable } from '../../storage/schema.js';

/** Records a store's upload; true when the store did not have this content yet. */
export async function insertMedia(db: Db, row: Insertable<MediaTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('media')
    .values(row)
    .onConflict((oc) => oc.columns(['store_id', 'sha256']).doNothing())
    .returning('sha256')
    .execute();
  return inserted.length > 0;
}

/** Whether any store uploaded the content of this key. */
export async function mediaKeyKnown(db: Db, mediaKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('media')
    .select('sha256')
    .where('media_key', '=', mediaKey)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
