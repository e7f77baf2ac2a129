import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';

const item = (code: string, name: string, category: string) => ({
  product_code: code,
  'Product Name': name,
  Category: category,
  Department: 'Women',
  'Selling Price': '30',
  'Image URL 1': `https://img.example/${code}.jpg`,
});

async function results(t: TestApp, storeUuid: string, token: string, query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/v1/search?store_uuid=${storeUuid}&query=${encodeURIComponent(query)}&limit=20`,
    token,
  });
  assert.equal(res.statusCode, 200, res.body);
  return JSON.stringify(json(res).data);
}

describeEachDialect('search statistics are per store', (ctx) => {
  it("a store's results and scores do not move when another workspace writes products", async () => {
    const t = ctx();
    const mine = t.store;
    await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${mine.store_uuid}`,
      payload: [
        item('a1', 'Blue linen shirt', 'Shirts'),
        item('a2', 'Red silk dress', 'Dresses'),
        item('a3', 'Linen trousers', 'Trousers'),
        item('a4', 'Striped cotton shirt dress', 'Dresses'),
        item('a5', 'Wool coat', 'Coats'),
      ],
    });
    const queries = ['linen shirt', 'dress', 'shirt dress', 'linen'];
    const before = await Promise.all(queries.map((q) => results(t, mine.store_uuid, mine.api_token, q)));

    // Another workspace fills its store with the same words, in very different proportions.
    const other = await t.container.stores.createStore({ workspaceName: `tenancy-${Date.now()}`, name: 'Other' });
    const flood = Array.from({ length: 100 }, (_, i) =>
      item(`b${i}`, i % 2 ? 'Linen shirt linen shirt' : 'Dress dress shirt', i % 3 ? 'Shirts' : 'Dresses'),
    );
    const written = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${other.store_uuid}`,
      payload: flood,
      token: other.api_token,
    });
    assert.equal(written.statusCode, 200);
    // The other store's search sees its own products (its index is up to date).
    assert.match(await results(t, other.store_uuid, other.api_token, 'linen shirt'), /b1/);

    const after = await Promise.all(queries.map((q) => results(t, mine.store_uuid, mine.api_token, q)));
    for (const [i, query] of queries.entries()) assert.equal(after[i], before[i], `results and scores of "${query}"`);
  });
});
