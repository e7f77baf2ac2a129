import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';

// A plain text search answers from its first hits and a count of every match (PostgreSQL counts them
// in the read that ranks them): the total and the page must be those of the whole result list, which a
// listing page (POST /v1/search/query) reads.

const products = Array.from({ length: 45 }, (_, i) => ({
  product_code: `T${String(i).padStart(2, '0')}`,
  'Product Name': `${i % 3 === 0 ? 'Linen' : 'Cotton'} ${i % 5 === 0 ? 'oxford ' : ''}shirt ${i}`,
  Category: i % 2 ? 'Shirts' : 'Tops',
  'Selling Price': String(20 + i),
  'Image URL 1': `https://img.example/T${i}.jpg`,
}));

describeEachDialect('text search totals beyond the first page', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = ctx();
    const res = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: products,
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  for (const [query, matching] of [
    ['shirt', 45],
    ['linen shirt', 15],
    ['oxford', 9],
    ['cotton oxford shirt', 6],
  ] as const) {
    it(`"${query}": every match counted, the page the listing's`, async () => {
      const page = await t.request({
        method: 'GET',
        url: `/v1/search?store_uuid=${t.store.store_uuid}&query=${encodeURIComponent(query)}&limit=3&offset=2`,
      });
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(page.headers['x-total-count'], String(matching));
      const listing = await t.request({
        method: 'POST',
        url: `/v1/search/query?store_uuid=${t.store.store_uuid}`,
        payload: { query, offset: 2, limit: 3 },
      });
      assert.equal(listing.statusCode, 200, listing.body);
      const listed = json(listing).data as { total: number; hits: Array<{ product_code: string; score: number }> };
      assert.equal(listed.total, matching);
      const hits = json(page).data as Array<{ product_code: string; score: number }>;
      assert.deepEqual(
        hits.map((hit) => [hit.product_code, hit.score]),
        listed.hits.map((hit) => [hit.product_code, hit.score]),
      );
    });
  }
});
