import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';

const ADMIN = ADMIN_TOKEN;
const admin = adminHeaders;

let serial = 0;
const product = (fields: Record<string, unknown>) => ({
  product_code: `p${++serial}`,
  'Selling Price': '30',
  Currency: 'EUR',
  'Image URL 1': `https://i.example/${serial}.jpg`,
  ...fields,
});

async function newStore(t: TestApp, products: Array<Record<string, unknown>>) {
  const store = await t.container.stores.createStore({
    workspaceName: t.store.workspace_id ? 'vocab' : 'vocab',
    name: 'V',
  });
  const res = await t.request({
    method: 'POST',
    url: `/v1/products?store_uuid=${store.store_uuid}`,
    payload: products,
    token: store.api_token,
  });
  assert.equal(res.statusCode, 200, res.body);
  return store;
}

const complementary = async (t: TestApp, store: { store_uuid: string; api_token: string }, code: string) => {
  const res = await t.request({
    method: 'GET',
    url: `/v1/complementary?store_uuid=${store.store_uuid}&product_code=${code}`,
    token: store.api_token,
  });
  assert.equal(res.statusCode, 200, res.body);
  return json(res).data.categories as Array<{ title: string; products: Array<{ product_code: string }> }>;
};

describeEachDialect(
  'catalog vocabulary over HTTP',
  (ctx) => {
    it('completes the look in ordinary labels: T-Shirts (Men) with Jeans, Jackets, Belts and Sneakers', async () => {
      const t = ctx();
      const items = [
        product({
          product_code: 'tee',
          'Product Name': 'Crew Tee',
          Category: 'T-Shirts',
          Department: 'Men',
          Colour: 'White',
        }),
        product({
          product_code: 'jeans',
          'Product Name': 'Slim Jeans',
          Category: 'Jeans',
          Department: 'Men',
          Colour: 'Blue',
        }),
        product({
          product_code: 'jacket',
          'Product Name': 'Bomber',
          Category: 'Jackets',
          Department: 'Mens',
          Colour: 'Black',
        }),
        product({
          product_code: 'belt',
          'Product Name': 'Leather Belt',
          Category: 'Belts',
          Department: 'Men',
          Colour: 'Brown',
        }),
        product({
          product_code: 'sneaker',
          'Product Name': 'Court Sneaker',
          Category: 'Sneakers',
          Department: 'Menswear',
          Colour: 'White',
        }),
        product({
          product_code: 'her-jeans',
          'Product Name': 'Mom Jeans',
          Category: 'Jeans',
          Department: 'Womens',
          Colour: 'Blue',
        }),
        product({
          product_code: 'kid-jeans',
          'Product Name': 'Kids Jeans',
          Category: 'Jeans',
          Department: 'Kids',
          Colour: 'Blue',
        }),
      ];
      const store = await newStore(t, items);
      const categories = await complementary(t, store, 'tee');
      const titles = categories.map((c) => c.title);
      for (const group of ['BOTTOMWEAR', 'FOOTWEAR', 'OUTERWEAR', 'BELTS'])
        assert.ok(titles.includes(group), `${group} in ${titles.join()}`);
      const codes = categories.flatMap((c) => c.products.map((p) => p.product_code));
      assert.ok(codes.includes('jacket') && codes.includes('sneaker'), 'Mens and Menswear are men');
      assert.ok(!codes.includes('her-jeans') && !codes.includes('kid-jeans'), 'never women nor kids with men');
    });

    it('understands another retailer: Ladieswear, Vest top, Hat/beanie, Swimwear bottom, Greenish Khaki', async () => {
      const t = ctx();
      const store = await newStore(t, [
        product({
          product_code: 'vest',
          'Product Name': 'Strap top',
          Category: 'Vest top',
          Department: 'Ladieswear',
          Colour: 'Greenish Khaki',
        }),
        product({
          product_code: 'skirt',
          'Product Name': 'Midi skirt',
          Category: 'Skirt',
          Department: 'Ladieswear',
          Colour: 'Black',
        }),
        product({
          product_code: 'hat',
          'Product Name': 'Rib beanie',
          Category: 'Hat/beanie',
          Department: 'Ladieswear',
          Colour: 'Light Turquoise',
        }),
        product({
          product_code: 'bikini',
          'Product Name': 'Bikini bottoms',
          Category: 'Swimwear bottom',
          Department: 'Ladieswear',
          Colour: 'Other Pink',
        }),
        product({
          product_code: 'brief',
          'Product Name': 'Brazilian briefs',
          Category: 'Underwear bottom',
          Department: 'Ladieswear',
          Colour: 'Black',
        }),
        product({
          product_code: 'brief-m',
          'Product Name': 'Trunks 3-pack',
          Category: 'Underwear bottom',
          Department: 'Menswear',
          Colour: 'Black',
        }),
        product({
          product_code: 'sandal',
          'Product Name': 'Flat sandals',
          Category: 'Sandals',
          Department: 'Ladieswear',
          Colour: 'Off White',
        }),
      ]);
      const titles = (await complementary(t, store, 'vest')).map((c) => c.title);
      assert.ok(
        titles.includes('BOTTOMWEAR') && titles.includes('FOOTWEAR') && titles.includes('HEADWEAR'),
        titles.join(),
      );
      assert.ok((await complementary(t, store, 'bikini')).some((c) => c.title === 'FOOTWEAR'));

      const search = async (query: string) =>
        json(
          await t.request({
            method: 'GET',
            url: `/v1/search?store_uuid=${store.store_uuid}&query=${encodeURIComponent(query)}`,
            token: store.api_token,
          }),
        ).data.map((hit: { product_code: string }) => hit.product_code) as string[];
      const underwear = await search('women underwear bottom');
      assert.equal(underwear[0], 'brief', 'the audience in the shopper’s words');
      assert.ok(!underwear.includes('brief-m'), 'the men’s one has not every word: not a hit');
      assert.deepEqual((await search('ladies briefs')).slice(0, 1), ['brief']);
      assert.deepEqual((await search('green')).slice(0, 1), ['vest'], 'Greenish Khaki is green');
      assert.ok((await search('blue beanie')).includes('hat'), 'Light Turquoise is blue');
    });

    it('builds a store’s index once a write of the process names the store, then keeps it up in the background', async () => {
      const t = ctx();
      // Written by another process (here: straight through the service, as `vitrine import` would).
      const store = await t.container.stores.createStore({ workspaceName: 'vocab', name: 'V' });
      await t.container.products.upsertProducts(await t.container.stores.getStore(store.store_uuid), [
        product({ product_code: 'w1', 'Product Name': 'Tee', Category: 'T-Shirts', Department: 'Men' }),
        product({ product_code: 'w2', 'Product Name': 'Jeans', Category: 'Jeans', Department: 'Men' }),
      ]);
      const complements = t.container.complements;
      complements.worker.start();
      const write = async (code: string, name: string, category: string) => {
        const response = await t.request({
          method: 'POST',
          url: `/v1/products?store_uuid=${store.store_uuid}`,
          token: store.api_token,
          payload: [product({ product_code: code, 'Product Name': name, Category: category, Department: 'Men' })],
        });
        assert.equal(response.statusCode, 200, response.body);
      };
      try {
        const settled = async (products: number | undefined) => {
          for (let i = 0; i < 100 && complements.indexState(store.store_uuid)?.products !== products; i++)
            await new Promise((resolve) => setTimeout(resolve, 20));
          return complements.indexState(store.store_uuid)?.products;
        };
        // A store no request of this process has named costs it nothing, however its catalog moves.
        await new Promise((resolve) => setTimeout(resolve, 600));
        assert.equal(complements.indexState(store.store_uuid), undefined, 'no request has named it yet');
        // A read naming the store (a search, store details) does not: among a thousand stores, building
        // each store read here held up this process's next requests.
        const read = await t.request({
          method: 'GET',
          url: `/v1/stores?store_uuid=${store.store_uuid}`,
          token: store.api_token,
        });
        assert.equal(read.statusCode, 200, read.body);
        await new Promise((resolve) => setTimeout(resolve, 600));
        assert.equal(complements.indexState(store.store_uuid), undefined, 'a read does not build it');
        // A write does: a catalog being written here is asked to complete the look here next.
        await write('w3', 'Belt', 'Belts');
        assert.equal(await settled(3), 3, 'built in the background, before any complete the look request');
        await write('w4', 'Cap', 'Caps');
        assert.equal(await settled(4), 4, 'a write reaches the index without a request');
      } finally {
        await complements.worker.stop();
      }
    });

    it('answers 200 with no categories in a store of one category', async () => {
      const t = ctx();
      const store = await newStore(t, [
        product({ product_code: 'a', 'Product Name': 'Dress A', Category: 'Dresses', Department: 'Women' }),
        product({ product_code: 'b', 'Product Name': 'Dress B', Category: 'Dresses', Department: 'Women' }),
      ]);
      assert.deepEqual(await complementary(t, store, 'a'), []);
    });

    it('survives empty, numeric, long, accented and emoji labels', async () => {
      const t = ctx();
      const odd = ['   ', '12345', 'x'.repeat(500), 'ROBES DE SOIRÉE', '👗 Dresses', 'Sandals'];
      const store = await newStore(
        t,
        odd.map((label, i) =>
          product({
            product_code: `odd${i}`,
            'Product Name': `Item ${i}`,
            Category: label,
            Department: label,
            Colour: label,
          }),
        ),
      );
      for (let i = 0; i < odd.length; i++) await complementary(t, store, `odd${i}`);
      const report = await t.request({
        method: 'GET',
        url: `/admin/v1/stores/${store.store_uuid}/vocabulary`,
        headers: admin,
      });
      assert.equal(report.statusCode, 200);
      const { categories } = json(report).data;
      assert.equal(categories.find((c: { label: string }) => c.label === '👗 Dresses').group, 'DRESSES');
    });

    it('reports every label with what it resolved to and how, and applies overrides at once', async () => {
      const t = ctx();
      const store = await newStore(t, [
        product({
          product_code: 'bag',
          'Product Name': 'Baby sleeping bag',
          Category: 'Sleep Bag',
          Department: 'Baby/Children',
          Colour: 'Mole',
        }),
        product({
          product_code: 'body',
          'Product Name': 'Baby body',
          Category: 'Bodysuit',
          Department: 'Baby/Children',
          Colour: 'White',
        }),
        product({
          product_code: 'div-top',
          'Product Name': 'Crop top',
          Category: 'Top',
          Department: 'Divided',
          Colour: 'Black',
        }),
        product({
          product_code: 'lady-skirt',
          'Product Name': 'Skirt',
          Category: 'Skirt',
          Department: 'Ladieswear',
          Colour: 'Black',
        }),
        product({
          product_code: 'acc',
          'Product Name': 'Leather belt',
          Category: 'Accessories',
          Department: 'Ladieswear',
          Colour: 'Black',
        }),
      ]);
      const url = `/admin/v1/stores/${store.store_uuid}/vocabulary`;
      const before = json(await t.request({ method: 'GET', url, headers: admin })).data;
      const label = (list: Array<{ label: string }>, name: string) => list.find((entry) => entry.label === name) as any;
      assert.deepEqual(
        { ...label(before.categories, 'Sleep Bag') },
        { label: 'Sleep Bag', products: 1, concept: 'sleepsuit', group: 'NIGHTWEAR', how: 'exact' },
      );
      assert.equal(label(before.categories, 'Accessories').how, 'per product');
      assert.deepEqual(label(before.categories, 'Accessories').groups, { BELTS: 1 });
      assert.equal(label(before.departments, 'Divided').audience, null);
      assert.equal(label(before.departments, 'Ladieswear').audience, 'women');
      assert.equal(label(before.colours, 'Mole').family, 'grey');
      assert.ok(
        !(await complementary(t, store, 'div-top')).some((c) =>
          c.products.some((p) => p.product_code === 'lady-skirt'),
        ),
      );

      // An unknown group: 422 naming it, and nothing changed.
      const refused = await t.request({
        method: 'PUT',
        url,
        headers: admin,
        payload: { categories: { 'Sleep Bag': 'SLEEPING' } },
      });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body, /SLEEPING/);
      const put = await t.request({
        method: 'PUT',
        url,
        headers: admin,
        payload: {
          categories: { 'Sleep Bag': 'nightwear', 'Future Label': 'TOPWEAR' },
          departments: { Divided: 'women' },
          colours: { Mole: 'dark brown' },
        },
      });
      assert.equal(put.statusCode, 200, put.body);
      const after = json(put).data;
      assert.equal(label(after.categories, 'Sleep Bag').how, 'override');
      assert.deepEqual(label(after.departments, 'Divided'), {
        label: 'Divided',
        products: 1,
        audience: 'women',
        how: 'override',
      });
      assert.deepEqual(
        [label(after.colours, 'Mole').family, label(after.colours, 'Mole').lightness],
        ['brown', 'dark'],
      );
      assert.deepEqual(after.overrides.categories, { 'Sleep Bag': 'NIGHTWEAR', 'Future Label': 'TOPWEAR' });
      const skirts = (await complementary(t, store, 'div-top')).find((c) => c.title === 'BOTTOMWEAR');
      assert.deepEqual(
        skirts?.products.map((p) => p.product_code),
        ['lady-skirt'],
        'Divided is women now',
      );

      // An override for a label the store did not have yet applies when it appears.
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${store.store_uuid}`,
        token: store.api_token,
        payload: [
          product({
            product_code: 'future',
            'Product Name': 'Thing',
            Category: 'Future Label',
            Department: 'Ladieswear',
          }),
        ],
      });
      assert.ok(
        (await complementary(t, store, 'lady-skirt')).some((c) => c.products.some((p) => p.product_code === 'future')),
      );

      // Another store's conflicting overrides never mix with these.
      const other = await newStore(t, [
        product({ product_code: 'o-top', 'Product Name': 'Top', Category: 'Top', Department: 'Divided' }),
        product({ product_code: 'o-skirt', 'Product Name': 'Skirt', Category: 'Skirt', Department: 'Menswear' }),
      ]);
      const otherUrl = `/admin/v1/stores/${other.store_uuid}/vocabulary`;
      assert.equal(
        (
          await t.request({
            method: 'PUT',
            url: otherUrl,
            headers: admin,
            payload: { departments: { Divided: 'men' } },
          })
        ).statusCode,
        200,
      );
      assert.ok(
        (await complementary(t, other, 'o-top')).some((c) => c.products.some((p) => p.product_code === 'o-skirt')),
      );
      const mine = json(await t.request({ method: 'GET', url, headers: admin })).data;
      assert.equal(label(mine.departments, 'Divided').audience, 'women');

      // Search and collections read the override too.
      await t.container.searchIndexer.follower.readYourWrites(store.store_uuid);
      const hits = json(
        await t.request({
          method: 'GET',
          url: `/v1/search?store_uuid=${store.store_uuid}&query=women%20crop%20top`,
          token: store.api_token,
        }),
      ).data.map((h: { product_code: string }) => h.product_code);
      assert.equal(hits[0], 'div-top');
      const created = await t.request({
        method: 'POST',
        url: `/v1/collection?store_uuid=${store.store_uuid}`,
        token: store.api_token,
        payload: [
          { id: 'for-her', name: 'For her', status: 'active', autoRefresh: true, filters: { Department: 'Women' } },
        ],
      });
      assert.equal(created.statusCode, 201, created.body);
      const members = json(
        await t.request({
          method: 'GET',
          url: `/v1/collection/for-her/products?store_uuid=${store.store_uuid}`,
          token: store.api_token,
        }),
      ).data.products.map((p: { product_code: string }) => p.product_code);
      assert.deepEqual(members.sort(), ['acc', 'div-top', 'future', 'lady-skirt']);
    });

    it('guards the admin endpoints', async () => {
      const t = ctx();
      const url = `/admin/v1/stores/${t.store.store_uuid}/vocabulary`;
      assert.equal((await t.request({ method: 'GET', url })).statusCode, 401, 'a store token is not the admin token');
      assert.equal(
        (await t.request({ method: 'GET', url: '/admin/v1/stores/nope/vocabulary', headers: admin })).statusCode,
        404,
      );
      for (const payload of [
        { departments: { Divided: 'teens' } },
        { colours: { Mole: 'mouse' } },
        { categories: { '': 'TOPWEAR' } },
        { categories: [] },
      ])
        assert.equal(
          (await t.request({ method: 'PUT', url, headers: admin, payload })).statusCode,
          422,
          JSON.stringify(payload),
        );
    });
  },
  { adminToken: ADMIN },
);
