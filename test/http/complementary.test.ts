import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { until } from '../helpers/receiver.js';
import { inTransaction } from '../../src/storage/transactions.js';
import { savePins } from '../../src/modules/complements/complements.repository.js';
import { ComplementsService } from '../../src/modules/complements/complements.service.js';

const p = (code: string, extra: Record<string, unknown>) => ({
  product_code: code,
  'Product Name': code,
  'Selling Price': '40',
  Currency: 'EUR',
  'Image URL 1': `https://i/${code}.jpg`,
  Usage: 'Casual',
  Season: 'Summer',
  ...extra,
});
const CATALOG = [
  p('shirt', { Category: 'Shirts', Department: 'Men', Colour: 'Navy Blue', Usage: 'Formal' }),
  p('trousers-formal', { Category: 'Trousers', Department: 'Men', Colour: 'Grey', Usage: 'Formal' }),
  p('trousers-cheap', {
    Category: 'Trousers',
    Department: 'Men',
    Colour: 'Black',
    Usage: 'Formal',
    'Selling Price': '5',
  }),
  p('track-pants', { Category: 'Track Pants', Department: 'Men', Colour: 'Black', Usage: 'Sports' }),
  p('skirt', { Category: 'Skirts', Department: 'Women', Colour: 'Red' }),
  p('unisex-jeans', { Category: 'Jeans', Department: 'Unisex', Colour: 'Blue' }),
  p('formal-shoes', { Category: 'Formal Shoes', Department: 'Men', Colour: 'Brown', Usage: 'Formal' }),
  p('shoes-image3', {
    Category: 'Formal Shoes',
    Department: 'Men',
    Colour: 'Black',
    Usage: 'Formal',
    'Image URL 1': undefined,
    'Image URL 3': 'https://i/third.jpg',
  }),
  p('belt', { Category: 'Belts', Department: 'Men', Colour: 'Brown', Usage: 'Formal' }),
  p('watch', { Category: 'Watches', Department: 'Unisex', Colour: 'Silver' }),
  p('other-shirt', { Category: 'Shirts', Department: 'Men', Colour: 'White' }),
  p('hidden-belt', { Category: 'Belts', Department: 'Men', Colour: 'Black', Status: 'draft' }),
];

const complementary = (t: TestApp, query: string) =>
  t.request({ method: 'GET', url: `/v1/complementary?store_uuid=${t.store.store_uuid}&${query}` });

describeEachDialect(
  'GET /v1/complementary',
  (ctx) => {
    it("groups complements by category, never the source's own, never the wrong department or a clashing usage", async () => {
      const t = ctx();
      await t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: CATALOG });
      const res = await complementary(t, 'product_code=shirt');
      assert.equal(res.statusCode, 200);
      const { categories } = json(res).data;
      const titles = categories.map((c: { title: string }) => c.title);
      assert.deepEqual(titles.slice(0, 4), ['BOTTOMWEAR', 'FOOTWEAR', 'BELTS', 'WATCHES']);
      assert.ok(!titles.includes('TOPWEAR'));
      const codes = categories.flatMap((c: { products: Array<{ product_code: string }> }) =>
        c.products.map((x) => x.product_code),
      );
      for (const excluded of ['skirt', 'track-pants', 'hidden-belt', 'other-shirt', 'shirt'])
        assert.ok(!codes.includes(excluded), excluded);
      const bottoms = categories[0].products.map((x: { product_code: string }) => x.product_code);
      assert.deepEqual(
        bottoms,
        ['trousers-formal', 'unisex-jeans', 'trousers-cheap'],
        'usage, colour and price band order them',
      );
      const footwear = categories[1].products.map((x: { product_code: string }) => x.product_code);
      assert.deepEqual(footwear, ['formal-shoes', 'shoes-image3']);
      assert.equal(categories[1].products[1].image_url, 'https://i/third.jpg', 'the first image field that is set');
      const first = categories[0].products[0];
      assert.deepEqual(Object.keys(first).sort(), [
        'category',
        'currency',
        'image_url',
        'price',
        'product_code',
        'score',
        'title',
      ]);
      assert.ok(first.score > 0 && first.score <= 1);
      assert.equal(first.price, 40);
      assert.deepEqual(json(await complementary(t, 'product_code=shirt')).data, json(res).data, 'deterministic');
    });

    it('limits products per category, puts pinned complements first, and follows catalog changes', async () => {
      const t = ctx();
      const limited = json(await complementary(t, 'product_code=shirt&limit=1')).data.categories;
      assert.ok(limited.every((c: { products: unknown[] }) => c.products.length === 1));
      await t.container.complements.setPins(t.store.store_uuid, 'shirt', ['trousers-cheap', 'other-shirt']);
      const pinned = json(await complementary(t, 'product_code=shirt')).data.categories;
      assert.equal(pinned[0].title, 'BOTTOMWEAR');
      assert.equal(pinned[0].products[0].product_code, 'trousers-cheap');
      // Pins saved by another process (straight through the repository, past this process's service):
      // the store's pins version moves with them, so the next request here reads them again.
      await inTransaction(t.container.storage, (trx) =>
        savePins(trx, t.store.store_uuid, 'shirt', ['trousers-formal']),
      );
      const repinned = json(await complementary(t, 'product_code=shirt')).data.categories;
      assert.equal(repinned[0].products[0].product_code, 'trousers-formal');
      await t.request({
        method: 'PUT',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [{ product_code: 'belt', Status: 'inactive' }],
      });
      // A request waits 30 ms for a catch-up under way, then answers as the last pass left the index (a
      // loaded machine can take longer to apply the change): the belt leaves within the next passes.
      await until(
        async () => {
          const categories = json(await complementary(t, 'product_code=shirt')).data.categories;
          return !categories.some((c: { title: string }) => c.title === 'BELTS');
        },
        'the deactivated belt to leave complete the look',
        2_000,
      );
    });

    it('answers a draft source with complements, and an unknown product, bad limits and foreign stores with errors', async () => {
      const t = ctx();
      assert.equal((await complementary(t, 'product_code=hidden-belt')).statusCode, 200);
      const unknown = await complementary(t, 'product_code=nope');
      assert.equal(unknown.statusCode, 404);
      assert.equal(json(unknown).status.code, -1);
      assert.equal((await complementary(t, '')).statusCode, 400);
      for (const limit of ['0', '51', 'x'])
        assert.equal((await complementary(t, `product_code=shirt&limit=${limit}`)).statusCode, 422);
      const other = await t.container.stores.createStore({ workspaceName: `comp-foreign-${Date.now()}`, name: 'F' });
      assert.equal(
        (await t.request({ method: 'GET', url: `/v1/complementary?store_uuid=${other.store_uuid}&product_code=shirt` }))
          .statusCode,
        404,
      );
      // a product whose category the taxonomy does not place has no complements
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [p('mystery', { Category: 'Gadgets', Department: 'Men' })],
      });
      assert.deepEqual(json(await complementary(t, 'product_code=mystery')).data, { categories: [] });
    });

    it("follows the source product's own changes at once: a new category, a hidden or a deleted product", async () => {
      const t = ctx();
      const post = (product: Record<string, unknown>) =>
        t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: [product] });
      const titles = async () =>
        json(await complementary(t, 'product_code=mover')).data.categories.map((c: { title: string }) => c.title);
      await post(p('mover', { Category: 'Shirts', Department: 'Men', Colour: 'White' }));
      assert.ok((await titles()).includes('BOTTOMWEAR'));
      await post(p('mover', { Category: 'Trousers', Department: 'Men', Colour: 'White' }));
      const asTrousers = await titles();
      assert.ok(asTrousers.includes('TOPWEAR') && !asTrousers.includes('BOTTOMWEAR'), asTrousers.join(','));
      await post(p('mover', { Category: 'Trousers', Department: 'Men', Colour: 'White', Status: 'draft' }));
      assert.ok((await titles()).includes('TOPWEAR'), 'a hidden source still gets complements');
      await t.request({ method: 'DELETE', url: `/v1/products?store_uuid=${t.store.store_uuid}&sku_codes=mover` });
      assert.equal((await complementary(t, 'product_code=mover')).statusCode, 404);
    });

    it('prefers products bought together with the source once enough baskets hold both', async () => {
      const t = ctx();
      const bottoms = async () =>
        json(await complementary(t, 'product_code=shirt'))
          .data.categories.find((c: { title: string }) => c.title === 'BOTTOMWEAR')
          .products.map((x: { product_code: string }) => x.product_code) as string[];
      const before = await bottoms();
      assert.deepEqual(before.slice(0, 2), ['trousers-formal', 'unisex-jeans'], before.join());
      const basket = (session: string, codes: string[], type = 'add_to_cart') =>
        t.request({
          method: 'POST',
          url: `/v1/events?store_uuid=${t.store.store_uuid}`,
          payload: codes.map((code) => ({
            event_id: `${session}-${code}`,
            type,
            product_code: code,
            session_id: session,
          })),
        });
      // One basket is not enough support; views never make a basket.
      await basket('b1', ['shirt', 'trousers-cheap']);
      await basket('v1', ['shirt', 'trousers-cheap'], 'view');
      assert.deepEqual(await bottoms(), before);
      await basket('b2', ['shirt', 'trousers-cheap', 'skirt'], 'purchase');
      const after = await bottoms();
      // trousers-formal is pinned (the test above): pins first, then what shoppers bought together.
      assert.deepEqual(after.slice(0, 2), ['trousers-formal', 'trousers-cheap'], after.join());
      assert.deepEqual([...after].sort(), [...before].sort(), 'the same products, the co-bought one earlier');
      const codes = json(await complementary(t, 'product_code=shirt')).data.categories.flatMap(
        (c: { products: Array<{ product_code: string }> }) => c.products.map((x) => x.product_code),
      );
      assert.ok(!codes.includes('skirt'), 'bought together once only, and not a fitting department');
    });

    it("uses a store's own taxonomy", async () => {
      const t = ctx();
      await t.container.complements.setTaxonomy(t.store.store_uuid, {
        groups: { TOPS: ['Shirts'], TIME: ['Watches'] },
        complements: { TOPS: ['TIME'] },
      });
      const store = await t.container.stores.getStore(t.store.store_uuid);
      const { categories } = await t.container.complements.complementary(store, 'shirt', 10);
      assert.deepEqual(
        categories.map((c) => c.title),
        ['TIME'],
      );
    });
    // Baskets re-read on every request (by default within a second): the answers show the events just sent.
  },
  { signalsRefreshMs: 0 },
);

// A budget that holds one store's index at a time (any index is over it: each is kept alone).
describeEachDialect('complete the look across more stores than the budget holds', (ctx) => {
  it('keeps warm only the stores whose index is held: an evicted one waits for its next request', async () => {
    const t = ctx();
    const other = await t.container.stores.createStore({ workspaceName: 'Other', name: 'Other' });
    const put = (storeUuid: string, token: string, products: unknown[]) =>
      t.request({ method: 'POST', url: `/v1/products?store_uuid=${storeUuid}`, payload: products, token });
    await put(t.store.store_uuid, t.store.api_token, CATALOG);
    await put(other.store_uuid, other.api_token, CATALOG);
    const { storage, changeLog, productsRead, stores } = t.container;
    // Each build reads the store's whole catalog: counting those reads counts the builds.
    let builds = 0;
    const counted = Object.create(productsRead) as typeof productsRead;
    counted.pageAll = (...args) => {
      builds++;
      return productsRead.pageAll(...args);
    };
    const complements = new ComplementsService(storage, changeLog, counted, stores, { indexBytes: 1 });
    const store = (uuid: string) => stores.getStore(uuid);
    try {
      const first = await store(t.store.store_uuid);
      const second = await store(other.store_uuid);
      assert.ok((await complements.complementary(first, 'shirt', 4)).categories.length > 0);
      assert.ok((await complements.complementary(second, 'shirt', 4)).categories.length > 0);
      assert.equal(builds, 2);
      assert.equal(complements.indexState(first.id), undefined, 'the first store was pushed out');
      assert.ok(complements.indexState(second.id));
      // The first store's catalog moves: the warm passes must not build it again (it would push out the other).
      await put(t.store.store_uuid, t.store.api_token, [{ ...CATALOG[0], 'Selling Price': '31' }]);
      complements.worker.start();
      await new Promise((resolve) => setTimeout(resolve, 800)); // three passes, every 250 ms
      await complements.worker.stop();
      assert.equal(builds, 2, 'no pass built an evicted store again');
      assert.equal(complements.indexState(first.id), undefined);
      assert.ok(complements.indexState(second.id), 'the held store stays');
      // Its next request builds it again.
      assert.ok((await complements.complementary(await store(t.store.store_uuid), 'shirt', 4)).categories.length > 0);
      assert.ok(complements.indexState(first.id));
    } finally {
      await complements.worker.stop();
      complements.close();
    }
  });
});

// Which stores a process keeps warm: those it wrote to or answered complete the look for, not those
// it only read (a search of a cold store among thousands would build its index in the background).
describeEachDialect('complete the look kept warm after writes, not after reads', (ctx) => {
  it('builds in the background the index of a store written here, not of one only searched or queried here', async () => {
    const t = ctx();
    const read = await t.container.stores.createStore({ workspaceName: 'Read', name: 'Read' });
    await t.container.products.upsertProducts(await t.container.stores.getStore(read.store_uuid), CATALOG);
    const searched = await t.request({
      url: `/v1/search?store_uuid=${read.store_uuid}&query=shirt`,
      token: read.api_token,
    });
    assert.equal(searched.statusCode, 200);
    // A shopper's POST is a read too: a listing query with filters and facets.
    const queried = await t.request({
      method: 'POST',
      url: `/v1/search/query?store_uuid=${read.store_uuid}`,
      token: read.api_token,
      payload: { query: 'shirt', facets: ['Colour'], filters: { Colour: ['Blue'] } },
    });
    assert.equal(queried.statusCode, 200, queried.body);
    const written = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: CATALOG,
    });
    assert.equal(written.statusCode, 200, written.body);
    const { complements } = t.container;
    complements.worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 600)); // two passes, every 250 ms
    } finally {
      await complements.worker.stop();
    }
    assert.ok(complements.indexState(t.store.store_uuid), 'the store written here is kept warm');
    assert.equal(
      complements.indexState(read.store_uuid),
      undefined,
      'the store only searched and queried here waits for its first request',
    );
  });
});
