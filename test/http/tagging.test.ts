import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { drawShape, startImageServer, type ImageServer } from '../helpers/images.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';
import { Tagger } from '../../src/vision/tagger.js';

interface Suggestion {
  product_code: string;
  field: 'type' | 'colour' | 'audience';
  value: string | null;
  confidence: number;
  current_value: string | null;
  new_label: boolean;
  image_url: string | null;
  reason?: string;
  decision?: string;
}

const images = new Map<string, Buffer>();
let server: ImageServer;

before(async () => {
  images.set('/red-circle.jpg', await drawShape('circle', '#d01010'));
  images.set('/blue-square.jpg', await drawShape('square', '#1030d0'));
  images.set('/black-triangle.jpg', await drawShape('triangle', '#111111'));
  images.set('/broken.jpg', Buffer.from('not an image at all'));
  // The same two photos under many addresses: a store's own labelled catalog.
  for (let i = 0; i < 40; i++) {
    images.set(`/own-circle-${i}.jpg`, images.get('/red-circle.jpg')!);
    images.set(`/own-square-${i}.jpg`, images.get('/blue-square.jpg')!);
  }
  server = await startImageServer(images);
});
after(async () => {
  await server.close();
});

const product = (code: string, image: string | undefined, extra: Record<string, string> = {}) => ({
  product_code: code,
  'Product Name': `Product ${code}`,
  'Selling Price': '10',
  ...(image ? { 'Image URL 1': `${server.base}${image}` } : {}),
  ...extra,
});

type StoreRef = { store_uuid: string; api_token: string };
let stores = 0;

/** A store of its own per test (reviews and settings are a store's), its photos indexed. */
async function seed(t: TestApp): Promise<StoreRef> {
  const store = await t.container.stores.createStore({ workspaceName: `tagging-${++stores}`, name: 'Tagged' });
  const res = await t.request({
    method: 'POST',
    url: `/v1/products?store_uuid=${store.store_uuid}`,
    token: store.api_token,
    payload: [
      product('HAS-TYPE', '/red-circle.jpg', { Category: 'Tops' }),
      product('BARE', '/blue-square.jpg'),
      product('BARE-2', '/black-triangle.jpg'),
      product('BROKEN', '/broken.jpg'),
      product('NO-PHOTO', undefined, { Department: 'Ladieswear' }),
    ],
  });
  assert.equal(res.statusCode, 200, res.body);
  await t.container.imageCatalog.catchUp(store.store_uuid);
  await t.container.imageWorker.drain();
  return store;
}

async function suggestions(t: TestApp, store: StoreRef, query = '') {
  const res = await t.request({
    method: 'GET',
    url: `/v1/products/suggestions?store_uuid=${store.store_uuid}${query}`,
    token: store.api_token,
  });
  assert.equal(res.statusCode, 200, res.body);
  return { items: json(res).data as Suggestion[], total: Number(res.headers['x-total-count']) };
}

async function productOf(t: TestApp, store: StoreRef, code: string) {
  const res = await t.request({
    method: 'GET',
    url: `/v1/products?store_uuid=${store.store_uuid}&product_code=${code}`,
    token: store.api_token,
  });
  assert.equal(res.statusCode, 200, res.body);
  return (json(res).data as { products: Array<Record<string, unknown>> }).products[0];
}

const review = (t: TestApp, store: StoreRef, action: 'accept' | 'reject', items: unknown) =>
  t.request({
    method: 'POST',
    url: `/v1/products/suggestions/${action}?store_uuid=${store.store_uuid}`,
    payload: items as object,
    token: store.api_token,
  });

describeEachDialect(
  'tagging from photos',
  (ctx) => {
    it('suggests type, colour and audience from the stored photo vectors, most confident first, and says why a photo gave none', async () => {
      const t = ctx();
      const store = await seed(t);
      const { items, total } = await suggestions(t, store);
      assert.equal(total, items.length);
      const readable = items.filter((s) => s.value !== null);
      assert.ok(readable.length > 0, JSON.stringify(items));
      for (const s of readable) {
        assert.ok(s.confidence > 0 && s.confidence <= 1, `confidence ${s.confidence}`);
        assert.ok(s.image_url?.startsWith(server.base));
      }
      for (let i = 1; i < items.length; i++) assert.ok(items[i - 1].confidence >= items[i].confidence);
      // BARE says nothing: every field is suggested; HAS-TYPE's type only if the photo says another one.
      assert.deepEqual(
        readable
          .filter((s) => s.product_code === 'BARE')
          .map((s) => s.field)
          .sort(),
        ['audience', 'colour', 'type'],
      );
      for (const s of readable.filter((x) => x.product_code === 'HAS-TYPE' && x.field === 'type'))
        assert.equal(s.current_value, 'Tops');
      // The broken photo: listed without a value, with the reason; a product without a photo: nothing.
      const broken = items.filter((s) => s.product_code === 'BROKEN');
      assert.equal(broken.length, 3);
      for (const s of broken) {
        assert.equal(s.value, null);
        assert.match(s.reason ?? '', /could not be indexed/);
      }
      assert.equal(items.filter((s) => s.product_code === 'NO-PHOTO').length, 0);
      // Filters: a confidence floor leaves the unreadable photos out; one field; paging.
      const confident = await suggestions(t, store, '&min_confidence=0.0001');
      assert.ok(confident.items.every((s) => s.value !== null));
      const colours = await suggestions(t, store, '&field=colour&limit=1');
      assert.equal(colours.items.length, 1);
      assert.equal(colours.items[0].field, 'colour');
      assert.ok(colours.total >= 2);
      // The failure counts say how many products in problem a type suggestion would fix.
      const failures = await t.request({
        method: 'GET',
        url: `/v1/products/failures?store_uuid=${store.store_uuid}`,
        token: store.api_token,
      });
      assert.equal(failures.statusCode, 200, failures.body);
      const missing = (
        json(failures).data as Array<{ _id: string; count: number; fixable_by_suggestion?: number }>
      ).find((f) => f._id === 'Missing category');
      assert.ok(missing, failures.body);
      const confidentTypes = readable.filter(
        (s) => s.field === 'type' && s.current_value === null && s.confidence >= Tagger.load().defaultThreshold('type'),
      ).length;
      assert.equal(missing.fixable_by_suggestion ?? 0, Math.min(confidentTypes, missing.count));
      // The store's own words: an audience it has a label for is offered in that label.
      for (const s of readable.filter((x) => x.field === 'audience'))
        if (s.value === 'Ladieswear') assert.equal(s.new_label, false);
    });

    it('accepts as offered or corrected (a product update), rejects for good, and counts accuracy on what was reviewed', async () => {
      const t = ctx();
      const store = await seed(t);
      const open = (await suggestions(t, store, '&min_confidence=0.0001')).items;
      const type = open.find((s) => s.product_code === 'BARE' && s.field === 'type')!;
      const accepted = await review(t, store, 'accept', [
        { product_code: 'BARE', field: 'type' },
        { product_code: 'BARE', field: 'colour', value: 'Teal' },
      ]);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.deepEqual(json(accepted).data, { accepted: 2, failed: 0, error_info: [] });
      const bare = await productOf(t, store, 'BARE');
      assert.equal(bare.Category, type.value);
      assert.equal(bare.Colour, 'Teal');
      const rejected = await review(t, store, 'reject', [{ product_code: 'BARE', field: 'audience' }]);
      assert.equal(rejected.statusCode, 200, rejected.body);
      assert.equal(json(rejected).data.rejected, 1);
      const after = (await suggestions(t, store)).items;
      assert.equal(after.filter((s) => s.product_code === 'BARE').length, 0, 'nothing left open for BARE');
      const reviewed = (await suggestions(t, store, '&status=reviewed')).items.filter((s) => s.product_code === 'BARE');
      assert.deepEqual(reviewed.map((s) => `${s.field}:${s.decision}`).sort(), [
        'audience:rejected',
        'colour:corrected',
        'type:accepted',
      ]);
      const settings = await t.request({
        method: 'GET',
        url: `/admin/v1/stores/${store.store_uuid}/tagging`,
        headers: adminHeaders,
        token: null,
      });
      assert.equal(settings.statusCode, 200, settings.body);
      const accuracy = json(settings).data.accuracy;
      assert.deepEqual([accuracy.type.accepted, accuracy.colour.corrected, accuracy.audience.rejected], [1, 1, 1]);
      assert.equal(accuracy.type.precision, 1);
      assert.equal(accuracy.audience.precision, 0);
      assert.match(json(settings).data.tagger, /^tagger@[0-9a-f]{12}$/);
    });

    it('fails bad items alone: a deleted product, no suggestion and no value, a value a rule refuses; another store is 404', async () => {
      const t = ctx();
      const store = await seed(t);
      const del = await t.request({
        method: 'DELETE',
        url: `/v1/products?store_uuid=${store.store_uuid}&sku_codes=BARE-2`,
        token: store.api_token,
      });
      assert.equal(del.statusCode, 200, del.body);
      const res = await review(t, store, 'accept', [
        { product_code: 'BARE-2', field: 'colour', value: 'Black' },
        { product_code: 'NO-PHOTO', field: 'type' },
        { product_code: 'BARE', field: 'type', value: 'x'.repeat(1000) },
        { product_code: 'BARE', field: 'audience' },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const body = json(res).data as {
        accepted: number;
        failed: number;
        error_info: Array<{ product_code: string; reason: string }>;
      };
      assert.equal(body.failed, 3, res.body);
      const reasons = Object.fromEntries(body.error_info.map((e) => [e.product_code, e.reason]));
      assert.match(reasons['BARE-2'], /not_found/);
      assert.match(reasons['NO-PHOTO'], /no suggestion/);
      assert.match(reasons.BARE, /1 to 200 characters/);
      const bad = await review(t, store, 'accept', [{ product_code: 'BARE', field: 'size' }]);
      assert.ok(bad.statusCode === 400 || bad.statusCode === 422, bad.body);
      const other = await t.container.stores.createStore({ workspaceName: 'elsewhere', name: 'Other' });
      const foreign = await t.request({
        method: 'GET',
        url: `/v1/products/suggestions?store_uuid=${other.store_uuid}`,
        token: store.api_token,
      });
      assert.equal(foreign.statusCode, 404, foreign.body);
    });

    it('learns a store’s own labels from its own labelled photos, and offers them to the products that lack one', async () => {
      const t = ctx();
      const store = await t.container.stores.createStore({ workspaceName: `tagging-${++stores}`, name: 'Own words' });
      const labelled = Array.from({ length: 32 }, (_, i) =>
        product(`OWN-${i}`, i % 2 === 0 ? `/own-circle-${i}.jpg` : `/own-square-${i}.jpg`, {
          Category: i % 2 === 0 ? 'Zorblax' : 'Quintar',
        }),
      );
      const res = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${store.store_uuid}`,
        token: store.api_token,
        payload: [
          ...labelled,
          product('NEW-CIRCLE', '/own-circle-39.jpg'),
          product('NEW-SQUARE', '/own-square-39.jpg'),
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      await t.container.imageCatalog.catchUp(store.store_uuid);
      await t.container.imageWorker.drain();
      const { items } = await suggestions(t, store, '&field=type');
      const typeOf = (code: string) => items.find((s) => s.product_code === code);
      assert.equal(typeOf('NEW-CIRCLE')?.value, 'Zorblax', JSON.stringify(typeOf('NEW-CIRCLE')));
      assert.equal(typeOf('NEW-SQUARE')?.value, 'Quintar');
      assert.equal((typeOf('NEW-SQUARE') as { source?: string }).source, 'store');
      assert.equal(typeOf('NEW-SQUARE')?.new_label, false);
    });

    it('auto-applies above a threshold only to fields a product lacks, never over a merchandiser’s value', async () => {
      const t = ctx();
      const store = await seed(t);
      const bad = await t.request({
        method: 'PUT',
        url: `/admin/v1/stores/${store.store_uuid}/tagging`,
        headers: adminHeaders,
        token: null,
        payload: { auto_apply: { type: 2 } },
      });
      assert.ok(bad.statusCode === 400 || bad.statusCode === 422, bad.body);
      const put = await t.request({
        method: 'PUT',
        url: `/admin/v1/stores/${store.store_uuid}/tagging`,
        headers: adminHeaders,
        token: null,
        payload: { auto_apply: { type: 0.0001, audience: 0.0001 } },
      });
      assert.equal(put.statusCode, 200, put.body);
      const data = json(put).data;
      assert.deepEqual(data.auto_apply, { type: 0.0001, colour: null, audience: 0.0001 });
      assert.ok(data.accuracy.type.auto >= 1, put.body);
      const bare = await productOf(t, store, 'BARE');
      assert.ok(typeof bare.Category === 'string' && bare.Category !== '');
      assert.ok(typeof bare.Department === 'string' && bare.Department !== '');
      assert.equal(bare.Colour, undefined, 'colour stays off');
      assert.equal(
        (await productOf(t, store, 'HAS-TYPE')).Category,
        'Tops',
        'a value the product has is never replaced',
      );
    });
  },
  { adminToken: ADMIN_TOKEN, allowPrivateFetch: true },
);
