import type { Db } from '../../storage/database.js';
import type { ImportsTable } from '../../storage/schema.js';
import type { Insertable, Updateable } from 'kysely';

export async function insertImport(db: Db, row: Insertable<ImportsTable>) {
  await db.insertInto('imports').values(row).execute();
}

export function findImport(db: Db, id: string) {
  return db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Writes an import's state only while `workerId` holds its lease. */
export async function updateHeldImport(db: Db, id: string, workerId: string, values: Updateable<ImportsTable>) {
  await db.updateTable('imports').set(values).where('id', '=', id).where('claimed_by', '=', workerId).execute();
}

/** Import jobs of every store by status (the /metrics import gauge). */
export async function countByStatus(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('imports')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}
