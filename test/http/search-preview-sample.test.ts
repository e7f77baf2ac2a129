import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { ResultLists } from '../../src/modules/search/result-lists.js';
import { createTextIndex, type SearchOptions, type TextIndex } from '../../src/search/text-index.js';
import { planQuery } from '../../src/search/query-plan.js';

// Suggestions' product previews rank an evenly spread sample of a huge match set (result-lists.ts
// topHits); the text index's `sampleEvery` is what makes the sample. Sized down here: 120 shirts.

const SHIRTS = Array.from({ length: 120 }, (_, i) => ({
  product_code: `S${String(i).padStart(3, '0')}`,
  // Titles of different lengths: bm25 tells them apart.
  'Product Name': `${i % 10 === 0 ? 'Oxford ' : ''}Linen Shirt ${'plain '.repeat(i % 7)}${i % 2 ? 'White' : 'Blue'}`,
  Category: 'Shirts',
  'Selling Price': '20',
  'Image URL 1': `https://img.example/S${i}.jpg`,
}));

/** The store's text index, recording the options of each search. */
function spyIndex(t: TestApp) {
  const index = createTextIndex(t.container.storage);
  const calls: SearchOptions[] = [];
  const spied: TextIndex = {
    ...index,
    write: index.write.bind(index),
    clearStore: index.clearStore.bind(index),
    count: index.count.bind(index),
    search: (storeId, plan, mode, limit, options = {}) => {
      calls.push(options);
      return index.search(storeId, plan, mode, limit, options);
    },
  };
  return { index, spied, calls };
}

function listsOf(t: TestApp, textIndex: TextIndex, sampleSize: number) {
  return new ResultLists({
    storage: t.container.storage,
    textIndex,
    indexer: t.container.searchIndexer,
    products: t.container.productsRead,
    vocabularyBytes: 1 << 20,
    resultBytes: 0,
    changes: t.container.changeLog,
    postingsBytes: 0,
    postingsMinProducts: 1,
    preview: { sampleFrom: 50, sampleSize },
  });
}

describeEachDialect('suggestion previews from a sample of a huge match set', (ctx) => {
  it('ranks every k-th match when asked, best first, and only matches', async () => {
    const t = ctx();
    for (const batch of [SHIRTS.slice(0, 60), SHIRTS.slice(60)]) {
      const res = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: batch,
      });
      assert.equal(json(res).data?.inserted, batch.length, res.body);
    }
    await t.container.searchIndexer.follower.catchUp(t.store.store_uuid);
    const store = await t.container.stores.getStore(t.store.store_uuid);
    const lists = listsOf(t, createTextIndex(t.container.storage), 40);
    const current = await lists.currentVocabulary(store, { readYourWrites: true });
    const { vocabulary } = current;
    const plan = planQuery('shirt', vocabulary, [], { lastWordIsPrefix: false });
    const index = createTextIndex(t.container.storage);
    const all = await index.search(store.id, plan, 'all', 1000);
    assert.equal(all.length, SHIRTS.length);
    const sampled = await index.search(store.id, plan, 'all', 1000, { sampleEvery: 3 });
    // About a third (SQLite: row numbers divisible by 3; PostgreSQL: a hash of the code).
    assert.ok(sampled.length >= 20 && sampled.length <= 60, `${sampled.length} of 120 sampled`);
    const relevance = new Map(all.map((hit) => [hit.productCode, hit.relevance]));
    for (const hit of sampled) assert.equal(hit.relevance, relevance.get(hit.productCode));
    for (let i = 1; i < sampled.length; i++) assert.ok(sampled[i - 1].relevance >= sampled[i].relevance);
    // The best of the sample is the best of the sample, not of everything: its hits are a subset.
    assert.ok(sampled.length < all.length);
  });

  it('previews a sample when the vocabulary counts more matches than the threshold, all matches when the sample is thin', async () => {
    const t = ctx();
    const store = await t.container.stores.getStore(t.store.store_uuid);
    const index = createTextIndex(t.container.storage);

    // 120 products carry "shirt" (more than 50): every 3rd is ranked (120 / 40), and 15 of them fill it.
    const spy = spyIndex(t);
    const lists = listsOf(t, spy.spied, 40);
    const current = await lists.currentVocabulary(store, { readYourWrites: true });
    const { vocabulary } = current;
    const preview = await lists.topHits(store, 'shirt', current, 5, false);
    assert.deepEqual(spy.calls, [{ sampleEvery: 3 }]);
    const plan = planQuery('shirt', vocabulary, [], { lastWordIsPrefix: false });
    const expected = (await index.search(store.id, plan, 'all', 15, { sampleEvery: 3 })).map((h) => h.productCode);
    assert.deepEqual(preview, expected);

    // A sample too thin to fill the preview (every 30th: about 4 of 15 wanted): every match is ranked.
    const thin = spyIndex(t);
    const thinLists = listsOf(t, thin.spied, 4);
    const full = await thinLists.topHits(store, 'shirt', current, 5, false);
    assert.deepEqual(thin.calls, [{ sampleEvery: 30 }, {}]);
    assert.deepEqual(
      full,
      (await index.search(store.id, plan, 'all', 15)).map((h) => h.productCode),
    );

    // A rarer word bounds the matches under the threshold ("oxford": 12 products): no sample.
    const rare = spyIndex(t);
    const oxford = await listsOf(t, rare.spied, 40).topHits(store, 'oxford shirt', current, 5, false);
    assert.deepEqual(rare.calls, [{}]);
    assert.equal(oxford.length, 12);
  });
});
