import type { Kysely } from 'kysely';

/**
 * Issue 44, tagging from photos: a store's tagging settings (auto-apply thresholds per field, JSON),
 * and the reviews of suggestions: per product, field and image, what was offered and what a person
 * (or auto-apply) decided, so a rejected suggestion is not offered again for that image and accuracy
 * is counted on what was reviewed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').addColumn('tagging', 'text').execute();
  await db.schema
    .createTable('tag_reviews')
    .addColumn('store_id', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text', (c) => c.notNull())
    .addColumn('offered', 'text', (c) => c.notNull())
    .addColumn('confidence', 'real', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('value', 'text')
    .addColumn('reviewed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tag_reviews_pk', ['store_id', 'product_code', 'field', 'image_url'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tag_reviews').execute();
  await db.schema.alterTable('stores').dropColumn('tagging').execute();
}
