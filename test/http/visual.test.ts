import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeEachDialect, json } from '../helpers/test-app.js';
import { codesOf, indexAll, visualSearch } from '../helpers/visual.js';
import { drawShape, imageForm, pngHeaderOnly, startImageServer, type ImageServer } from '../helpers/images.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';

const ADMIN = adminHeaders;
const images = new Map<string, Buffer>();
let server: ImageServer;

before(async () => {
  const drawn: Array<[string, Parameters<typeof drawShape>]> = [
    ['/red-circle.jpg', ['circle', '#d01010']],
    ['/red-circle-2.jpg', ['circle', '#c02020']],
    ['/blue-square.jpg', ['square', '#1030d0']],
    ['/green-stripes.jpg', ['stripes', '#10a030']],
    ['/black-triangle.jpg', ['triangle', '#111111']],
    ['/blue-square-2.jpg', ['square', '#2040c0']],
    ['/red-square.jpg', ['square', '#d01010']],
  ];
  for (const [path, args] of drawn) images.set(path, await drawShape(...args));
  server = await startImageServer(images);
});
after(async () => {
  await server.close();
});

const product = (code: string, image: string | undefined, extra: Record<string, string> = {}) => ({
  product_code: code,
  'Product Name': `Product ${code}`,
  Category: 'Tops',
  Department: 'Women',
  'Selling Price': '10',
  ...(image ? { 'Image URL 1': `${server.base}${image}` } : {}),
  ...extra,
});

describeEachDialect(
  'search by photo',
  (ctx) => {
    it('indexes product images in the background and finds the closest products, one per product, best first', async () => {
      const t = ctx();
      const res = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [
          product('RC1', '/red-circle.jpg', { Category: 'Dresses' }),
          product('RC2', '/red-circle-2.jpg', { 'Image URL 2': `${server.base}/red-square.jpg` }),
          product('BS1', '/blue-square.jpg', { Department: 'Men' }),
          product('GS1', '/green-stripes.jpg'),
          product('BT1', '/black-triangle.jpg'),
          product('BS2', '/blue-square-2.jpg'),
          product('NOIMG', '/not-there-yet.jpg'),
        ],
      });
      assert.equal(json(res).data.inserted, 7, res.body);
      await indexAll(t);
      const status = json(
        await t.request({
          method: 'GET',
          url: `/admin/v1/stores/${t.store.store_uuid}/images`,
          token: null,
          headers: ADMIN,
        }),
      ).data;
      assert.deepEqual(
        { images: status.images, indexed: status.indexed, pending: status.pending, failed: status.failed },
        { images: 8, indexed: 7, pending: 1, failed: 0 },
      );

      const found = await visualSearch(t, await drawShape('circle', '#d01515'));
      assert.equal(found.statusCode, 200, found.body);
      const body = json(found);
      assert.equal(body.status.code, 0);
      assert.deepEqual(codesOf(found).slice(0, 2).sort(), ['RC1', 'RC2']);
      assert.equal(new Set(codesOf(found)).size, codesOf(found).length, 'one result per product');
      assert.equal(codesOf(found).length, 6);
      for (const hit of body.data) assert.ok(hit.score > 0 && hit.score <= 1, `score ${hit.score}`);
      for (let i = 1; i < body.data.length; i++) assert.ok(body.data[i - 1].score >= body.data[i].score);
      const rc2 = body.data.find((h: { product_code: string }) => h.product_code === 'RC2');
      assert.equal(rc2.image_url, `${server.base}/red-circle-2.jpg`, "the product's best image");

      const page = await visualSearch(t, await drawShape('circle', '#d01515'), '&offset=1&limit=2');
      assert.deepEqual(codesOf(page), codesOf(found).slice(1, 3));
    });

    it('applies filters inside the search (case-insensitive), and an unknown attribute matches nothing', async () => {
      const t = ctx();
      const query = await drawShape('circle', '#d01515');
      const men = await visualSearch(t, query, `&filters=${encodeURIComponent('{"Department":"men"}')}`);
      assert.deepEqual(codesOf(men), ['BS1']);
      const several = await visualSearch(
        t,
        query,
        `&limit=2&filters=${encodeURIComponent('{"Category":["Tops","Dresses"],"Department":["Women"]}')}`,
      );
      assert.equal(codesOf(several).length, 2, 'a filter still fills the page');
      assert.deepEqual(codesOf(several).sort(), ['RC1', 'RC2']);
      const unknown = await visualSearch(t, query, `&filters=${encodeURIComponent('{"Fabric":"silk"}')}`);
      assert.equal(unknown.statusCode, 200);
      assert.deepEqual(codesOf(unknown), []);
      const notJson = await visualSearch(t, query, '&filters=%7Bnot-json');
      assert.equal(notJson.statusCode, 400);
      assert.match(json(notJson).detail, /filters/);
      const notObject = await visualSearch(t, query, `&filters=${encodeURIComponent('["Dresses"]')}`);
      assert.equal(notObject.statusCode, 422);
      assert.match(json(notObject).detail, /filters/);
    });

    it('takes the catalog filter language: ranges, names in any case, labels through the vocabulary, errors naming the path', async () => {
      const t = ctx();
      const query = await drawShape('circle', '#d01515');
      const filtered = async (filters: object) => {
        const res = await visualSearch(t, query, `&filters=${encodeURIComponent(JSON.stringify(filters))}`);
        assert.equal(res.statusCode, 200, res.body);
        return codesOf(res).sort();
      };
      // Every product costs 10.
      assert.deepEqual(await filtered({ 'Selling Price': { gt: 10 } }), []);
      assert.deepEqual(await filtered({ 'selling price': { lte: 10 }, department: 'MEN' }), ['BS1']);
      // Department by audience ("Mens" is the men's audience), Category by label however written.
      assert.deepEqual(await filtered({ Department: 'Mens' }), ['BS1']);
      assert.deepEqual(await filtered({ Category: 'dress' }), ['RC1']);
      const badOperator = await visualSearch(
        t,
        query,
        `&filters=${encodeURIComponent('{"Selling Price":{"over":5}}')}`,
      );
      assert.equal(badOperator.statusCode, 422);
      assert.match(json(badOperator).detail, /filters\.Selling Price: unknown operator "over"/);
      const notNumber = await visualSearch(t, query, `&filters=${encodeURIComponent('{"Selling Price":{"gte":"5"}}')}`);
      assert.equal(notNumber.statusCode, 422);
      assert.match(json(notNumber).detail, /filters\.Selling Price\.gte must be a number/);
    });

    it('drops a product that turns invisible at once, and follows image changes', async () => {
      const t = ctx();
      const query = await drawShape('square', '#1535d5');
      assert.equal(codesOf(await visualSearch(t, query))[0].startsWith('BS'), true);
      await t.request({
        method: 'PUT',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [
          { product_code: 'BS1', Status: 'inactive' },
          { product_code: 'BS2', Status: 'inactive' },
        ],
      });
      const after = codesOf(await visualSearch(t, query));
      assert.ok(!after.includes('BS1') && !after.includes('BS2'), after.join());
      await t.request({
        method: 'PUT',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [{ product_code: 'BS2', Status: 'active' }],
      });
      assert.equal(codesOf(await visualSearch(t, query))[0], 'BS2');
      // GS1's picture becomes a blue square: it ranks with the squares once re-embedded.
      await t.request({
        method: 'PUT',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [{ product_code: 'GS1', 'Image URL 1': `${server.base}/blue-square.jpg` }],
      });
      await indexAll(t);
      const hits = json(await visualSearch(t, query)).data as Array<{ product_code: string; image_url: string }>;
      assert.deepEqual(
        hits
          .slice(0, 2)
          .map((h) => h.product_code)
          .sort(),
        ['BS2', 'GS1'],
      );
      assert.equal(hits.find((h) => h.product_code === 'GS1')!.image_url, `${server.base}/blue-square.jpg`);
      const status = json(
        await t.request({
          method: 'GET',
          url: `/admin/v1/stores/${t.store.store_uuid}/images`,
          token: null,
          headers: ADMIN,
        }),
      ).data;
      assert.equal(status.images, 7, 'the green stripes URL nobody shows any more is gone');
    });

    it('indexes image asset links and answers with the product of their parent code', async () => {
      const t = ctx();
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [product('P9-M', '/black-triangle.jpg', { parent_code: 'P9' })],
      });
      const linked = await t.request({
        method: 'POST',
        url: `/v1/assets?store_uuid=${t.store.store_uuid}&channel=web`,
        payload: [{ parent_code: 'P9', assets: { 'Image URL 1': `${server.base}/green-stripes.jpg` } }],
      });
      assert.equal(linked.statusCode, 200, linked.body);
      await indexAll(t);
      const hits = json(await visualSearch(t, await drawShape('stripes', '#10a535'))).data;
      assert.equal(hits[0].product_code, 'P9-M');
      assert.equal(hits[0].image_url, `${server.base}/green-stripes.jpg`);
    });

    it('GET /v1/similar uses the stored embedding and never returns the source', async () => {
      const t = ctx();
      const similar = await t.request({
        method: 'GET',
        url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=RC1`,
      });
      assert.equal(similar.statusCode, 200, similar.body);
      assert.equal(codesOf(similar)[0], 'RC2');
      assert.ok(!codesOf(similar).includes('RC1'));
      const none = await t.request({
        method: 'GET',
        url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=NOIMG`,
      });
      assert.deepEqual(json(none).data, []);
      const unknown = await t.request({
        method: 'GET',
        url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=NOPE`,
      });
      assert.equal(unknown.statusCode, 404);
      const hidden = await t.request({
        method: 'GET',
        url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=BS1`,
      });
      assert.equal(hidden.statusCode, 404, 'not visible');
    });

    it('answers the same once the idle photo-query thread ended and started again (its vectors reloaded)', async () => {
      const t = ctx();
      const similar = () =>
        t.request({ method: 'GET', url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=RC1` });
      const query = await drawShape('circle', '#d01515');
      const [before, beforePhoto] = [codesOf(await similar()), codesOf(await visualSearch(t, query))];
      // VITRINE_VISION_IDLE_SECONDS is 1 in this suite: the thread ends, and its matrices with it.
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      assert.deepEqual(codesOf(await similar()), before);
      assert.deepEqual(codesOf(await visualSearch(t, query)), beforePhoto);
      assert.ok(before.length > 0 && beforePhoto.length > 0);
    });

    it('refuses bad uploads with 400 or 413', async () => {
      const t = ctx();
      const noImage = await visualSearch(t, undefined);
      assert.equal(noImage.statusCode, 400);
      assert.match(json(noImage).detail, /image/);
      const otherField = await visualSearch(t, await drawShape('circle', 'red'), '', 'photo');
      assert.equal(otherField.statusCode, 400);
      const empty = await visualSearch(t, Buffer.alloc(0));
      assert.equal(empty.statusCode, 400);
      assert.match(json(empty).detail, /empty/);
      const text = await visualSearch(t, Buffer.from('this is not a photo at all'), '', 'image', 'photo.jpg');
      assert.equal(text.statusCode, 400);
      assert.match(json(text).detail, /not an image/);
      const jpeg = await drawShape('circle', 'red', 600);
      const truncated = await visualSearch(t, jpeg.subarray(0, Math.floor(jpeg.length / 2)));
      assert.equal(truncated.statusCode, 400, truncated.body);
      const bomb = await visualSearch(t, pngHeaderOnly(20_000, 20_000), '', 'image', 'bomb.png');
      assert.equal(bomb.statusCode, 413, bomb.body);
      assert.equal(json(bomb).status.code, -1);
      const huge = await visualSearch(t, Buffer.alloc(11 * 1024 * 1024, 7));
      assert.equal(huge.statusCode, 413);
      const notMultipart = await t.request({
        method: 'POST',
        url: `/v1/visual-search?store_uuid=${t.store.store_uuid}`,
        payload: { image: 'x' },
      });
      assert.equal(notMultipart.statusCode, 400);
      const badLimit = await visualSearch(t, await drawShape('circle', 'red'), '&limit=101');
      assert.equal(badLimit.statusCode, 422);
      const foreign = await t.request({
        method: 'POST',
        url: '/v1/visual-search?store_uuid=00000000-0000-0000-0000-000000000000',
        ...(await imageForm([{ name: 'image', data: jpeg, filename: 'a.jpg' }])),
      });
      assert.equal(foreign.statusCode, 404);
    });

    it('records failed fetches with their reason, retries them with backoff, then gives up', async () => {
      const t = ctx();
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [product('MISSING', '/gone.jpg'), product('TEXT', '/not-an-image.txt')],
      });
      images.set('/not-an-image.txt', Buffer.from('hello'));
      await indexAll(t);
      let status = json(
        await t.request({
          method: 'GET',
          url: `/admin/v1/stores/${t.store.store_uuid}/images`,
          token: null,
          headers: ADMIN,
        }),
      ).data;
      const gone = status.failures.find((f: { url: string }) => f.url.endsWith('/gone.jpg'));
      assert.equal(gone.state, 'pending', 'a 404 is retried');
      assert.match(gone.error, /404/);
      const text = status.failures.find((f: { url: string }) => f.url.endsWith('/not-an-image.txt'));
      assert.equal(text.state, 'failed', 'not an image: no retry');
      for (let attempt = 0; attempt < 6; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20 * 4 ** attempt));
        await t.container.imageWorker.drain();
        status = json(
          await t.request({
            method: 'GET',
            url: `/admin/v1/stores/${t.store.store_uuid}/images`,
            token: null,
            headers: ADMIN,
          }),
        ).data;
        if (status.failures.find((f: { url: string }) => f.url.endsWith('/gone.jpg')).state === 'failed') break;
      }
      const final = status.failures.find((f: { url: string }) => f.url.endsWith('/gone.jpg'));
      assert.equal(final.state, 'failed');
      assert.equal(final.attempts, 4);
    });
  },
  { allowPrivateFetch: true, adminToken: ADMIN_TOKEN, imageRetryBaseMs: 20, visionIdleSeconds: 1 },
);
