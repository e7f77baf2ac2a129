import type { Kysely } from 'kysely';

/**
 * Issue 18: a version of each store's complement pins, bumped with every change to them. It is read
 * with the store at the start of each request (with its token), so a process keeps a store's pins
 * until the version moves instead of asking for them on every complete-the-look request.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('stores')
    .addColumn('pins_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').dropColumn('pins_version').execute();
}
