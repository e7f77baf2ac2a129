import { sql, type Kysely } from 'kysely';

/**
 * Issue 42 (1,000 stores): every 10 s the image queue looked for leases held by dead processes of its
 * host (`claimed_until >= now`), and a stopping worker released its own (`claimed_by = worker`): both
 * read every image of every store, 196 ms for 2M images on SQLite, in the API process's event loop.
 * Only the few images being fetched hold a lease: a partial index holds just those.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX images_lease_idx ON images (claimed_until) WHERE claimed_until IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX images_lease_idx`.execute(db);
}
