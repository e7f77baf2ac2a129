import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';

const CATALOG = [
  {
    product_code: 'D1',
    'Product Name': 'Femella Women Red Dress',
    Category: 'Dresses',
    Department: 'Women',
    Colour: 'Red',
    Brand: 'Femella',
  },
  {
    product_code: 'D2',
    'Product Name': 'Remanika Women Blue Dress',
    Category: 'Dresses',
    Department: 'Women',
    Colour: 'Blue',
  },
  { product_code: 'D3', 'Product Name': 'Women Red Top', Category: 'Tops', Department: 'Women', Colour: 'Red' },
  { product_code: 'J1', 'Product Name': 'Spykar Men Blue Jeans', Category: 'Jeans', Department: 'Men', Colour: 'Blue' },
  {
    product_code: 'S1',
    'Product Name': 'Nike Men Running Shoes',
    Category: 'Sports Shoes',
    Department: 'Men',
    Colour: 'Black',
    Brand: 'Nike',
  },
  {
    product_code: 'S2',
    'Product Name': 'Puma Men Casual Shoes',
    Category: 'Casual Shoes',
    Department: 'Men',
    Colour: 'White',
    Brand: 'Puma',
  },
  {
    product_code: 'T1',
    'Product Name': 'Roadster Men Navy T-Shirt',
    Category: 'Tshirts',
    Department: 'Men',
    Colour: 'Navy Blue',
  },
  { product_code: 'E1', 'Product Name': 'Écharpe Rosé', Category: 'Scarves', Department: 'Women', Colour: 'Pink' },
  {
    product_code: 'V1-S',
    parent_code: 'V1',
    'Product Name': 'Variant Shirt Small',
    Category: 'Shirts',
    Department: 'Men',
  },
  { product_code: '15970', 'Product Name': 'Turtle Check Men Navy Blue Shirt', Category: 'Shirts', Department: 'Men' },
].map((p) => ({ 'Selling Price': '10', 'Image URL 1': `https://img.example/${p.product_code}.jpg`, ...p }));

async function search(t: TestApp, query: string, extra = '') {
  const res = await t.request({
    method: 'GET',
    url: `/v1/search?store_uuid=${t.store.store_uuid}&query=${encodeURIComponent(query)}${extra}`,
  });
  return { status: res.statusCode, body: json(res) };
}
const codes = async (t: TestApp, query: string) =>
  (await search(t, query)).body.data.map((r: { product_code: string }) => r.product_code) as string[];

describeEachDialect('GET /v1/search', (ctx) => {
  it('indexes the catalog through the change feed and answers in the envelope', async () => {
    const t = ctx();
    const res = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: CATALOG,
    });
    assert.equal(json(res).data.inserted, CATALOG.length);
    const { status, body } = await search(t, 'red dress');
    assert.equal(status, 200);
    assert.equal(body.status.code, 0);
    assert.equal(body.data[0].product_code, 'D1');
    assert.equal(body.data[0].title, 'Femella Women Red Dress');
    // The card a results grid needs, in the same answer: family, picture, price (the price rule applies).
    assert.deepEqual(
      { ...body.data[0], score: undefined },
      {
        product_code: 'D1',
        title: 'Femella Women Red Dress',
        score: undefined,
        parent_code: null,
        image_url: 'https://img.example/D1.jpg',
        price: 10,
        currency: '',
        // One card per family and colour by default: its visible SKUs and in-stock sizes.
        variant_count: 1,
        sizes: [],
      },
    );
    for (const r of body.data) assert.ok(r.score > 0 && r.score <= 1);
    for (let i = 1; i < body.data.length; i++) assert.ok(body.data[i - 1].score >= body.data[i].score);
  });

  it('answers the products with every word, phrase matches first; partial matches only when none has them all', async () => {
    const t = ctx();
    assert.deepEqual(await codes(t, 'red dress'), ['D1']);
    assert.deepEqual((await codes(t, 'women red')).sort(), ['D1', 'D3']);
    const phrase = await codes(t, 'red top');
    assert.deepEqual(phrase, ['D3']);
    // No product has every word: the query relaxed, its most common word dropped first.
    const relaxed = await search(t, 'femella spaceship');
    assert.deepEqual(
      relaxed.body.data.map((r: { product_code: string }) => r.product_code),
      ['D1'],
    );
  });

  it('handles plurals, typos, accents, the last word as a prefix, and case', async () => {
    const t = ctx();
    assert.deepEqual((await codes(t, 'dresses')).slice(0, 2).sort(), ['D1', 'D2']);
    assert.deepEqual((await codes(t, 'jeens')).slice(0, 1), ['J1']);
    assert.deepEqual((await codes(t, 'nike sho')).slice(0, 1), ['S1']);
    assert.deepEqual((await codes(t, 'ECHARPE rose')).slice(0, 1), ['E1']);
    assert.ok((await codes(t, 'shoe')).includes('S2'));
    // numbers are never typo-corrected
    assert.deepEqual(await codes(t, '15971'), []);
  });

  it('filters in the catalog filter language, never returning a product that breaks a condition', async () => {
    const t = ctx();
    const byCode = new Map(CATALOG.map((p) => [p.product_code, p as unknown as Record<string, string>]));
    const filtered = async (query: string, filters: object) => {
      const res = await search(t, query, `&filters=${encodeURIComponent(JSON.stringify(filters))}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body.data as Array<{ product_code: string }>).map((hit) => hit.product_code);
    };
    // Without the filter "red" also finds blue and other items through partial matches.
    const red = await filtered('red dress', { colour: 'RED' });
    assert.ok(red.length > 0);
    for (const code of red) assert.equal(byCode.get(code)!.Colour, 'Red', code);
    assert.deepEqual((await codes(t, 'red dress')).filter((code) => red.includes(code)).slice(0, red.length), red);
    // Department by audience (the store's vocabulary), names in any case, ranges through the price rule.
    const men = await filtered('blue', { Department: 'Mens' });
    assert.ok(men.length > 0);
    for (const code of men) assert.equal(byCode.get(code)!.Department, 'Men', code);
    assert.deepEqual(await filtered('blue', { 'Selling Price': { gt: 10 } }), []);
    assert.deepEqual(
      await filtered('dress', { Category: ['Dresses'], 'selling price': { lte: 10 } }).then((c) => c.sort()),
      ['D1', 'D2'],
    );
    // An exact code is still first when it passes, and left out when it does not.
    assert.deepEqual(await filtered('15970', { Department: 'Men' }).then((c) => c[0]), '15970');
    assert.ok(!(await filtered('15970', { Department: 'Women' })).includes('15970'));
    // An attribute no product has matches nothing; bad filters are the client's error, naming the parameter.
    assert.deepEqual(await filtered('dress', { Fabric: 'silk' }), []);
    const notJson = await search(t, 'dress', '&filters=%7Bnope');
    assert.equal(notJson.status, 400);
    assert.match(JSON.stringify(notJson.body), /'filters' must be valid JSON/);
    const wrong = await search(t, 'dress', `&filters=${encodeURIComponent('{"Selling Price":{"above":3}}')}`);
    assert.equal(wrong.status, 422);
    assert.match(JSON.stringify(wrong.body), /filters\.Selling Price: unknown operator/);
  });

  it('puts an exact product_code or parent_code first with score 1', async () => {
    const t = ctx();
    const byCode = (await search(t, '15970')).body.data;
    assert.equal(byCode[0].product_code, '15970');
    assert.equal(byCode[0].score, 1);
    const byParent = (await search(t, 'V1')).body.data[0];
    assert.equal(byParent.product_code, 'V1-S');
    assert.equal(byParent.parent_code, 'V1', 'the hit names its family');
  });

  it("applies the store's synonyms at query time", async () => {
    const t = ctx();
    assert.equal((await codes(t, 'sneakers')).length, 0);
    await t.container.search.setSynonyms(t.store.store_uuid, {
      synonyms: [
        ['sneakers', 'sports shoes'],
        ['tee', 't-shirt'],
      ],
    });
    assert.equal((await codes(t, 'sneakers'))[0], 'S1');
    assert.equal((await codes(t, 'navy tee'))[0], 'T1');
  });

  it('reflects updates, deactivation and deletion at once', async () => {
    const t = ctx();
    const send = (method: 'POST' | 'PUT' | 'DELETE', body?: unknown, query = '') =>
      t.request({ method, url: `/v1/products?store_uuid=${t.store.store_uuid}${query}`, payload: body as object });
    await send('POST', [
      {
        product_code: 'N1',
        'Product Name': 'Velvet Blazer',
        Category: 'Blazers',
        'Selling Price': '99',
        'Image URL 1': 'https://i/n1.jpg',
      },
    ]);
    assert.deepEqual(await codes(t, 'velvet blazer'), ['N1']);
    await send('PUT', [{ product_code: 'N1', Status: 'inactive' }]);
    assert.deepEqual(await codes(t, 'velvet blazer'), []);
    await send('PUT', [{ product_code: 'N1', Status: 'active', 'Product Name': 'Corduroy Blazer' }]);
    assert.deepEqual(await codes(t, 'corduroy'), ['N1']);
    assert.deepEqual(await codes(t, 'velvet'), []);
    await send('DELETE', undefined, '&sku_codes=N1');
    assert.deepEqual(await codes(t, 'corduroy'), []);
  });

  it('corrects typos of words indexed after the vocabulary was first read, by a read or by the background run', async () => {
    const t = ctx();
    const add = (code: string, name: string) =>
      t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [
          {
            product_code: code,
            'Product Name': name,
            Category: 'Kaftans',
            'Selling Price': '40',
            'Image URL 1': `https://i/${code}.jpg`,
          },
        ],
      });
    // 1. the vocabulary is read (and kept) while neither word exists
    assert.deepEqual(await codes(t, 'saffrom'), []);
    assert.deepEqual(await codes(t, 'tangerime'), []);
    // 2. indexed by this search's read-your-writes step
    await add('K1', 'Saffron Kaftan');
    assert.deepEqual(await codes(t, 'saffrom'), ['K1']);
    // 3. indexed by the background run before the search: the search finds the index up to date
    await add('K2', 'Tangerine Kaftan');
    await t.container.searchIndexer.follower.catchUp(t.store.store_uuid);
    assert.deepEqual(await codes(t, 'tangerime'), ['K2']);
  });

  it('leaves out a product hidden since it was indexed while the index is behind a large backlog', async () => {
    const t = ctx();
    const product = (code: string, name: string, extra: Record<string, string> = {}) => ({
      product_code: code,
      'Product Name': name,
      Category: 'Capes',
      'Selling Price': '40',
      'Image URL 1': `https://i/${code}.jpg`,
      ...extra,
    });
    const post = (payload: object[]) =>
      t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload });
    await post([product('W1', 'Wolfram Cape')]);
    assert.deepEqual(await codes(t, 'wolfram'), ['W1']);
    // 1. hidden, together with more changes than a read applies inline: the index still holds W1
    await post([product('W1', 'Wolfram Cape', { Status: 'inactive' })]);
    for (let batch = 0; batch < 6; batch++)
      await post(Array.from({ length: 100 }, (_, i) => product(`F${batch}-${i}`, `Filler Cape ${i}`)));
    assert.ok((await t.container.searchIndexer.follower.lag(t.store.store_uuid)) > 500);
    assert.deepEqual(await codes(t, 'wolfram'), []);
    // 2. once the index has caught up, the same answer
    await t.container.searchIndexer.follower.catchUp(t.store.store_uuid);
    assert.deepEqual(await codes(t, 'wolfram'), []);
  });

  it('rebuilds the index from the products without losing or duplicating entries', async () => {
    const t = ctx();
    const before = await codes(t, 'men');
    const rebuilt = await t.container.searchIndexer.rebuild(t.store.store_uuid);
    assert.ok(rebuilt.indexed >= CATALOG.length);
    assert.deepEqual(await codes(t, 'men'), before);
    assert.equal(new Set(before).size, before.length);
  });

  it('pages with offset and limit, stably', async () => {
    const t = ctx();
    const all = (await search(t, 'men', '&limit=100')).body.data.map((r: { product_code: string }) => r.product_code);
    const page = (await search(t, 'men', '&offset=1&limit=2')).body.data.map(
      (r: { product_code: string }) => r.product_code,
    );
    assert.deepEqual(page, all.slice(1, 3));
  });

  it('refuses empty queries and bad paging, and survives hostile text', async () => {
    const t = ctx();
    for (const query of ['', '   ']) assert.equal((await search(t, query)).status, 422);
    assert.equal(
      (await t.request({ method: 'GET', url: `/v1/search?store_uuid=${t.store.store_uuid}` })).statusCode,
      400,
    );
    assert.equal((await search(t, 'x'.repeat(1001))).status, 422);
    assert.equal((await search(t, 'dress '.repeat(166))).status, 200);
    for (const extra of ['&offset=-1', '&offset=10001', '&offset=abc', '&limit=0', '&limit=101', '&limit=x']) {
      const res = await search(t, 'dress', extra);
      assert.equal(res.status, 422, extra);
      assert.match(res.body.detail, /offset|limit/);
    }
    for (const query of [
      '"',
      '*',
      'NEAR',
      'OR',
      '-',
      ':',
      '"dress" OR * NEAR(a b)',
      '(((',
      '😀',
      'שמלה',
      'e\u0301charpe',
      "'; DROP TABLE products; --",
    ]) {
      const res = await search(t, query);
      assert.equal(res.status, 200, query);
      assert.ok(Array.isArray(res.body.data));
    }
    assert.equal((await codes(t, 'e\u0301charpe'))[0], 'E1');
    // q is an alias of query
    const alias = await t.request({ method: 'GET', url: `/v1/search?store_uuid=${t.store.store_uuid}&q=jeans` });
    assert.equal(json(alias).data[0].product_code, 'J1');
  });

  it('leaves no pending GIN entries behind once the changes are applied (PostgreSQL)', async (test) => {
    const t = ctx();
    if (t.dialect !== 'postgres') return test.skip('PostgreSQL only');
    const { sql } = await import('kysely');
    const pendingPages = async () =>
      (
        await sql<{ pages: number }>`SELECT gin_clean_pending_list('search_docs_tsv_idx'::regclass) AS pages`.execute(
          t.container.storage.db,
        )
      ).rows[0].pages;
    const products = Array.from({ length: 40 }, (_, i) => ({ ...CATALOG[0], product_code: `GIN${i}` }));
    // 1. written without the follower's run: the index's own fast update leaves its pending list
    await t.container.searchIndexer.settled();
    await pendingPages();
    await t.container.storage.db
      .transaction()
      .execute((trx) =>
        sql`INSERT INTO search_docs (store_id, product_code, title, title_terms, tsv) VALUES (${t.store.store_uuid}, 'raw', 'raw', 'raw', to_tsvector('simple', 'raw words'))`.execute(
          trx,
        ),
      );
    assert.ok((await pendingPages()) > 0, 'a plain insert goes to the pending list');
    // 2. through the API and the change feed: merged after the batch is applied
    await t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: products });
    assert.equal((await search(t, 'femella')).status, 200);
    await t.container.searchIndexer.settled();
    assert.equal(await pendingPages(), 0);
  });

  it("answers another workspace's store with 404", async () => {
    const t = ctx();
    const other = await t.container.stores.createStore({ workspaceName: `search-foreign-${Date.now()}`, name: 'F' });
    const res = await t.request({ method: 'GET', url: `/v1/search?store_uuid=${other.store_uuid}&query=dress` });
    assert.equal(res.statusCode, 404);
  });
});
