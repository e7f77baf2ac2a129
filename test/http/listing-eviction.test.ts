import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { it } from 'node:test';
import type { CatalogListing } from '../../src/modules/products/product-cards.js';
import { describeEachDialect, type TestApp } from '../helpers/test-app.js';

// The card budget (VITRINE_CARD_INDEX_MB) bounds the memory of the stores' listings only if a listing
// it evicts can be collected. A kept search result list (VITRINE_SEARCH_RESULTS_MB) outlives it: its hits
// mapped to listing rows held the listing's snapshot, and with it every row of the evicted listing
// (300-500 KB a store of 2,000 products, for every store with a kept list: bench/index-memory.bench.ts).

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const products = (prefix: string) =>
  Array.from({ length: 40 }, (_, i) => ({
    product_code: `${prefix}${i}`,
    'Product Name': `${i % 2 ? 'Linen' : 'Cotton'} shirt ${i}`,
    Category: 'Shirts',
    'Selling Price': String(20 + i),
    // Complete products (an image too), so that search shows them.
    'Image URL 1': `https://img.example/${prefix}${i}.jpg`,
  }));

async function search(t: TestApp, store: { store_uuid: string; api_token: string }) {
  const res = await t.request({
    method: 'GET',
    // A shopper: the relevance order reads the shopper's taste with the listing it ranks in.
    url: `/v1/search?store_uuid=${store.store_uuid}&query=shirt&limit=5&shopper_id=s1`,
    token: store.api_token,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: Array<{ product_code: string; score: number }> }>().data;
}

describeEachDialect(
  'a listing evicted by the card budget',
  (ctx) => {
    it('is collected while a result list read from it is still kept', async () => {
      const t = ctx();
      // Each store's listing is about 150 KB: ten other stores are more than the 1 MB budget holds.
      const others = [];
      for (let k = 0; k < 10; k++)
        others.push(await t.container.stores.createStore({ workspaceName: `evict-${Date.now()}-${k}`, name: `S${k}` }));
      for (const [k, store] of [t.store, ...others].entries()) {
        const res = await t.request({
          method: 'POST',
          url: `/v1/products?store_uuid=${store.store_uuid}`,
          payload: products(`p${k}-`),
          token: store.api_token,
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      // The listing the first store's search ranks in, seen through the taste it is handed to.
      let seen: WeakRef<object> | undefined;
      const events = t.container.events;
      const tasteOf = events.tasteOf.bind(events);
      events.tasteOf = async (store, shopperId, listing: CatalogListing) => {
        if (store.id === t.store.store_uuid) seen ??= new WeakRef(listing.snapshot);
        return tasteOf(store, shopperId, listing);
      };
      const first = await search(t, t.store);
      assert.ok(seen?.deref(), 'the search read the listing');
      assert.equal(first.length, 5, 'the search found the shirts');
      // The other stores' listings fill the budget: the first store's is evicted, its result list kept.
      for (const store of others) await search(t, store);
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      assert.equal(seen!.deref(), undefined, "the evicted listing's snapshot is still reachable");
      // And the kept list still answers, the same: the store's listing is built again for it.
      assert.deepEqual(await search(t, t.store), first);
      events.tasteOf = tasteOf;
    });
  },
  // The smallest card budget (1 MB): about seven listings of 40 products (128 KB and 0.5 KB a product).
  { cardIndexBytes: 1024 * 1024, searchResultBytes: 32 * 1024 * 1024 },
);
