import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import sharp from 'sharp';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { describeEachDialect, json } from '../helpers/test-app.js';
import { codesOf, indexAll, visualSearch } from '../helpers/visual.js';
import { drawShape, imageForm, startImageServer, type ImageServer } from '../helpers/images.js';

// Search by photo with the fashion head: colour among same shapes, product families, /similar over
// every image of a product, awkward photos, and a head change over vectors of the previous one.
const images = new Map<string, Buffer>();
let server: ImageServer;

/** A shape on a backdrop of any colour (drawShape always uses white). */
async function onBackdrop(shape: 'circle' | 'square', colour: string, backdrop: string) {
  const body =
    shape === 'circle'
      ? `<circle cx="112" cy="112" r="80" fill="${colour}"/>`
      : `<rect x="40" y="40" width="144" height="144" fill="${colour}"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="224" height="224"><rect width="224" height="224" fill="${backdrop}"/>${body}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

before(async () => {
  images.set('/red-circle.jpg', await drawShape('circle', '#d01010'));
  images.set('/red-circle-b.jpg', await drawShape('circle', '#c41818'));
  images.set('/blue-circle.jpg', await drawShape('circle', '#1030d0'));
  images.set('/blue-square.jpg', await drawShape('square', '#1030d0'));
  images.set('/green-stripes.jpg', await drawShape('stripes', '#10a030'));
  images.set('/black-triangle.jpg', await drawShape('triangle', '#111111'));
  server = await startImageServer(images);
});
after(async () => {
  await server.close();
});

const product = (code: string, image: string, extra: Record<string, string> = {}) => ({
  product_code: code,
  'Product Name': `Product ${code}`,
  Category: 'Tops',
  'Selling Price': '10',
  'Image URL 1': `${server.base}${image}`,
  ...extra,
});

describeEachDialect(
  'search by photo with the fashion head',
  (ctx) => {
    it('ranks the same colour first among the same shape, whatever the backdrop of the photo', async () => {
      const t = ctx();
      const res = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [
          product('RED', '/red-circle.jpg'),
          product('BLUE', '/blue-circle.jpg'),
          product('SQ', '/blue-square.jpg'),
          product('STRIPES', '/green-stripes.jpg'),
          product('TRI', '/black-triangle.jpg'),
          // A family: two colour variants of one product, with the parent code FAM.
          product('FAM-RED', '/red-circle-b.jpg', { parent_code: 'FAM', Colour: 'Red' }),
          product('FAM-BLUE', '/blue-circle.jpg', { parent_code: 'FAM', Colour: 'Blue' }),
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      await indexAll(t);
      // A red circle shot on a grey backdrop: the backdrop is not the product's colour.
      const found = await visualSearch(t, await onBackdrop('circle', '#cc1414', '#b8b8b8'), '&group_variants=false');
      assert.equal(found.statusCode, 200, found.body);
      assert.deepEqual(codesOf(found).slice(0, 2).sort(), ['FAM-RED', 'RED']);
      assert.ok(codesOf(found).indexOf('BLUE') > 1, codesOf(found).join());
      assert.equal(found.headers['x-vitrine-unindexed-images'], '0');
    });

    it('answers one product per family unless group_variants=false', async () => {
      const t = ctx();
      const query = await drawShape('circle', '#1535d5');
      const grouped = codesOf(await visualSearch(t, query));
      assert.equal(grouped.filter((c) => c.startsWith('FAM-')).length, 1, grouped.join());
      assert.equal(new Set(grouped).size, grouped.length);
      const all = codesOf(await visualSearch(t, query, '&group_variants=false'));
      assert.ok(all.includes('FAM-RED') && all.includes('FAM-BLUE'), all.join());
      assert.equal(all.length, grouped.length + 1);
      // One per family and colour: both colourways, as a storefront shows them.
      const byColour = codesOf(await visualSearch(t, query, '&group_variants=colour'));
      assert.ok(byColour.includes('FAM-RED') && byColour.includes('FAM-BLUE'), byColour.join());
      assert.deepEqual(codesOf(await visualSearch(t, query, '&group_variants=parent')), grouped);
      const bad = await visualSearch(t, query, '&group_variants=maybe');
      assert.equal(bad.statusCode, 422);
      assert.match(json(bad).detail, /group_variants/);
    });

    it('GET /v1/similar queries with all images of the product and leaves out its family', async () => {
      const t = ctx();
      // TWO shows a red circle and a green-striped detail shot: look-alikes of either rank high.
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [product('TWO', '/red-circle.jpg', { 'Image URL 2': `${server.base}/green-stripes.jpg` })],
      });
      await indexAll(t);
      const similar = await t.request({
        method: 'GET',
        url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=TWO&group_variants=false`,
      });
      assert.equal(similar.statusCode, 200, similar.body);
      const codes = codesOf(similar);
      assert.ok(!codes.includes('TWO'));
      assert.ok(codes.indexOf('RED') < 3 && codes.indexOf('STRIPES') < 3, codes.join());
      // The query is the mean of both images: STRIPES (like the second only) outranks the shapes like neither.
      assert.ok(codes.indexOf('STRIPES') < codes.indexOf('SQ') && codes.indexOf('STRIPES') < codes.indexOf('TRI'));

      const family = codesOf(
        await t.request({ method: 'GET', url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=FAM-RED` }),
      );
      assert.ok(!family.includes('FAM-RED') && !family.includes('FAM-BLUE'), family.join());
      const variants = codesOf(
        await t.request({
          method: 'GET',
          url: `/v1/similar?store_uuid=${t.store.store_uuid}&product_code=FAM-RED&group_variants=false`,
        }),
      );
      assert.ok(variants.includes('FAM-BLUE') && !variants.includes('FAM-RED'), variants.join());
    });

    it('answers awkward photos: all background, transparent, greyscale, 1×1, alpha, CMYK, animated GIF', async () => {
      const t = ctx();
      const white = await sharp({ create: { width: 300, height: 400, channels: 3, background: '#ffffff' } })
        .jpeg()
        .toBuffer();
      const transparent = await sharp({
        create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
      })
        .png()
        .toBuffer();
      const grey = await sharp(await drawShape('circle', '#d01010'))
        .greyscale()
        .png()
        .toBuffer();
      const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#d01010' } })
        .png()
        .toBuffer();
      const withAlpha = await sharp(
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="224" height="224"><circle cx="112" cy="112" r="80" fill="#d01010"/></svg>',
        ),
      )
        .png()
        .toBuffer();
      const cmyk = await sharp(await drawShape('circle', '#d01010'))
        .toColourspace('cmyk')
        .jpeg()
        .toBuffer();
      assert.equal((await sharp(cmyk).metadata()).space, 'cmyk');
      const gif = await sharp([await drawShape('square', '#1030d0'), await drawShape('circle', '#d01010')], {
        join: { animated: true },
      })
        .gif()
        .toBuffer();
      assert.equal((await sharp(gif).metadata()).pages, 2);

      for (const [name, photo, file] of [
        ['all white', white, 'white.jpg'],
        ['transparent', transparent, 'transparent.png'],
        ['greyscale', grey, 'grey.png'],
        ['1×1', tiny, 'tiny.png'],
        ['alpha channel', withAlpha, 'alpha.png'],
        ['CMYK JPEG', cmyk, 'cmyk.jpg'],
        ['animated GIF', gif, 'anim.gif'],
      ] as const) {
        const res = await visualSearch(t, photo, '&group_variants=false', 'image', file);
        assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
        assert.ok(codesOf(res).length > 0, `${name}: results still returned`);
      }
      // The alpha channel is flattened on white: the red circle is found as if shot on white.
      const reds = codesOf(await visualSearch(t, withAlpha, '&group_variants=false')).slice(0, 3);
      assert.deepEqual(reds.sort(), ['FAM-RED', 'RED', 'TWO'], 'the three red circles first');
      // An animated GIF is its first frame: a blue square.
      assert.equal(codesOf(await visualSearch(t, gif, '&group_variants=false'))[0], 'SQ');
    });

    it('after a head change, answers from re-embedded vectors only and says how many are not yet', async () => {
      const t = ctx();
      // The same database served without the head: every stored vector is of another model.
      const shared = { ...t.container.storage, close: async () => {} };
      const plain = createContainer(
        loadConfig(
          {},
          {
            logLevel: 'silent',
            databaseUrl: 'sqlite::memory:',
            rateLimitPerMinute: 100_000,
            allowPrivateFetch: true,
            imageHeadPath: 'none',
          },
        ),
        { storage: shared },
      );
      const app = await buildApp(plain, { logger: false });
      try {
        const { payload, headers } = await imageForm([
          { name: 'image', data: await drawShape('circle', '#d01010'), filename: 'q.jpg' },
        ]);
        const ask = () =>
          app.inject({
            method: 'POST',
            url: `/v1/visual-search?store_uuid=${t.store.store_uuid}`,
            payload,
            headers: { ...headers, authorization: `Bearer ${t.store.api_token}` },
          });
        const before = await ask();
        assert.equal(before.statusCode, 200, before.body);
        assert.deepEqual(before.json().data, [], 'no vector of this model yet: nothing, never a wrong match');
        assert.equal(before.headers['x-vitrine-unindexed-images'], '6');
        // Re-embedding starts with the worker (it re-queues vectors of other models), then answers fully.
        await plain.imageWorker.start();
        try {
          const deadline = Date.now() + 30_000;
          while ((await plain.visual.status(t.store.store_uuid, 0)).pending > 0 && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 50));
        } finally {
          await plain.imageWorker.stop();
        }
        const afterwards = await ask();
        assert.equal(afterwards.headers['x-vitrine-unindexed-images'], '0');
        assert.ok(['RED', 'TWO'].includes(afterwards.json().data[0]?.product_code), afterwards.body);
      } finally {
        await app.close();
        await plain.close();
      }
    });
  },
  { allowPrivateFetch: true },
);
