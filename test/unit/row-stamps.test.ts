import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addToDays, daysSince } from '../../src/modules/events/events.repository.js';
import type { StorageHandle } from '../../src/storage/database.js';
import { withDialect } from '../../src/storage/dialect.js';
import { readChangedRows, type StampCursor } from '../../src/storage/row-stamps.js';
import { inTransaction } from '../../src/storage/transactions.js';
import { DIALECTS, POSTGRES_SKIP } from '../helpers/backends.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const DAY = '2026-11-20';
const count = (productCode: string, views: number) => ({
  productCode,
  day: DAY,
  views,
  clicks: 0,
  carts: 0,
  purchases: 0,
});

for (const dialect of DIALECTS) {
  describe(
    `row stamps: a reader reads the counters written since its last read [${dialect}]`,
    {
      skip: dialect === 'postgres' ? POSTGRES_SKIP : false,
    },
    () => {
      let app: TestApp;
      let storage: StorageHandle;
      const stores: Record<string, string> = {};
      before(async () => {
        app = await buildTestApp(dialect);
        storage = app.container.storage;
        // The counters belong to stores (a foreign key): one per case, and one more beside them.
        for (const name of ['s1', 's2', 's3', 'other store']) {
          const input = { workspaceName: `ws-${name}`, name, channels: ['web'], countries: ['FR'] };
          stores[name] = (await app.container.stores.createStore(input)).store_uuid;
        }
      });
      after(() => app.close());

      const read = (store: string, cursor?: StampCursor) =>
        readChangedRows(storage, cursor, (db, changed) => daysSince(db, store, DAY, changed));
      const views = (rows: Array<{ product_code: string; views: number }>) =>
        Object.fromEntries(rows.map((r) => [r.product_code, r.views]));

      it('reads every row first, then only the rows written since, each with its latest counts', async () => {
        await inTransaction(storage, (trx) => addToDays(trx, stores['s1'], [count('a', 1), count('b', 1)]));
        const first = await read(stores['s1']);
        assert.deepEqual(views(first.rows), { a: 1, b: 1 });
        const idle = await read(stores['s1'], first.cursor);
        assert.deepEqual(idle.rows, [], 'nothing written since');
        await inTransaction(storage, (trx) => addToDays(trx, stores['s1'], [count('b', 2), count('c', 1)]));
        await inTransaction(storage, (trx) => addToDays(trx, stores['other store'], [count('a', 9)]));
        const next = await read(stores['s1'], idle.cursor);
        assert.deepEqual(views(next.rows), { b: 3, c: 1 });
        assert.deepEqual((await read(stores['s1'], next.cursor)).rows, []);
      });

      it('misses no row when the row with the highest stamp is deleted and another is written', async () => {
        await inTransaction(storage, (trx) => addToDays(trx, stores['s2'], [count('a', 1)]));
        await inTransaction(storage, (trx) => addToDays(trx, stores['s2'], [count('b', 1)]));
        const seen = await read(stores['s2']);
        await storage.db
          .deleteFrom('product_event_days')
          .where('store_id', '=', stores.s2)
          .where('product_code', '=', 'b')
          .execute();
        await inTransaction(storage, (trx) => addToDays(trx, stores['s2'], [count('c', 1)]));
        assert.deepEqual(views((await read(stores['s2'], seen.cursor)).rows), { c: 1 });
      });

      it(
        'misses no row of a transaction that started before a read and committed after it',
        { skip: dialect !== 'postgres' },
        async () => {
          let commitEarly!: () => void;
          const held = new Promise<void>((resolve) => (commitEarly = resolve));
          let written!: () => void;
          const wrote = new Promise<void>((resolve) => (written = resolve));
          // The earlier transaction (the lower stamp) writes first and commits last.
          const early = storage.db.transaction().execute(async (trx) => {
            await addToDays(withDialect(trx, storage.dialect), stores['s3'], [count('early', 1)]);
            written();
            await held;
          });
          await wrote;
          await inTransaction(storage, (trx) => addToDays(trx, stores['s3'], [count('late', 1)]));
          const before = await read(stores['s3']);
          assert.deepEqual(views(before.rows), { late: 1 });
          commitEarly();
          await early;
          assert.deepEqual(views((await read(stores['s3'], before.cursor)).rows), { early: 1 });
        },
      );
    },
  );
}
