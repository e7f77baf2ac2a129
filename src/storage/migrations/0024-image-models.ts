import { sql, type Kysely } from 'kysely';

/**
 * At each start, the image worker queues again the images embedded by another model (the shipped
 * model changed): `state = 'indexed' AND model <> ?` read every indexed image, 244 ms for a million on
 * SQLite, in the first API process's event loop while it answered its first requests. With images by
 * (state, model), the images of other models are two ranges of the index: under a millisecond.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX images_model_idx ON images (state, model)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX images_model_idx`.execute(db);
}
