import type { Kysely } from 'kysely';

/** Assets (one per store and URL, so a relinked URL keeps its asset_id) and their ranked links. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('assets')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('assets_pk', ['store_id', 'asset_id'])
    .addUniqueConstraint('assets_url_unique', ['store_id', 'url'])
    .execute();

  await db.schema
    .createTable('asset_links')
    .addColumn('store_id', 'text', (c) => c.notNull())
    .addColumn('parent_code', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('asset_type', 'text', (c) => c.notNull())
    .addColumn('rank', 'integer', (c) => c.notNull())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    // An asset's URL never changes (assets are identified by it): kept here too, so listing needs no join.
    .addColumn('url', 'text', (c) => c.notNull())
    // Numbered names ("Image URL 3") are listed as label + rank; other names as the label alone.
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('numbered', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Listing order: a page of groups is one range of this key, already sorted by rank.
    .addPrimaryKeyConstraint('asset_links_pk', ['store_id', 'channel', 'asset_type', 'parent_code', 'rank'])
    .execute();
  await db.schema.createIndex('asset_links_asset_idx').on('asset_links').columns(['store_id', 'asset_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('asset_links').ifExists().execute();
  await db.schema.dropTable('assets').ifExists().execute();
}
