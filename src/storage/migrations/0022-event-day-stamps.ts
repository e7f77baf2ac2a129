import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Issue 45 (the day of load): each process re-read every daily counter of a store each second to
 * show new events in sorts, so the work grew with the day's events until it ate the API processes'
 * capacity. `changed` stamps each counter row when it is written (src/storage/row-stamps.ts), and a
 * reader reads only the rows written since its last read. Rows of before this migration read as
 * stamp 0: a reader's first read is a full one. SQLite keeps the last stamp handed out per store in
 * `row_stamps` (PostgreSQL stamps with transaction ids and needs no table).
 */
export function eventDayStampsMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('product_event_days')
        .addColumn('changed', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('product_event_days_changed_idx')
        .on('product_event_days')
        .columns(['store_id', 'changed'])
        .execute();
      if (dialect === 'sqlite')
        await db.schema
          .createTable('row_stamps')
          .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
          .addColumn('stamped', 'text', (c) => c.notNull())
          .addColumn('stamp', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('row_stamps_pk', ['store_id', 'stamped'])
          .execute();
    },
    async down(db: Kysely<unknown>) {
      if (dialect === 'sqlite') await db.schema.dropTable('row_stamps').execute();
      await db.schema.dropIndex('product_event_days_changed_idx').execute();
      await db.schema.alterTable('product_event_days').dropColumn('changed').execute();
    },
  };
}
