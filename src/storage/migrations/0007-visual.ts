import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Search by photo: one row per distinct image URL of a store (its fetch/embedding state, which is
 * also the durable job queue, and its quantized vector), and the references from products and
 * asset links to those URLs.
 */
export function visualMigration(dialect: DialectName): Migration {
  const bytes = dialect === 'postgres' ? sql`bytea` : sql`blob`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('images')
        .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('run_after', 'text', (c) => c.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_until', 'text')
        .addColumn('error', 'text')
        .addColumn('model', 'text')
        .addColumn('vector', bytes)
        .addColumn('scale', 'real')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('images_pk', ['store_id', 'url'])
        .execute();
      await db.schema.createIndex('images_queue_idx').on('images').columns(['state', 'run_after']).execute();

      await db.schema
        .createTable('image_refs')
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('owner_kind', 'text', (c) => c.notNull())
        .addColumn('owner_key', 'text', (c) => c.notNull())
        .addColumn('slot', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('image_refs_pk', ['store_id', 'owner_kind', 'owner_key', 'slot'])
        .execute();
      await db.schema.createIndex('image_refs_url_idx').on('image_refs').columns(['store_id', 'url']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('image_refs').ifExists().execute();
      await db.schema.dropTable('images').ifExists().execute();
    },
  };
}
