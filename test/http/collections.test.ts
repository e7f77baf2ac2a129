import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { buildApp } from '../../src/app.js';
import { createContainer } from '../../src/container.js';
import { buildTestApp, describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { dress } from '../factories/products.js';

const product = (code: string, extra: Record<string, unknown>) =>
  dress(code, { 'Product Name': `Item ${code}`, ...extra });
const CATALOG = [
  product('d1', { Colour: 'Red', 'Selling Price': '45', Season: 'Summer' }),
  product('d2', { Colour: 'Blue', 'Selling Price': '25', Season: 'Summer' }),
  product('d3', { Colour: 'Red', 'Selling Price': '80', Season: 'Summer' }),
  product('m1', { Category: 'Shirts', Department: 'Men', 'Selling Price': '20' }),
  product('m2', { Category: 'Shirts', Department: 'Men', 'Selling Price': '35' }),
];

const url = (t: TestApp, path = '', query = '') => `/v1/collection${path}?store_uuid=${t.store.store_uuid}${query}`;
const post = (t: TestApp, body: unknown) => t.request({ method: 'POST', url: url(t), payload: body as object });
const put = (t: TestApp, body: unknown) => t.request({ method: 'PUT', url: url(t), payload: body as object });
const members = async (t: TestApp, id: string, query = '') =>
  json(await t.request({ method: 'GET', url: url(t, `/${id}/products`, query) })).data;
const listed = async (t: TestApp, query = '') =>
  json(await t.request({ method: 'GET', url: url(t, '', query) })).data as Array<Record<string, any>>;

describeEachDialect('collections', (ctx) => {
  it('creates rule collections (201) whose membership follows the filters, heroes first, sorted', async () => {
    const t = ctx();
    await t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: CATALOG });
    const res = await post(t, [
      {
        id: 'summer-under-50',
        name: 'Summer dresses under 50',
        filters: { Category: 'Dresses', Season: 'summer', 'Selling Price': { gte: 10, lte: 50 } },
        sortBy: { static: { trendScore: true }, dynamic: [{ field: 'Selling Price', order: 'desc' }] },
        heroProducts: ['d3'],
        meta: { title: 'Summer', description: 'Light' },
        url: '/summer',
        groups: [{ name: 'g1' }],
        displayPreference: 'grid',
        bannerUrl: 'https://b/1.jpg',
        thumbnail: 'https://t/1.jpg',
        description: 'd',
      },
    ]);
    assert.equal(res.statusCode, 201);
    assert.deepEqual(json(res).data, { created: 1, failed: 0, ids: ['summer-under-50'], error_info: [] });
    const page = await members(t, 'summer-under-50');
    assert.equal(page.total, 3);
    assert.deepEqual(
      page.products.map((p: { product_code: string }) => p.product_code),
      ['d3', 'd1', 'd2'],
    );
    assert.deepEqual(page.products[1], {
      product_code: 'd1',
      title: 'Item d1',
      category: 'Dresses',
      price: 45,
      currency: 'EUR',
      image_url: 'https://img.example/d1.jpg',
    });
    const [collection] = await listed(t);
    assert.equal(collection.totalProducts, 3);
    assert.equal(collection.status, 'active');
    assert.deepEqual(collection.sortBy.static, { qualityScore: false, trendScore: true, personalization: false });
    assert.deepEqual(collection.meta, { title: 'Summer', description: 'Light' });
    assert.deepEqual(collection.groups, [{ name: 'g1' }]);
    assert.equal(collection.displayPreference, 'grid');
    assert.equal(collection.autoRefresh, true);
    assert.equal(collection.static, 'false');
    // paging across heroes and members
    assert.deepEqual(
      (await members(t, 'summer-under-50', '&offset=1&limit=1')).products.map(
        (p: { product_code: string }) => p.product_code,
      ),
      ['d1'],
    );
  });

  it('knows products hidden before the store had any collection', async () => {
    // Its own store: the visibility of products written before a store's first collection.
    const t = ctx();
    const created = await t.container.stores.createStore({ workspaceName: `hidden-${Date.now()}`, name: 'H' });
    const store = await t.container.stores.getStore(created.store_uuid);
    await t.container.products.upsertProducts(store, [
      product('h1', { Department: 'Kids' }),
      product('h2', { Department: 'Kids', Status: 'draft' }),
    ]);
    // The background follower sees the writes while the store has no collection yet.
    await t.container.collections.follower.catchUp(store.id);
    await t.container.collections.create(store, [
      { id: 'kids-frozen', name: 'Kids', filters: { Department: 'Kids' }, autoRefresh: false },
    ]);
    const page = await t.container.collections.products(
      store,
      'kids-frozen',
      { offset: 0, limit: 10 },
      { readYourWrites: true },
    );
    assert.equal(page.total, 1);
    assert.deepEqual(
      page.products.map((p) => p.product_code),
      ['h1'],
    );
  });

  it('keeps autoRefresh membership current, freezes it otherwise, and never shows invisible products', async () => {
    const t = ctx();
    await post(t, [
      { id: 'men-live', name: 'Men', filters: { Department: 'Men' } },
      { id: 'men-frozen', name: 'Men frozen', filters: { Department: 'Men' }, autoRefresh: false },
    ]);
    await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [product('m3', { Category: 'Shirts', Department: 'Men' })],
    });
    assert.equal((await members(t, 'men-live')).total, 3);
    assert.equal((await members(t, 'men-frozen')).total, 2);
    await t.request({
      method: 'PUT',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [{ product_code: 'm1', Status: 'inactive' }],
    });
    assert.equal((await members(t, 'men-frozen')).total, 1, 'an invisible product is never counted');
    await t.request({
      method: 'PUT',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [{ product_code: 'm1', Status: 'active' }],
    });
    assert.equal((await members(t, 'men-frozen')).total, 2, 'and comes back when visible again');
    await t.request({
      method: 'PUT',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [{ product_code: 'm2', Department: 'Unisex' }],
    });
    assert.deepEqual(
      (await members(t, 'men-live')).products.map((p: { product_code: string }) => p.product_code),
      ['m1', 'm3'],
    );
    // a save re-evaluates a frozen collection
    await put(t, [{ id: 'men-frozen', name: 'Men frozen again' }]);
    assert.equal((await members(t, 'men-frozen')).total, 2);
  });

  it('moves a live member when its sort field changes, and leaves other collections alone', async () => {
    const t = ctx();
    const write = (method: 'POST' | 'PUT', payload: object[]) =>
      t.request({ method, url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload });
    await write('POST', [
      product('g1', { Category: 'Gowns', 'Selling Price': '45' }),
      product('g2', { Category: 'Gowns', 'Selling Price': '25' }),
      product('g3', { Category: 'Gowns', 'Selling Price': '80' }),
    ]);
    await post(t, [
      {
        id: 'gowns-cheap-first',
        name: 'Gowns',
        filters: { Category: 'Gowns' },
        sortBy: { dynamic: [{ field: 'Selling Price', order: 'asc' }] },
      },
      { id: 'gowns-frozen', name: 'Gowns frozen', filters: { Category: 'Gowns' }, autoRefresh: false },
    ]);
    const order = async (id: string) =>
      (await members(t, id)).products.map((p: { product_code: string }) => p.product_code);
    assert.deepEqual(await order('gowns-cheap-first'), ['g2', 'g1', 'g3']);
    await write('PUT', [{ product_code: 'g3', 'Selling Price': '5' }]);
    assert.deepEqual(await order('gowns-cheap-first'), ['g3', 'g2', 'g1'], 'the repriced member moved');
    await write('PUT', [{ product_code: 'g2', 'Product Name': 'Renamed' }]);
    assert.deepEqual(await order('gowns-cheap-first'), ['g3', 'g2', 'g1'], 'a rename keeps the order');
    await write('PUT', [{ product_code: 'g1', Category: 'Skirts' }]);
    assert.deepEqual(await order('gowns-cheap-first'), ['g3', 'g2'], 'a product that no longer matches leaves');
    assert.deepEqual((await order('gowns-frozen')).sort(), ['g1', 'g2', 'g3'], 'a frozen collection keeps its members');
    await write('PUT', [{ product_code: 'g1', Category: 'Gowns' }]);
    assert.deepEqual(await order('gowns-cheap-first'), ['g3', 'g2', 'g1'], 'and comes back when it matches again');
  });

  it('moves several products out of several collections in one write, and no other membership', async () => {
    const t = ctx();
    const write = (method: 'POST' | 'PUT', payload: object[]) =>
      t.request({ method, url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload });
    await write('POST', [
      product('k1', { Category: 'Capes', Colour: 'Red', Season: 'Summer', 'Selling Price': '45' }),
      product('k2', { Category: 'Capes', Colour: 'Blue', Season: 'Summer', 'Selling Price': '25' }),
      product('k3', { Category: 'Capes', Colour: 'Red', Season: 'Summer', 'Selling Price': '80' }),
      product('k4', { Category: 'Capes', Colour: 'Blue', Season: 'Winter', 'Selling Price': '20' }),
    ]);
    await post(t, [
      { id: 'capes-red', name: 'Red capes', filters: { Category: 'Capes', Colour: 'Red' } },
      { id: 'capes-summer', name: 'Summer capes', filters: { Category: 'Capes', Season: 'Summer' } },
      { id: 'capes-under-50', name: 'Capes under 50', filters: { Category: 'Capes', 'Selling Price': { lte: 50 } } },
      {
        id: 'capes-red-frozen',
        name: 'Red capes, frozen',
        filters: { Category: 'Capes', Colour: 'Red' },
        autoRefresh: false,
      },
    ]);
    const codes = async (id: string) =>
      (await members(t, id)).products.map((p: { product_code: string }) => p.product_code).sort();
    assert.deepEqual(await codes('capes-red'), ['k1', 'k3']);
    assert.deepEqual(await codes('capes-summer'), ['k1', 'k2', 'k3']);
    assert.deepEqual(await codes('capes-under-50'), ['k1', 'k2', 'k4']);
    // k1 and k3 leave red and summer, k1 and k2 leave under-50, k4 stays where it was.
    await write('PUT', [
      { product_code: 'k1', Colour: 'Green', Season: 'Winter', 'Selling Price': '90' },
      { product_code: 'k2', 'Selling Price': '60' },
      { product_code: 'k3', Colour: 'Blue', Season: 'Winter' },
      { product_code: 'k4', 'Product Name': 'Renamed' },
    ]);
    assert.deepEqual(await codes('capes-red'), []);
    assert.deepEqual(await codes('capes-summer'), ['k2']);
    assert.deepEqual(await codes('capes-under-50'), ['k4']);
    assert.deepEqual(await codes('capes-red-frozen'), ['k1', 'k3'], 'a frozen collection keeps its members');
  });

  it('hides collections below minProducts, filters by status, and lists static collections of heroes', async () => {
    const t = ctx();
    await post(t, [
      { id: 'big', name: 'Needs 10', filters: { Category: 'Dresses' }, minProducts: 10 },
      { id: 'off', name: 'Off', filters: { Category: 'Dresses' }, status: 'inactive' },
      {
        id: 'picks',
        name: 'Picks',
        static: 'true',
        filters: { Category: 'Shirts' },
        heroProducts: ['d2', 'ghost', 'm1'],
      },
    ]);
    const statuses = Object.fromEntries((await listed(t)).map((c) => [c.id, c.status]));
    assert.equal(statuses.big, 'hidden');
    assert.equal(statuses.off, 'inactive');
    assert.deepEqual((await listed(t, '&status=hidden,inactive')).map((c) => c.id).sort(), ['big', 'off']);
    const picks = await members(t, 'picks');
    assert.equal(picks.total, 2, 'heroes that do not exist are kept but not counted');
    assert.deepEqual(
      picks.products.map((p: { product_code: string }) => p.product_code),
      ['d2', 'm1'],
    );
    const stored = (await listed(t)).find((c) => c.id === 'picks')!;
    assert.deepEqual(stored.heroProducts, ['d2', 'ghost', 'm1']);
    assert.equal((await listed(t, '&limit=1&offset=1')).length, 1);
  });

  it('builds the hierarchy from parentId, refuses cycles and unknown parents, re-parents on delete', async () => {
    const t = ctx();
    const res = await post(t, [
      { id: 'root', name: 'Women', url: '/women', filters: { Department: 'Women' } },
      { id: 'child', name: 'Dresses', url: '/women/dresses', parentId: 'root', filters: { Category: 'Dresses' } },
      { id: 'leaf', name: 'Red dresses', parentId: 'child', filters: { Colour: 'Red' } },
      { id: 'orphan', name: 'X', parentId: 'nowhere' },
      { id: 'root', name: 'again' },
    ]);
    assert.deepEqual(json(res).data.ids, ['root', 'child', 'leaf', null, null]);
    assert.deepEqual(
      json(res).data.error_info.map((e: { reason: string }) => e.reason),
      ['parent_not_found', 'duplicate_id'],
    );
    const hierarchy = json(await t.request({ method: 'GET', url: url(t, '/hierarchy') })).data;
    assert.equal(hierarchy.vendor, 'Test Store');
    const women = hierarchy.association.find((n: { collectionId: string }) => n.collectionId === 'root');
    assert.deepEqual(women, {
      collectionId: 'root',
      collectionName: 'Women',
      collectionUrl: '/women',
      children: [
        {
          collectionId: 'child',
          collectionName: 'Dresses',
          collectionUrl: '/women/dresses',
          children: [{ collectionId: 'leaf', collectionName: 'Red dresses', collectionUrl: '', children: [] }],
        },
      ],
    });
    const cycle = await put(t, [
      { id: 'root', parentId: 'leaf' },
      { id: 'child', parentId: 'child' },
      { id: 'ghost', name: 'x' },
    ]);
    assert.deepEqual(
      json(cycle).data.error_info.map((e: { reason: string }) => e.reason),
      ['cycle', 'cycle', 'not_found'],
    );
    // an inactive parent takes its subtree out of the hierarchy
    await put(t, [{ id: 'child', status: 'inactive' }]);
    const pruned = json(await t.request({ method: 'GET', url: url(t, '/hierarchy') })).data.association.find(
      (n: { collectionId: string }) => n.collectionId === 'root',
    );
    assert.deepEqual(pruned.children, []);
    await put(t, [{ id: 'child', status: 'active' }]);
    const deleted = await t.request({ method: 'DELETE', url: url(t, '', '&ids=child,nope') });
    assert.deepEqual(json(deleted).data, {
      deleted: 1,
      failed: 1,
      ids: ['child', null],
      error_info: [{ index: 1, id: 'nope', reason: 'not_found', details: 'collection nope does not exist' }],
    });
    const after = json(await t.request({ method: 'GET', url: url(t, '/hierarchy') })).data.association.find(
      (n: { collectionId: string }) => n.collectionId === 'root',
    );
    assert.deepEqual(
      after.children.map((n: { collectionId: string }) => n.collectionId),
      ['leaf'],
    );
  });

  it('refuses bad input with clear errors', async () => {
    const t = ctx();
    assert.equal((await t.request({ method: 'GET', url: url(t, '', '&status=archived') })).statusCode, 422);
    assert.equal((await t.request({ method: 'GET', url: url(t, '', '&limit=1001') })).statusCode, 422);
    assert.equal((await post(t, { id: 'x' })).statusCode, 422);
    assert.equal((await post(t, [])).statusCode, 422);
    assert.equal(
      (
        await post(
          t,
          Array.from({ length: 101 }, (_, i) => ({ name: `c${i}` })),
        )
      ).statusCode,
      413,
    );
    const bad = json(
      await post(t, [
        { name: 'f1', filters: 'Category=Dresses' },
        { name: 'f2', filters: { 'Selling Price': { between: [1, 2] } } },
        { name: 's1', status: 'archived' },
        { name: 'o1', sortBy: { dynamic: [{ field: 'Selling Price', order: 'sideways' }] } },
        { description: 'no name' },
        { id: 'bad id!', name: 'x' },
      ]),
    ).data;
    assert.deepEqual(
      bad.error_info.map((e: { reason: string }) => e.reason),
      ['invalid_filter', 'invalid_filter', 'invalid_status', 'invalid_sort', 'invalid_field', 'invalid_id'],
    );
    assert.equal(bad.created, 0);
    assert.equal((await t.request({ method: 'GET', url: url(t, '/nope/products') })).statusCode, 404);
    assert.equal((await t.request({ method: 'DELETE', url: url(t, '', '&ids=') })).statusCode, 422);
    const other = await t.container.stores.createStore({ workspaceName: `coll-foreign-${Date.now()}`, name: 'F' });
    assert.equal(
      (await t.request({ method: 'GET', url: `/v1/collection?store_uuid=${other.store_uuid}` })).statusCode,
      404,
    );
    // a parent in another store of the same workspace is not a parent here
    const sibling = await t.container.stores.createStore({ workspaceName: 'unused', name: 'S' });
    const siblingStore = await t.container.stores.getStore(sibling.store_uuid);
    await t.container.collections.create(siblingStore, [{ id: 'elsewhere', name: 'Elsewhere' }]);
    const cross = json(await post(t, [{ name: 'x', parentId: 'elsewhere' }])).data;
    assert.equal(cross.error_info[0].reason, 'parent_not_found');
  });
});

describeEachDialect('POST /v1/collection/preview', (ctx) => {
  it('answers what saving would give (status, total, first members in order) and stores nothing', async () => {
    const t = ctx();
    await t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: CATALOG });
    const body = {
      id: 'ignored',
      name: 'Summer dresses under 50',
      filters: { Category: 'Dresses', Season: 'summer', 'Selling Price': { gte: 10, lte: 50 } },
      sortBy: { dynamic: [{ field: 'Selling Price', order: 'desc' }] },
      heroProducts: ['d3', 'nowhere'],
      minProducts: 2,
    };
    const res = await t.request({ method: 'POST', url: url(t, '/preview'), payload: body });
    assert.equal(res.statusCode, 200);
    const preview = json(res).data;
    assert.equal(preview.status, 'active');
    assert.equal(preview.totalProducts, 3);
    assert.deepEqual(
      preview.products.map((p: { product_code: string }) => p.product_code),
      ['d3', 'd1', 'd2'],
    );
    // the same body saved gives the same members
    await post(t, [{ ...body, id: 'saved' }]);
    assert.deepEqual(
      (await members(t, 'saved')).products.map((p: { product_code: string }) => p.product_code),
      ['d3', 'd1', 'd2'],
    );
    assert.deepEqual(
      (await listed(t)).map((c) => c.id),
      ['saved'],
    );
    const limited = json(
      await t.request({ method: 'POST', url: url(t, '/preview', '&limit=2'), payload: { ...body, minProducts: 5 } }),
    ).data;
    assert.equal(limited.status, 'hidden');
    assert.deepEqual(
      limited.products.map((p: { product_code: string }) => p.product_code),
      ['d3', 'd1'],
    );
  });

  it('refuses invalid rules with 422 naming the problem, and a non-object body', async () => {
    const t = ctx();
    const bad = await t.request({
      method: 'POST',
      url: url(t, '/preview'),
      payload: { filters: { 'Selling Price': { between: 3 } } },
    });
    assert.equal(bad.statusCode, 422);
    assert.match(json(bad).detail, /Selling Price|between/);
    const notObject = await t.request({ method: 'POST', url: url(t, '/preview'), payload: [1, 2] });
    assert.ok([400, 422].includes(notObject.statusCode));
  });

  it('never shows a member page older than the last write, from whichever process the write came', async () => {
    const t = await buildTestApp(ctx().dialect);
    // A second "process": its own app and container (so its own caches) over the same database.
    const other = await buildApp(createContainer(t.container.config, { storage: t.container.storage }), {
      logger: false,
    });
    const writeViaOther = (method: 'POST' | 'PUT', payload: object[]) =>
      other.inject({
        method,
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload,
        headers: { authorization: `Bearer ${t.store.api_token}` },
      });
    const codes = async () =>
      (await members(t, 'cheap-women')).products.map((p: { product_code: string; title: string }) =>
        [p.product_code, p.title].join(' '),
      );
    try {
      await t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: CATALOG });
      const created = await post(t, [
        {
          id: 'cheap-women',
          name: 'Cheap women',
          filters: { Department: 'Women', 'Selling Price': { lte: 50 } },
          sortBy: { dynamic: [{ field: 'Selling Price', order: 'asc' }] },
        },
      ]);
      assert.equal(created.statusCode, 201);
      const first = await codes();
      assert.deepEqual(first, ['d2 Item d2', 'd1 Item d1']);
      assert.deepEqual(await codes(), first, 'the same page again, unchanged');

      // A price that moves a product in, a name change (the page shows titles), a product that leaves.
      assert.equal((await writeViaOther('PUT', [{ product_code: 'd3', 'Selling Price': '10' }])).statusCode, 200);
      assert.deepEqual(await codes(), ['d3 Item d3', 'd2 Item d2', 'd1 Item d1']);
      assert.equal((await writeViaOther('PUT', [{ product_code: 'd2', 'Product Name': 'Renamed' }])).statusCode, 200);
      assert.deepEqual(await codes(), ['d3 Item d3', 'd2 Renamed', 'd1 Item d1']);
      assert.equal((await writeViaOther('PUT', [{ product_code: 'd1', Status: 'inactive' }])).statusCode, 200);
      assert.deepEqual(await codes(), ['d3 Item d3', 'd2 Renamed']);
      // Paged: another offset is another page, not the first one again.
      const second = await members(t, 'cheap-women', '&offset=1&limit=1');
      assert.deepEqual(
        second.products.map((p: { product_code: string }) => p.product_code),
        ['d2'],
      );
      assert.equal(second.total, 2);
    } finally {
      await other.close();
      await t.close();
    }
  });
});

describeEachDialect('collection sort keys shared per sort (migration 0015)', (ctx) => {
  it('keeps every listing order through the migration down and up again, one key per product and sort', async () => {
    const t = ctx();
    await t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: CATALOG });
    await post(t, [
      {
        id: 'cheap-first',
        name: 'Cheap first',
        filters: { Department: 'Women' },
        sortBy: { dynamic: [{ field: 'Selling Price', order: 'asc' }] },
      },
      {
        id: 'dear-first',
        name: 'Dear first',
        filters: { Category: 'Dresses' },
        sortBy: { dynamic: [{ field: 'Selling Price', order: 'desc' }] },
      },
      {
        id: 'dear-too',
        name: 'Dear too',
        filters: { Currency: 'EUR' },
        sortBy: { dynamic: [{ field: 'Selling Price', order: 'desc' }] },
      },
      { id: 'by-code', name: 'By code', filters: { Currency: 'EUR' } },
    ]);
    const orders = async () => {
      const all: Record<string, string[]> = {};
      for (const id of ['cheap-first', 'dear-first', 'dear-too', 'by-code'])
        all[id] = (await members(t, id)).products.map((p: { product_code: string }) => p.product_code);
      return all;
    };
    const before = await orders();
    assert.deepEqual(before, {
      'cheap-first': ['d2', 'd1', 'd3'],
      'dear-first': ['d3', 'd1', 'd2'],
      'dear-too': ['d3', 'd1', 'm2', 'd2', 'm1'],
      'by-code': ['d1', 'd2', 'd3', 'm1', 'm2'],
    });
    const db = t.container.storage.db;
    const keyRows = async () =>
      Number((await sql<{ n: number }>`SELECT count(*) AS n FROM collection_sort_keys`.execute(db)).rows[0].n);
    // two sorts over 3 and 5 products: one key per product and sort, however many collections share it
    assert.equal(await keyRows(), 3 + 5);

    await migrateToLatest(t.container.storage, '0014-search-per-store');
    const { rows } = await sql<{ collection_id: string; product_code: string; sort_key: string }>`
      SELECT collection_id, product_code, sort_key FROM collection_members ORDER BY collection_id, sort_key, product_code`.execute(
      db,
    );
    const byCollection = (id: string) => rows.filter((r) => r.collection_id === id).map((r) => r.product_code);
    assert.deepEqual(byCollection('dear-first'), ['d3', 'd1', 'd2']);
    assert.deepEqual(byCollection('cheap-first'), ['d2', 'd1', 'd3']);
    assert.ok(rows.filter((r) => r.collection_id === 'by-code').every((r) => r.sort_key === ''));

    await migrateToLatest(t.container.storage);
    assert.deepEqual(await orders(), before);
    assert.equal(await keyRows(), 3 + 5);
    // a price change moves the product in every collection sorted by price, by one key per sort
    await t.request({
      method: 'PUT',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [{ product_code: 'd2', 'Selling Price': '99' }],
    });
    await t.container.collections.follower.catchUp(t.store.store_uuid);
    const after = await orders();
    assert.deepEqual(after['cheap-first'], ['d1', 'd3', 'd2']);
    assert.deepEqual(after['dear-first'], ['d2', 'd3', 'd1']);
    assert.deepEqual(after['dear-too'], ['d2', 'd3', 'd1', 'm2', 'm1']);
    assert.equal(await keyRows(), 3 + 5);
  });
});
