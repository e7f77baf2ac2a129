import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { compileSort, sortSpec } from '../../modules/collections/collection-rules.js';

interface CollectionSortRow {
  store_id: string;
  id: string;
  document: string;
}

/** The sort spec of a stored collection document, or '' (no dynamic sort, or a document that no longer parses). */
function specOfDocument(document: string): string {
  try {
    return sortSpec(compileSort((JSON.parse(document) as { sortBy?: unknown }).sortBy));
  } catch {
    return '';
  }
}

async function ruleCollections(db: Kysely<unknown>) {
  const { rows } =
    await sql<CollectionSortRow>`SELECT store_id, id, document FROM collections WHERE is_static = 0`.execute(db);
  return rows.map((row) => ({ ...row, spec: specOfDocument(row.document) })).filter((row) => row.spec !== '');
}

/**
 * Issue 18: a membership no longer carries its own sort key. Collections sorted the same way share
 * one key per product (collection_sort_keys), so a price change every collection sorts by rewrites
 * about one key per product instead of about fifty memberships. Members page by joining the keys.
 */
export function collectionSortKeysMigration(dialect: DialectName): Migration {
  // Sort keys are built for code-point order: PostgreSQL must not compare them by locale.
  const keyType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('collection_sort_keys')
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('sort_spec', 'text', (c) => c.notNull())
        .addColumn('product_code', 'text', (c) => c.notNull())
        .addColumn('sort_key', keyType, (c) => c.notNull())
        .addPrimaryKeyConstraint('collection_sort_keys_pk', ['store_id', 'sort_spec', 'product_code'])
        .execute();
      for (const row of await ruleCollections(db)) {
        await sql`INSERT INTO collection_sort_keys (store_id, sort_spec, product_code, sort_key)
          SELECT store_id, ${row.spec}, product_code, sort_key FROM collection_members
          WHERE store_id = ${row.store_id} AND collection_id = ${row.id}
          ON CONFLICT DO NOTHING`.execute(db);
      }
      await db.schema.dropIndex('collection_members_order_idx').execute();
      await db.schema.dropIndex('collection_members_product_idx').execute();
      await db.schema.alterTable('collection_members').dropColumn('sort_key').execute();
      await db.schema
        .createIndex('collection_members_product_idx')
        .on('collection_members')
        .columns(['store_id', 'product_code', 'collection_id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('collection_members_product_idx').execute();
      await db.schema
        .alterTable('collection_members')
        .addColumn('sort_key', keyType, (c) => c.notNull().defaultTo(''))
        .execute();
      for (const row of await ruleCollections(db)) {
        await sql`UPDATE collection_members SET sort_key = COALESCE((SELECT k.sort_key FROM collection_sort_keys k
            WHERE k.store_id = collection_members.store_id AND k.sort_spec = ${row.spec}
              AND k.product_code = collection_members.product_code), '')
          WHERE store_id = ${row.store_id} AND collection_id = ${row.id}`.execute(db);
      }
      await db.schema
        .createIndex('collection_members_order_idx')
        .on('collection_members')
        .columns(['store_id', 'collection_id', 'sort_key', 'product_code'])
        .execute();
      await db.schema
        .createIndex('collection_members_product_idx')
        .on('collection_members')
        .columns(['store_id', 'product_code', 'collection_id', 'sort_key'])
        .execute();
      await db.schema.dropTable('collection_sort_keys').execute();
    },
  };
}
