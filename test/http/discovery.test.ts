import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';

/**
 * A small fashion catalog with families: each family in two colours and three sizes (some out of
 * stock), plus products without a family. Expected counts below are computed from this list in the
 * test, independently of the service.
 */
type Product = Record<string, string | number>;
const FAMILIES = [
  { code: 'DR1', name: 'Femella Summer Dress', category: 'Dresses', department: 'Women', brand: 'Femella', price: 30 },
  { code: 'DR2', name: 'Remanika Maxi Dress', category: 'Dresses', department: 'Women', brand: 'Remanika', price: 55 },
  { code: 'SH1', name: 'Roadster Linen Shirt', category: 'Shirts', department: 'Men', brand: 'Roadster', price: 25 },
  { code: 'SH2', name: 'Spykar Denim Shirt', category: 'Shirts', department: 'Men', brand: 'Spykar', price: 40 },
  { code: 'JE1', name: 'Levis Slim Jeans', category: 'Jeans', department: 'Men', brand: 'Levis', price: 60 },
];
const COLOURS = ['Red', 'Blue'];
const SIZES = ['L', 'S', 'M'];
const CATALOG: Product[] = [];
for (const [f, family] of FAMILIES.entries())
  for (const [c, colour] of COLOURS.entries())
    for (const [s, size] of SIZES.entries())
      CATALOG.push({
        product_code: `${family.code}-${colour[0]}-${size}`,
        parent_code: family.code,
        'Product Name': `${family.name} ${colour}`,
        Category: family.category,
        Department: family.department,
        Brand: family.brand,
        Colour: colour,
        Size: size,
        // Family 0 red M and every family's blue L are sold out.
        Stock: (f === 0 && c === 0 && size === 'M') || (c === 1 && size === 'L') ? 0 : 5 + s,
        'Selling Price': String(family.price + c * 5),
        Currency: 'EUR',
        'Image URL 1': `https://img.example/${family.code}-${colour}.jpg`,
      });
CATALOG.push(
  {
    product_code: 'BAG1',
    'Product Name': 'Femella Red Tote Bag',
    Category: 'Handbags',
    Department: 'Women',
    Brand: 'Femella',
    Colour: 'Red',
    'Selling Price': '80',
    'Image URL 1': 'https://img.example/BAG1.jpg',
  },
  {
    product_code: 'CAP1',
    'Product Name': 'Roadster Blue Cap',
    Category: 'Caps',
    Department: 'Men',
    Brand: 'Roadster',
    Colour: 'Blue',
    // Not a valid price: the quality checks keep it out of every listing (status problem).
    'Selling Price': 'n/a',
    'Image URL 1': 'https://img.example/CAP1.jpg',
  },
);
/** What a shopper can see: every product but the one the quality checks refused. */
const VISIBLE = CATALOG.filter((p) => p.product_code !== 'CAP1');

const familyOf = (p: Product) => String(p.parent_code ?? p.product_code);
const inStock = (p: Product) => p.Stock === undefined || Number(p.Stock) > 0;

/** Families × colours of `products` (what one card each stands for). */
const cardsOf = (products: Product[]) => new Set(products.map((p) => `${familyOf(p)}|${p.Colour}`));

/** A facet counted independently: per value, the distinct family × colour groups holding it. */
function expectedFacet(products: Product[], field: string) {
  const groups = new Map<string, Set<string>>();
  for (const p of products) {
    if (p[field] === undefined || (field === 'Size' && !inStock(p))) continue;
    const value = String(p[field]);
    if (!groups.has(value)) groups.set(value, new Set());
    groups.get(value)!.add(`${familyOf(p)}|${p.Colour}`);
  }
  return [...groups]
    .map(([value, set]) => ({ value, count: set.size }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
}

async function listing(t: TestApp, body: object, token?: string) {
  const res = await t.request({
    method: 'POST',
    url: `/v1/search/query?store_uuid=${t.store.store_uuid}`,
    payload: body,
    ...(token ? { token } : {}),
  });
  return { status: res.statusCode, body: json(res) };
}

async function getSearch(t: TestApp, params: string) {
  const res = await t.request({ method: 'GET', url: `/v1/search?store_uuid=${t.store.store_uuid}&${params}` });
  return { status: res.statusCode, body: json(res), total: res.headers['x-total-count'] };
}

async function setRules(t: TestApp, rules: unknown[]) {
  const res = await t.app.inject({
    method: 'PUT',
    url: `/admin/v1/stores/${t.store.store_uuid}/search-rules`,
    headers: adminHeaders,
    payload: { rules },
  });
  return { status: res.statusCode, body: json(res) };
}

describeEachDialect(
  'storefront discovery: POST /v1/search/query, GET /v1/search, suggestions, rules',
  (ctx) => {
    before(async () => {
      const t = ctx();
      const res = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: CATALOG,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.inserted, CATALOG.length);
    });

    it('browses every visible product with disjunctive facets counted over the whole result', async () => {
      const t = ctx();
      const all = await listing(t, { facets: ['Colour', 'category', 'Size'], limit: 5 });
      assert.equal(all.status, 200, JSON.stringify(all.body));
      const data = all.body.data;
      assert.equal(data.total, cardsOf(VISIBLE).size);
      assert.equal(data.hits.length, 5);
      assert.deepEqual(data.facets.Colour, expectedFacet(VISIBLE, 'Colour'));
      assert.deepEqual(data.facets.category, expectedFacet(VISIBLE, 'Category'));
      assert.deepEqual(data.facets.Size, expectedFacet(VISIBLE, 'Size'));
      assert.deepEqual(data.price_range, { min: 25, max: 80 });
      assert.equal(data.corrected_query, null);
      assert.deepEqual(data.applied_rules, []);

      // Colour = Red chosen: the Colour facet still counts Blue; every other facet counts red only.
      const red = await listing(t, { filters: { Colour: 'Red' }, facets: ['Colour', 'Category'], limit: 100 });
      const redProducts = VISIBLE.filter((p) => p.Colour === 'Red');
      assert.deepEqual(red.body.data.facets.Colour, expectedFacet(VISIBLE, 'Colour'));
      assert.deepEqual(red.body.data.facets.Category, expectedFacet(redProducts, 'Category'));
      assert.equal(red.body.data.total, cardsOf(redProducts).size);
      for (const hit of red.body.data.hits)
        assert.equal(CATALOG.find((p) => p.product_code === hit.product_code)!.Colour, 'Red');

      // The price range ignores the price filter itself; an attribute no product has: empty, not an error.
      const cheap = await listing(t, { filters: { 'Selling Price': { lte: 30 } } });
      assert.deepEqual(cheap.body.data.price_range, { min: 25, max: 80 });
      for (const hit of cheap.body.data.hits) assert.ok(hit.price <= 30);
      const none = await listing(t, { filters: { Fabric: 'silk' }, facets: ['Fabric'] });
      assert.equal(none.status, 200);
      assert.equal(none.body.data.total, 0);
      assert.deepEqual(none.body.data.facets.Fabric, []);
    });

    it('groups one card per family and colour (or family, or SKU) with in-stock sizes', async () => {
      const t = ctx();
      const byColour = await listing(t, { query: 'femella summer dress', limit: 100 });
      const hits = byColour.body.data.hits as Array<Record<string, any>>;
      assert.equal(hits.length, 2, JSON.stringify(hits.map((h) => h.product_code)));
      const red = hits.find((h) => h.product_code.startsWith('DR1-R'))!;
      // The family's red sizes in stock, in size-chart order (M is sold out); three SKUs.
      assert.deepEqual(red.sizes, ['S', 'L']);
      assert.equal(red.variant_count, 3);
      assert.equal(red.parent_code, 'DR1');
      const blue = hits.find((h) => h.product_code.startsWith('DR1-B'))!;
      assert.deepEqual(blue.sizes, ['S', 'M']);

      const byParent = await listing(t, { query: 'femella summer dress', group_variants: 'parent' });
      assert.equal(byParent.body.data.hits.length, 1);
      assert.equal(byParent.body.data.hits[0].variant_count, 6);
      assert.deepEqual(byParent.body.data.hits[0].sizes, ['S', 'M', 'L']);
      const skus = await listing(t, { query: 'femella summer dress', group_variants: 'false', limit: 100 });
      assert.equal(skus.body.data.total, 6);
      assert.equal(skus.body.data.hits[0].variant_count, undefined);

      // A Size filter matches a family only through an in-stock SKU of that size.
      const medium = await listing(t, { filters: { Size: 'M' }, limit: 100 });
      const expected = cardsOf(CATALOG.filter((p) => p.Size === 'M' && inStock(p)));
      assert.equal(medium.body.data.total, expected.size);
      assert.ok(!medium.body.data.hits.some((h: { product_code: string }) => h.product_code.startsWith('DR1-R')));

      // An exact product_code still answers that SKU first.
      const exact = await getSearch(t, 'query=SH2-B-S');
      assert.equal(exact.body.data[0].product_code, 'SH2-B-S');
      assert.equal(exact.body.data[0].score, 1);
    });

    it('sorts monotonically with ties by product_code, and pages never overlap', async () => {
      const t = ctx();
      for (const [sort, key, direction] of [
        ['price_asc', 'price', 1],
        ['price_desc', 'price', -1],
        ['name_asc', 'title', 1],
      ] as const) {
        const seen = new Set<string>();
        let previous: Record<string, any> | undefined;
        for (let offset = 0; offset < VISIBLE.length; offset += 4) {
          const page = await listing(t, { sort, group_variants: 'false', offset, limit: 4 });
          assert.equal(page.status, 200);
          for (const hit of page.body.data.hits) {
            assert.ok(!seen.has(hit.product_code), `${sort}: ${hit.product_code} twice`);
            seen.add(hit.product_code);
            if (previous && previous[key] !== null && hit[key] !== null) {
              const a = key === 'title' ? previous[key].toLowerCase() : previous[key];
              const b = key === 'title' ? hit[key].toLowerCase() : hit[key];
              assert.ok(direction * (a < b ? -1 : a > b ? 1 : 0) <= 0, `${sort}: ${a} then ${b}`);
              if (a === b) assert.ok(previous.product_code < hit.product_code);
            }
            // Products without a valid price come last.
            if (previous && key === 'price') assert.ok(!(previous.price === null && hit.price !== null));
            previous = hit;
          }
        }
        assert.equal(seen.size, VISIBLE.length, sort);
      }
      const newest = await listing(t, { limit: 3, group_variants: 'false' });
      assert.equal(newest.status, 200);
      // GET /v1/search takes sort and tells the total in X-Total-Count.
      const cheapFirst = await getSearch(t, 'query=shirt&sort=price_asc&limit=2');
      assert.equal(cheapFirst.status, 200);
      assert.equal(cheapFirst.total, String(cardsOf(CATALOG.filter((p) => p.Category === 'Shirts')).size));
      assert.ok(cheapFirst.body.data[0].price <= cheapFirst.body.data[1].price);
      const filtered = await getSearch(t, `query=shirt&filters=${encodeURIComponent('{"Colour":"Blue"}')}`);
      assert.equal(filtered.total, '2');
    });

    it('applies pins, hides, boosts, buries and time windows, and names the rules that acted', async () => {
      const t = ctx();
      const now = Date.now();
      const saved = await setRules(t, [
        { id: 'pin-bag', when: { query: 'femella', match: 'contains' }, pin: [{ product_code: 'BAG1', position: 1 }] },
        { id: 'hide-recall', when: { always: true }, hide: ['SH1-R-S', 'SH1-R-L', 'SH1-R-M'] },
        {
          id: 'boost-blue',
          when: { query: 'dress', match: 'exact' },
          boost: [{ filters: { Colour: 'Blue' }, weight: 50 }],
        },
        { id: 'bury-jeans', when: { always: true }, bury: [{ filters: { Category: 'Jeans' } }] },
        {
          id: 'later',
          when: { always: true },
          hide: ['BAG1'],
          active_from: new Date(now + 3_600_000).toISOString(),
        },
      ]);
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      try {
        const femella = await listing(t, { query: 'femella dress' });
        assert.equal(femella.body.data.hits[0].product_code, 'BAG1', 'pinned whatever the words');
        assert.ok(femella.body.data.applied_rules.includes('pin-bag'));
        // Pins hold their position whatever the sort.
        const sorted = await listing(t, { query: 'femella dress', sort: 'price_desc' });
        assert.equal(sorted.body.data.hits[0].product_code, 'BAG1');

        // Hidden products never show: hits, totals and facets agree.
        const shirts = await listing(t, { filters: { Category: 'Shirts' }, facets: ['Brand'], limit: 100 });
        assert.ok(!shirts.body.data.hits.some((h: { product_code: string }) => h.product_code.startsWith('SH1-R')));
        const visibleShirts = CATALOG.filter(
          (p) => p.Category === 'Shirts' && !String(p.product_code).startsWith('SH1-R'),
        );
        assert.equal(shirts.body.data.total, cardsOf(visibleShirts).size);
        assert.deepEqual(shirts.body.data.facets.Brand, expectedFacet(visibleShirts, 'Brand'));
        assert.ok(shirts.body.data.applied_rules.includes('hide-recall'));

        // Boost: the blue dresses first for "dress"; bury: jeans after everything else in any sort.
        const dress = await listing(t, { query: 'dress', limit: 100 });
        assert.equal(dress.body.data.hits[0].title.endsWith('Blue'), true, JSON.stringify(dress.body.data.hits[0]));
        assert.ok(dress.body.data.applied_rules.includes('boost-blue'));
        const browse = await listing(t, { sort: 'price_asc', limit: 100 });
        const categories = browse.body.data.hits.map(
          (h: { product_code: string }) => CATALOG.find((p) => p.product_code === h.product_code)!.Category,
        );
        const firstJeans = categories.indexOf('Jeans');
        assert.ok(
          firstJeans > 0 && categories.slice(firstJeans).every((c: string) => c === 'Jeans'),
          categories.join(),
        );
        // A rule outside its time window does nothing.
        assert.ok(browse.body.data.hits.some((h: { product_code: string }) => h.product_code === 'BAG1'));
        assert.ok(!browse.body.data.applied_rules.includes('later'));

        const read = await t.app.inject({
          method: 'GET',
          url: `/admin/v1/stores/${t.store.store_uuid}/search-rules`,
          headers: adminHeaders,
        });
        assert.equal(json(read).data.rules.length, 5);
      } finally {
        assert.equal((await setRules(t, [])).status, 200);
      }
    });

    it('refuses malformed rules with 422 naming the path', async () => {
      const t = ctx();
      for (const [rule, path] of [
        [
          { id: 'x', when: { always: true }, boost: [{ filters: { Fabrik: 'silk' }, weight: 2 }] },
          'rules[0].boost[0].filters.Fabrik',
        ],
        [
          { id: 'x', when: { always: true }, bury: [{ filters: { 'Selling Price': { above: 3 } } }] },
          'rules[0].bury[0].filters',
        ],
        [{ id: 'x', when: { sometimes: true } }, 'rules[0].when'],
        [{ id: 'x', when: { always: true }, pin: [{ product_code: 'A', position: 0 }] }, 'rules[0].pin[0].position'],
        [{ id: 'x', when: { always: true }, active_from: 'tomorrow' }, 'rules[0].active_from'],
      ] as const) {
        const res = await setRules(t, [rule]);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.ok(JSON.stringify(res.body).includes(path), `${path} in ${JSON.stringify(res.body)}`);
      }
    });

    it('browses a collection in its order, and searches within it', async () => {
      const t = ctx();
      const store = await t.container.stores.getStore(t.store.store_uuid);
      await t.container.collections.create(store, [
        { id: 'dresses', name: 'Dresses', filters: { Category: 'Dresses' }, heroProducts: ['DR2-B-S'] },
      ]);
      const page = await listing(t, { collection_id: 'dresses', group_variants: 'false', limit: 100 });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.equal(page.body.data.hits[0].product_code, 'DR2-B-S', 'the hero first, as the collection orders it');
      assert.equal(page.body.data.total, CATALOG.filter((p) => p.Category === 'Dresses').length);
      const within = await listing(t, { query: 'maxi', collection_id: 'dresses', group_variants: 'false', limit: 100 });
      assert.ok(within.body.data.hits.every((h: { product_code: string }) => h.product_code.startsWith('DR2')));
      const missing = await listing(t, { collection_id: 'nope' });
      assert.equal(missing.status, 404);
    });

    it('explains zero results: a corrected spelling, else the query relaxed', async () => {
      const t = ctx();
      const typo = await listing(t, { query: 'femela' });
      assert.equal(typo.body.data.corrected_query, 'femella');
      assert.ok(typo.body.data.total > 0);
      const relaxed = await listing(t, { query: 'roadster spaceship' });
      assert.equal(relaxed.body.data.relaxed, true);
      assert.ok(relaxed.body.data.hits.length > 0);
      const plain = await listing(t, { query: 'roadster' });
      assert.equal(plain.body.data.relaxed, false);
    });

    it('suggests completions, products and categories while typing', async () => {
      const t = ctx();
      const res = await t.request({
        method: 'GET',
        url: `/v1/search/suggest?store_uuid=${t.store.store_uuid}&prefix=dre`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = json(res).data;
      assert.equal(data.queries[0].text, 'dress');
      assert.ok(data.queries[0].hits > 0);
      assert.ok(data.products.length > 0 && data.products.every((p: { title: string }) => /dress/i.test(p.title)));
      assert.deepEqual(data.categories, [
        { value: 'Dresses', count: cardsOf(CATALOG.filter((p) => p.Category === 'Dresses')).size },
      ]);
      // Typo-tolerant from the third character.
      const typo = json(
        await t.request({ method: 'GET', url: `/v1/search/suggest?store_uuid=${t.store.store_uuid}&prefix=femr` }),
      ).data;
      assert.ok(
        typo.queries.some((q: { text: string }) => q.text === 'femella'),
        JSON.stringify(typo),
      );
      const long = await t.request({
        method: 'GET',
        url: `/v1/search/suggest?store_uuid=${t.store.store_uuid}&prefix=${'a'.repeat(101)}`,
      });
      assert.equal(long.statusCode, 422);
    });

    it('refuses bad input naming the parameter, never with a 500', async () => {
      const t = ctx();
      const cases: Array<[object, number, RegExp]> = [
        [{ facets: Array.from({ length: 21 }, (_, i) => `f${i}`) }, 422, /facets/],
        [{ facet_limit: 501 }, 422, /facet_limit/],
        [{ sort: 'popularity' }, 422, /sort/],
        [{ group_variants: 'size' }, 422, /group_variants/],
        [{ filters: { Colour: { above: 1 } } }, 422, /filters\.Colour/],
        [{ filters: 'red' }, 422, /filters/],
        [{ limit: 101 }, 422, /limit/],
      ];
      for (const [body, status, pattern] of cases) {
        const res = await listing(t, body);
        assert.equal(res.status, status, JSON.stringify(body));
        assert.match(JSON.stringify(res.body), pattern);
      }
      const notJson = await getSearch(t, 'query=dress&filters=%7Bnope');
      assert.equal(notJson.status, 400);
      const badSort = await getSearch(t, 'query=dress&sort=best');
      assert.equal(badSort.status, 422);
    });

    it("never counts or returns another store's products", async () => {
      const t = ctx();
      const other = await t.container.stores.createStore({ workspaceName: `other-${Date.now()}`, name: 'Other' });
      const otherStore = await t.container.stores.getStore(other.store_uuid);
      await t.container.products.upsertProducts(otherStore, [
        {
          product_code: 'X1',
          'Product Name': 'Other Red Dress',
          Category: 'Dresses',
          Colour: 'Red',
          'Selling Price': '1',
        },
      ]);
      const mine = await listing(t, { facets: ['Colour'] });
      assert.equal(mine.body.data.total, cardsOf(VISIBLE).size);
      assert.deepEqual(mine.body.data.facets.Colour, expectedFacet(VISIBLE, 'Colour'));
      assert.deepEqual(mine.body.data.price_range, { min: 25, max: 80 });
      // Another workspace's store is not found with this token.
      const res = await t.request({
        method: 'POST',
        url: `/v1/search/query?store_uuid=${other.store_uuid}`,
        payload: {},
      });
      assert.equal(res.statusCode, 404);
    });

    it('keeps the result lists of the catalog as it is, and drops the older ones at the next write', async () => {
      const t = ctx();
      const kept = async () => {
        const metrics = (await t.request({ method: 'GET', url: '/metrics', token: null })).body;
        const found = /vitrine_index_memory_bytes\{index="search.results",measure="stores"\} (\d+)/.exec(metrics);
        return Number(found?.[1] ?? 0);
      };
      for (const query of ['dress', 'shirt', 'jeans'])
        assert.equal((await listing(t, { query, facets: ['Colour'] })).status, 200);
      const three = await kept();
      assert.ok(three >= 3, `${three} lists kept`);
      // The same query again, the store unchanged: answered from its kept list, nothing added.
      await listing(t, { query: 'dress', sort: 'price_asc' });
      assert.equal(await kept(), three);
      // A write moves the store on: its lists (these three, and the earlier tests') can answer nothing
      // any more and are dropped at once (they used to stay until the budget pushed them out), the new
      // one kept in their place.
      const write = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [{ ...CATALOG[0], 'Selling Price': '31' }],
      });
      assert.equal(write.statusCode, 200);
      const after = await listing(t, { query: 'dress', facets: ['Colour'] });
      assert.ok(after.body.data.hits.some((hit: { price: number }) => hit.price === 31));
      const now = await kept();
      assert.ok(now >= 1 && now <= three - 2, `${now} lists kept after the write, ${three} before`);
    });
  },
  { adminToken: ADMIN_TOKEN },
);
