import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';
import { dress, product } from '../factories/products.js';

const codesOf = (items: Array<{ product_code: string }>) => items.map((item) => item.product_code);

describeEachDialect(
  'personalization: a shopper sees their taste earlier, nobody else does',
  (ctx) => {
    // Blue dresses come first by product_code; the red ones after them.
    const DRESSES = [
      dress('PD-A-BLUE', { Colour: 'Navy Blue', 'Product Name': 'Linen dress navy' }),
      dress('PD-B-BLUE', { Colour: 'Blue', 'Product Name': 'Wrap dress blue' }),
      dress('PD-C-RED', { Colour: 'Red', 'Product Name': 'Linen dress red' }),
      dress('PD-D-RED', { Colour: 'Maroon', 'Product Name': 'Wrap dress maroon' }),
    ];

    async function page(t: TestApp, shopper?: string) {
      const res = await t.request({
        method: 'GET',
        url: `/v1/collection/pd-dresses/products?store_uuid=${t.store.store_uuid}${shopper ? `&shopper_id=${shopper}` : ''}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return codesOf(json(res).data.products);
    }

    async function search(t: TestApp, query: string, shopper?: string) {
      const res = await t.request({
        method: 'GET',
        url: `/v1/search?store_uuid=${t.store.store_uuid}&query=${encodeURIComponent(query)}&group_variants=false&limit=20${shopper ? `&shopper_id=${shopper}` : ''}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return codesOf(json(res).data);
    }

    before(async () => {
      const t = ctx();
      const res = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [...DRESSES, product('PD-SHIRT-RED', { Colour: 'Red' })],
      });
      assert.equal(res.statusCode, 200, res.body);
      const store = await t.container.stores.getStore(t.store.store_uuid);
      await t.container.collections.create(store, [
        {
          id: 'pd-dresses',
          name: 'Dresses',
          filters: { Category: 'Dresses' },
          sortBy: { static: { personalization: true } },
        },
      ]);
    });

    it('orders a personalization collection by the shopper’s clicks; anonymous and unknown shoppers as before', async () => {
      const t = ctx();
      const anonymous = await page(t);
      assert.deepEqual(anonymous, ['PD-A-BLUE', 'PD-B-BLUE', 'PD-C-RED', 'PD-D-RED']);
      assert.deepEqual(await page(t, 'nobody-yet'), anonymous, 'a shopper without events sees the anonymous page');
      // Ruby clicks a red dress and views a red shirt: red (and dresses) is her taste.
      const tracked = await t.request({
        method: 'POST',
        url: `/v1/events?store_uuid=${t.store.store_uuid}`,
        payload: [
          { event_id: 'ruby-1', type: 'click', product_code: 'PD-C-RED', shopper_id: 'ruby' },
          { event_id: 'ruby-2', type: 'view', product_code: 'PD-SHIRT-RED', shopper_id: 'ruby' },
        ],
      });
      assert.equal(json(tracked).data.accepted, 2);
      const personal = await page(t, 'ruby');
      assert.deepEqual(personal.slice(0, 2).sort(), ['PD-C-RED', 'PD-D-RED'], `red first for ruby: ${personal.join()}`);
      assert.equal(personal[0], 'PD-C-RED', 'the very dress she clicked (its price band too) first');
      assert.deepEqual(await page(t), anonymous, 'the anonymous page is unchanged');
      assert.deepEqual(await page(t, 'someone-else'), anonymous);
    });

    it('reorders search hits within their relevance band for the shopper; an exact code stays first', async () => {
      const t = ctx();
      await t.request({
        method: 'POST',
        url: `/v1/events?store_uuid=${t.store.store_uuid}`,
        payload: [{ event_id: 'sky-1', type: 'purchase', product_code: 'PD-B-BLUE', shopper_id: 'sky' }],
      });
      const anonymous = await search(t, 'dress');
      assert.equal(anonymous.length, 4);
      const forRuby = await search(t, 'dress', 'ruby');
      assert.deepEqual(forRuby.slice(0, 2).sort(), ['PD-C-RED', 'PD-D-RED'], `ruby: ${forRuby.join()}`);
      // Sky bought a blue dress: both blue ones (one colour family) come first for her.
      const forSky = await search(t, 'dress', 'sky');
      assert.deepEqual(forSky.slice(0, 2).sort(), ['PD-A-BLUE', 'PD-B-BLUE'], `sky: ${forSky.join()}`);
      assert.deepEqual(await search(t, 'dress'), anonymous, 'anonymous search unchanged');
      // Phrase matches in the title ("linen dress") stay above all-words ones whatever the taste.
      const phrase = await search(t, 'linen dress', 'sky');
      assert.deepEqual(phrase.slice(0, 2).sort(), ['PD-A-BLUE', 'PD-C-RED']);
      assert.equal((await search(t, 'PD-A-BLUE', 'ruby'))[0], 'PD-A-BLUE');
      // The listing endpoint takes the same shopper_id.
      const res = await t.request({
        method: 'POST',
        url: `/v1/search/query?store_uuid=${t.store.store_uuid}`,
        payload: { query: 'dress', shopper_id: 'ruby', group_variants: 'false' },
      });
      assert.deepEqual(codesOf(json(res).data.hits).slice(0, 2).sort(), ['PD-C-RED', 'PD-D-RED']);
    });

    it('erasing the shopper removes their influence', async () => {
      const t = ctx();
      const anonymous = await page(t);
      assert.notDeepEqual(await page(t, 'ruby'), anonymous);
      const erase = await t.app.inject({
        method: 'DELETE',
        url: `/admin/v1/stores/${t.store.store_uuid}/shoppers/ruby`,
        headers: adminHeaders,
      });
      assert.equal(erase.statusCode, 200, erase.body);
      assert.deepEqual(await page(t, 'ruby'), anonymous);
      assert.deepEqual(await search(t, 'dress', 'ruby'), await search(t, 'dress'));
    });
  },
  { adminToken: ADMIN_TOKEN },
);
