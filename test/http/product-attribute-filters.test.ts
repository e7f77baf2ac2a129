import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { dress, product } from '../factories/products.js';

async function list(t: TestApp, query: string) {
  const res = await t.request({ method: 'GET', url: `/v1/products?store_uuid=${t.store.store_uuid}&${query}` });
  assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
  const data = json(res).data;
  return {
    total: data.total as number,
    codes: data.products.map((p: any) => p.product_code as string),
    facets: data.facets as Record<string, Array<{ value: string; count: number }>> | undefined,
  };
}
const filters = (value: unknown) => `filters=${encodeURIComponent(JSON.stringify(value))}`;

async function seed(t: TestApp) {
  const res = await t.request({
    method: 'POST',
    url: `/v1/products?store_uuid=${t.store.store_uuid}`,
    payload: [
      product('S-1', { Colour: 'Navy Blue', Brand: 'Acme', Category: 'T-Shirts' }),
      product('S-2', { Colour: 'navy blue', Brand: 'Acme', Category: 'Tshirts', 'Selling Price': '12' }),
      product('S-3', { Colour: 'Red', Brand: 'Other', Status: 'draft' }),
      dress('D-1', { Colour: 'Red', Brand: 'Acme', 'Selling Price': '80' }),
      dress('D-2', { Colour: 'Black', 'Selling Price': '' }),
    ],
  });
  assert.equal(res.statusCode, 200);
}

describeEachDialect('GET /v1/products attribute filters and facets', (ctx) => {
  it('filters any status in the catalog filter language, pages through the matches and counts facets disjunctively', async () => {
    const t = ctx();
    await seed(t);
    // Category labels read through the vocabulary: T-Shirts = Tshirts; a draft and a problem product are listed too.
    assert.deepEqual((await list(t, filters({ Category: 't-shirt' }))).codes, ['S-1', 'S-2']);
    assert.deepEqual((await list(t, filters({ colour: 'red' }))).codes, ['D-1', 'S-3']);
    assert.deepEqual((await list(t, filters({ Department: 'Women' }))).codes, ['D-1', 'D-2']);
    assert.deepEqual((await list(t, filters({ 'Selling Price': { lte: 50 } }))).codes, ['S-1', 'S-2', 'S-3']);
    assert.deepEqual((await list(t, filters({ Brand: ['acme', 'other'], Colour: 'Red' }))).codes, ['D-1', 'S-3']);
    assert.deepEqual((await list(t, filters({ Fabric: 'linen' }))).codes, []);
    // With the other parameters: status, reason, text, paging.
    assert.deepEqual(await list(t, `${filters({ Colour: 'Red' })}&status=draft`), {
      total: 1,
      codes: ['S-3'],
      facets: undefined,
    });
    const problem = await list(t, `${filters({ Department: 'Women' })}&reason=${encodeURIComponent('Missing price')}`);
    assert.deepEqual(problem.codes, ['D-2']);
    const paged = await list(t, `${filters({ Brand: 'Acme' })}&limit=2&offset=1`);
    assert.deepEqual({ total: paged.total, codes: paged.codes }, { total: 3, codes: ['S-1', 'S-2'] });

    // Disjunctive: the Colour facet ignores the Colour condition, Brand counts only red products.
    const faceted = await list(t, `${filters({ Colour: 'Red' })}&facets=Colour,Brand`);
    assert.deepEqual(faceted.codes, ['D-1', 'S-3']);
    assert.deepEqual(faceted.facets, {
      Colour: [
        { value: 'Navy Blue', count: 2 },
        { value: 'Red', count: 2 },
        { value: 'Black', count: 1 },
      ],
      Brand: [
        { value: 'Acme', count: 1 },
        { value: 'Other', count: 1 },
      ],
    });
    // Facets alone count over everything the other parameters select; facet_limit cuts each list.
    const limited = await list(t, 'facets=Brand&facets=Department&facet_limit=1&status=draft');
    assert.deepEqual(limited.facets, {
      Brand: [{ value: 'Other', count: 1 }],
      Department: [{ value: 'Men', count: 1 }],
    });
  });

  it('sees a write at once (the cached scan is keyed by the catalog change sequence)', async () => {
    const t = ctx();
    await seed(t);
    const query = `${filters({ Colour: 'Black' })}&facets=Colour`;
    assert.deepEqual((await list(t, query)).codes, ['D-2']);
    const res = await t.request({
      method: 'PUT',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [{ product_code: 'S-1', Colour: 'Black' }],
    });
    assert.equal(json(res).data.updated, 1);
    const after = await list(t, query);
    assert.deepEqual(after.codes, ['D-2', 'S-1']);
    assert.deepEqual(after.facets?.Colour.slice(0, 2), [
      { value: 'Black', count: 2 },
      { value: 'Red', count: 2 },
    ]);
  });

  it('refuses filters that are not JSON (400) or of the wrong shape (422), and too many facets (422), naming the parameter', async () => {
    const t = ctx();
    const ask = (query: string) =>
      t.request({ method: 'GET', url: `/v1/products?store_uuid=${t.store.store_uuid}&${query}` });
    const notJson = await ask('filters=%7Bnot');
    assert.equal(notJson.statusCode, 400);
    assert.match(json(notJson).detail, /filters/);
    const shape = await ask(filters({ 'Selling Price': { between: 3 } }));
    assert.equal(shape.statusCode, 422);
    assert.match(json(shape).detail, /filters.*Selling Price.*between/);
    const many = await ask(`facets=${Array.from({ length: 21 }, (_, i) => `a${i}`).join(',')}`);
    assert.equal(many.statusCode, 422);
    assert.match(json(many).detail, /facets/);
    const limit = await ask('facets=Colour&facet_limit=0');
    assert.equal(limit.statusCode, 422);
    assert.match(json(limit).detail, /facet_limit/);
  });

  it("never shows another store's products", async () => {
    const t = ctx();
    await seed(t);
    const other = await t.container.stores.createStore({ workspaceName: `other-${Date.now()}`, name: 'Other' });
    const res = await t.request({
      method: 'GET',
      url: `/v1/products?store_uuid=${other.store_uuid}&${filters({ Brand: 'Acme' })}&facets=Brand`,
      token: other.api_token,
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res).data, { store_uuid: other.store_uuid, total: 0, products: [], facets: { Brand: [] } });
  });
});
