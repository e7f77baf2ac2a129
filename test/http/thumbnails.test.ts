import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import sharp from 'sharp';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { drawShape, startImageServer, type ImageServer } from '../helpers/images.js';
import { product } from '../factories/products.js';

// GET /v1/thumbnail: a store's product images, small, made and kept by Vitrine (the console shows
// images only from its own origin).

let images: ImageServer;
before(async () => {
  images = await startImageServer(
    new Map([
      ['/big.jpg', await drawShape('circle', '#2255aa', 900)],
      ['/notimage.jpg', Buffer.from('this is text, not a photo')],
    ]),
  );
});
after(() => images.close());

const thumbnail = (t: TestApp, url: string, size?: number, headers: Record<string, string> = {}) =>
  t.request({
    method: 'GET',
    url: `/v1/thumbnail?store_uuid=${t.store.store_uuid}&url=${encodeURIComponent(url)}${size !== undefined ? `&size=${size}` : ''}`,
    headers,
  });

describeEachDialect(
  'GET /v1/thumbnail',
  (ctx) => {
    it("makes a WebP of a product's image inside the size asked for (rounded up), keeps it, and answers 304 to its ETag", async () => {
      const t = ctx();
      const url = `${images.base}/big.jpg`;
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [product('T1', { 'Image URL 1': url })],
      });
      await t.container.imageCatalog.catchUp(t.store.store_uuid);
      const first = await thumbnail(t, url, 90);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.headers['content-type'], 'image/webp');
      const meta = await sharp(first.rawPayload).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 96, 96]);
      const fetched = images.hits.get('/big.jpg');
      const again = await thumbnail(t, url, 96);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(images.hits.get('/big.jpg'), fetched, 'made once, then kept');
      const unchanged = await thumbnail(t, url, 96, { 'if-none-match': String(first.headers.etag) });
      assert.equal(unchanged.statusCode, 304);
      const large = await sharp((await thumbnail(t, url, 300)).rawPayload).metadata();
      assert.equal(large.width, 320);
    });

    it('refuses an image no product of the store has (not an open proxy), a host that fails and bytes that are no image', async () => {
      const t = ctx();
      const stranger = await thumbnail(t, `${images.base}/big.jpg?other`);
      assert.equal(stranger.statusCode, 404);
      assert.match(json(stranger).status.message, /no product or asset of this store has this image/);
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [
          product('T2', { 'Image URL 1': `${images.base}/missing.jpg` }),
          product('T3', { 'Image URL 1': `${images.base}/notimage.jpg` }),
        ],
      });
      await t.container.imageCatalog.catchUp(t.store.store_uuid);
      assert.equal((await thumbnail(t, `${images.base}/missing.jpg`)).statusCode, 502);
      const text = await thumbnail(t, `${images.base}/notimage.jpg`);
      assert.equal(text.statusCode, 422);
      assert.match(json(text).detail ?? json(text).status.message, /cannot be decoded/);
      assert.equal((await thumbnail(t, `${images.base}/big.jpg`, 0)).statusCode, 422, 'size 0');
      assert.equal((await thumbnail(t, `${images.base}/big.jpg`, 500)).statusCode, 422, 'size over 320');
    });
  },
  { allowPrivateFetch: true },
);
