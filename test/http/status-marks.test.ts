import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../helpers/test-app.js';
import { product } from '../factories/products.js';
import { ProductQueries } from '../../src/modules/products/product-queries.js';
import { SeqCache } from '../../src/storage/seq-cache.js';

// Deep pages of the status listing start at the nearest kept code ("mark") instead of stepping over
// every product before them. The pages must be exactly those of a plain OFFSET, for every offset,
// with and without a status, and follow a write at once.
describeEachDialect('status listing and products from marks', (ctx) => {
  const statuses = ['new', 'inactive', 'draft'];
  const write = async (codes: number[], extra: (i: number) => Record<string, unknown>) => {
    for (let at = 0; at < codes.length; at += 100) {
      const res = await ctx().request({
        method: 'POST',
        url: `/v1/products?store_uuid=${ctx().store.store_uuid}`,
        payload: codes.slice(at, at + 100).map((i) => product(`M-${String(i).padStart(4, '0')}`, extra(i))),
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  };

  it('answers every page as a plain offset does, with and without a status, and after a write', async () => {
    const codes = Array.from({ length: 230 }, (_, i) => i * 3);
    await write(codes, (code) => ({ Status: statuses[(code / 3) % 3] }));
    const { storage } = ctx().container;
    const store = await ctx().container.stores.getStore(ctx().store.store_uuid);
    const pages = async (queries: ProductQueries, status?: string) => {
      const all = [];
      for (let offset = 0; offset <= 240; offset += 11)
        all.push((await queries.statusListing(store, { status, offset, limit: 13 })).data);
      return all;
    };
    const plain = () => new ProductQueries(storage, new SeqCache('plain', 0), { marks: { every: 7, from: Infinity } });
    const marked = new ProductQueries(storage, new SeqCache('marks'), { marks: { every: 7, from: 10 } });
    // Full products (GET /v1/products) page the same way when nothing but a status narrows them.
    const products = async (queries: ProductQueries, status?: string) => {
      const all = [];
      for (let offset = 0; offset <= 240; offset += 17)
        all.push((await queries.listProducts(store, { status, offset, limit: 9 })).products);
      return all;
    };
    for (const status of [undefined, 'new', 'inactive']) {
      const expected = await pages(plain(), status);
      assert.ok(
        expected.some((page) => page.length > 0),
        `status ${status ?? 'any'} lists products`,
      );
      assert.deepEqual(await pages(marked, status), expected, `status ${status ?? 'any'}`);
      assert.deepEqual(await products(marked, status), await products(plain(), status), `products ${status ?? 'any'}`);
    }
    // Codes between the kept ones move every later product's position: the next read is of the new catalog.
    await write([1, 2, 4, 5], () => ({ Status: 'new' }));
    const after = await ctx().container.stores.getStore(ctx().store.store_uuid);
    assert.notEqual(after.changeSeq, store.changeSeq);
    const page = async (queries: ProductQueries) =>
      (await queries.statusListing(after, { offset: 100, limit: 13 })).data;
    assert.deepEqual(await page(marked), await page(plain()));
    const full = async (queries: ProductQueries) =>
      (await queries.listProducts(after, { offset: 100, limit: 9 })).products;
    assert.deepEqual(await full(marked), await full(plain()));
  });
});
