import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { dress } from '../factories/products.js';

const product = dress;

const changes = (t: TestApp, query = '') =>
  t.request({ method: 'GET', url: `/v1/changes?store_uuid=${t.store.store_uuid}${query}` });

/** Lets every internal follower read the store's log (pruning never drops what they have not read). */
async function followEverything(t: TestApp) {
  const id = t.store.store_uuid;
  await t.container.searchIndexer.follower.catchUp(id);
  await t.container.collections.follower.catchUp(id);
  await t.container.imageCatalog.follower.catchUp(id);
}

describeEachDialect('change feed (GET /v1/changes)', (ctx) => {
  it('lists product, asset-link and collection changes in order, with kinds and changed fields', async () => {
    const t = ctx();
    const url = `/v1/products?store_uuid=${t.store.store_uuid}`;
    await t.request({ method: 'POST', url, payload: [product('c1'), product('c2')] });
    await t.request({ method: 'PUT', url, payload: [{ product_code: 'c1', 'Selling Price': '25' }] });
    await t.request({ method: 'PUT', url, payload: [{ product_code: 'c2', Status: 'inactive' }] });
    // an identical write changes nothing and publishes nothing
    await t.request({ method: 'PUT', url, payload: [{ product_code: 'c1', 'Selling Price': '25' }] });
    await t.request({
      method: 'POST',
      url: `/v1/assets?store_uuid=${t.store.store_uuid}`,
      payload: [{ parent_code: 'c1', channel: 'app', assets: { 'Image URL 2': 'https://img.example/c1-b.jpg' } }],
    });
    await t.request({
      method: 'POST',
      url: `/v1/collection?store_uuid=${t.store.store_uuid}`,
      payload: [{ id: 'dresses', name: 'Dresses', filters: { Category: 'Dresses' } }],
    });
    await t.request({ method: 'DELETE', url: `${url}&sku_codes=c2` });

    const res = await changes(t);
    assert.equal(res.statusCode, 200);
    const page = json(res).data;
    const summary = page.changes.map((c: Record<string, any>) => [c.type, c.code, c.fields]);
    assert.deepEqual(summary, [
      [
        'product.created',
        'c1',
        ['Category', 'Currency', 'Department', 'Image URL 1', 'Product Name', 'Selling Price', 'Status'],
      ],
      [
        'product.created',
        'c2',
        ['Category', 'Currency', 'Department', 'Image URL 1', 'Product Name', 'Selling Price', 'Status'],
      ],
      ['product.updated', 'c1', ['Selling Price']],
      ['product.status_changed', 'c2', ['Status']],
      ['asset.updated', 'c1', ['app']],
      ['collection.created', 'dresses', ['filters', 'name']],
      ['product.deleted', 'c2', []],
    ]);
    const sequences = page.changes.map((c: { sequence: number }) => c.sequence);
    assert.deepEqual(
      sequences,
      [...sequences].sort((a, b) => a - b),
    );
    const first = page.changes[0];
    assert.equal(first.id, `${t.store.store_uuid}:${first.sequence}`);
    assert.equal(first.store_uuid, t.store.store_uuid);
    assert.equal(first.entity, 'product');
    assert.equal(first.kind, 'created');
    assert.equal(first.status, 'new');
    assert.ok(!Number.isNaN(Date.parse(first.time)));
    assert.equal(page.changes[3].status, 'inactive');
    assert.equal(page.next_after, page.latest_sequence);
    assert.equal(page.has_more, false);
    assert.equal(page.oldest_sequence, 1);

    // paging with a cursor the caller keeps
    const firstTwo = json(await changes(t, '&limit=2')).data;
    assert.equal(firstTwo.changes.length, 2);
    assert.equal(firstTwo.has_more, true);
    const rest = json(await changes(t, `&after=${firstTwo.next_after}&limit=100`)).data;
    assert.deepEqual(
      [...firstTwo.changes, ...rest.changes].map((c: { id: string }) => c.id),
      page.changes.map((c: { id: string }) => c.id),
    );
    const caughtUp = json(await changes(t, `&after=${page.next_after}`)).data;
    assert.deepEqual(caughtUp.changes, []);
    assert.equal(caughtUp.next_after, page.next_after);
  });

  it('refuses bad cursors and limits, naming the parameter, and hides other workspaces', async () => {
    const t = ctx();
    const latest = json(await changes(t)).data.latest_sequence as number;
    for (const [query, field] of [
      [`&after=${latest + 5}`, 'after'],
      ['&after=-1', 'after'],
      ['&after=abc', 'after'],
      ['&limit=0', 'limit'],
      ['&limit=1001', 'limit'],
    ]) {
      const res = await changes(t, query);
      assert.equal(res.statusCode, 422, query);
      assert.match(json(res).detail, new RegExp(field), query);
    }
    const other = await t.container.stores.createStore({ workspaceName: `other-${Date.now()}`, name: 'Other' });
    const foreign = await t.request({ method: 'GET', url: `/v1/changes?store_uuid=${other.store_uuid}` });
    assert.equal(foreign.statusCode, 404);
    assert.equal(
      (await t.request({ method: 'GET', url: `/v1/changes?store_uuid=${t.store.store_uuid}`, token: null })).statusCode,
      401,
    );
  });

  it('answers 410 with the oldest sequence for a cursor older than the retention, and keeps what followers have not read', async () => {
    const t = ctx();
    const url = `/v1/products?store_uuid=${t.store.store_uuid}`;
    await t.request({ method: 'POST', url, payload: [product('r1'), product('r2')] });
    const before = json(await changes(t)).data;
    // Nothing is pruned while an internal follower has not read it.
    const later = new Date(Date.now() + 1000 * 3_600_000);
    await t.container.changes.pruneAll(later);
    assert.equal(json(await changes(t)).data.oldest_sequence, 1);

    await followEverything(t);
    await t.container.changes.pruneAll(later);
    const gone = await changes(t);
    assert.equal(gone.statusCode, 410);
    const body = json(gone);
    assert.equal(body.status.code, -1);
    assert.equal(body.data.oldest_sequence, before.latest_sequence + 1);
    assert.match(body.status.message, /no longer retained/);
    assert.ok(gone.headers['x-request-id']);
    // Resuming where the message says works, and new changes follow.
    await t.request({ method: 'PUT', url, payload: [{ product_code: 'r1', 'Selling Price': '99' }] });
    const resumed = json(await changes(t, `&after=${body.data.oldest_sequence - 1}`)).data;
    assert.deepEqual(
      resumed.changes.map((c: { type: string; code: string }) => `${c.type} ${c.code}`),
      ['product.updated r1'],
    );
    // The in-memory indexes rebuild rather than miss pruned changes: search still finds the product.
    const found = json(
      await t.request({ method: 'GET', url: `/v1/search?store_uuid=${t.store.store_uuid}&query=dress` }),
    ).data;
    assert.ok(JSON.stringify(found).includes('r1'));
  });

  it('lets requests in between the batches of a catch-up and the pages of a full read of the products', async () => {
    // On SQLite every query resolves at once: a loop of reads and writes never returned to the event
    // loop, and a large import's catch-up held every request of the process for its whole length.
    const t = ctx();
    const id = t.store.store_uuid;
    for (let at = 0; at < 1100; at += 100) {
      const payload = Array.from({ length: 100 }, (_, i) => product(`turn-${at + i}`));
      const res = await t.request({ method: 'POST', url: `/v1/products?store_uuid=${id}`, payload });
      assert.equal(res.statusCode, 200, res.body);
    }
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    try {
      let from = turns;
      // 1,100 changes: several batches (of 200 on SQLite, 500 on PostgreSQL).
      assert.equal(await t.container.searchIndexer.follower.catchUp(id), 1100);
      assert.ok(turns - from >= 2, `turns of the event loop during the catch-up: ${turns - from}`);
      from = turns;
      let pages = 0;
      for await (const page of t.container.productsRead.pageAll(id, { pageSize: 300 }))
        pages += page.length > 0 ? 1 : 0;
      assert.equal(pages, 4);
      assert.ok(turns - from >= 3, `turns of the event loop during the read: ${turns - from}`);
    } finally {
      counting = false;
    }
  });
});
