import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { describeEachDialect } from '../helpers/test-app.js';
import { TableStatistics } from '../../src/storage/table-statistics.js';

describeEachDialect('planner statistics of tables a follower grows', (ctx, dialect) => {
  it('are refreshed once the rows written pass the threshold, then after twice as many', async () => {
    const { container, store } = ctx();
    const storage = container.storage;
    const estimate = async () =>
      dialect === 'postgres'
        ? Number(
            (
              await sql<{
                n: number;
              }>`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'image_refs'::regclass`.execute(storage.db)
            ).rows[0].n,
          )
        : undefined;
    const errors: unknown[] = [];
    const statistics = new TableStatistics(storage, ['image_refs'], (error) => errors.push(error), 40);
    const storeId = (await container.stores.getStore(store.store_uuid)).id;
    const rows = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        store_id: storeId,
        owner_kind: 'product',
        owner_key: `P-${from + i}`,
        slot: 'Image URL 1',
        url: `https://img.test/${from + i}.jpg`,
      }));
    await storage.db.insertInto('image_refs').values(rows(0, 50)).execute();
    const before = await estimate();

    statistics.wrote(30); // under the first threshold (40): nothing runs
    await statistics.settled();
    assert.equal(await estimate(), before);

    statistics.wrote(20); // 50 written: refreshed
    await statistics.settled();
    if (dialect === 'postgres') assert.equal(await estimate(), 50);

    await storage.db.insertInto('image_refs').values(rows(50, 50)).execute();
    statistics.wrote(40); // 90 written: the next refresh waits for 100
    await statistics.settled();
    if (dialect === 'postgres') assert.equal(await estimate(), 50);
    statistics.wrote(10);
    await statistics.settled();
    if (dialect === 'postgres') assert.equal(await estimate(), 100);
    assert.deepEqual(errors, []);
  });
});
