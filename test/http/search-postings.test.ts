import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { PostingsIndex } from '../../src/modules/search/postings-index.js';
import { createTextIndex, type MatchMode, type SearchOptions, type TextHit } from '../../src/search/text-index.js';
import { containsPhrase, type Alternative, type QueryPlan } from '../../src/search/query-plan.js';

// Large stores rank text in memory (src/search/ranked-postings.ts) with FTS5's own bm25: the same
// hits in the same order with the same relevance as FTS5, before and after the catalog changes
// (the postings follow the change log). The store size from which it applies is set to 1 here.

const COLOURS = ['red', 'navy', 'black', 'white', 'olive'];
const KINDS = ['shirt', 'dress', 'jacket', 'skirt'];
const products = Array.from({ length: 60 }, (_, i) => ({
  product_code: `P${String(i).padStart(2, '0')}`,
  // Titles of different lengths and repeated words: bm25's length and frequency factors tell them apart.
  'Product Name': `${i % 4 === 0 ? 'Linen ' : ''}${COLOURS[i % 5]} ${KINDS[i % 4]} ${'classic '.repeat(i % 3)}${i % 7 === 0 ? KINDS[(i + 1) % 4] : ''}`,
  Category: i % 2 ? 'Tops' : 'Shirts',
  Colour: COLOURS[(i + 2) % 5],
  'Selling Price': String(10 + i),
  'Image URL 1': `https://img.example/P${i}.jpg`,
}));

const word = (token: string): Alternative => ({ kind: 'phrase', tokens: [token] });
const prefix = (token: string): Alternative => ({ kind: 'prefix', token });
// The query's words are each clause's first alternative: whether a title holds them in order is search's phrase tier.
const plan = (...clauses: Alternative[][]): QueryPlan => ({
  clauses,
  tokens: clauses.map(([first]) => (first.kind === 'phrase' ? first.tokens.join(' ') : first.token)),
});

const QUERIES: Array<[QueryPlan, MatchMode]> = [
  [plan([word('shirt')]), 'all'],
  [plan([prefix('sh')]), 'all'],
  [plan([word('red')], [word('shirt')]), 'all'],
  [plan([word('navy'), word('black')], [prefix('jack')]), 'all'],
  [plan([word('classic')], [word('linen')], [word('dress')]), 'all'],
  [plan([word('olive')], [word('skirt')]), 'any'],
  [plan([word('nothing')]), 'all'],
  [plan([word('top')], [word('white')]), 'all'],
  [plan([word('linen')], [word('red')], [word('shirt')]), 'all'],
  [plan([word('shirt')], [word('red')]), 'all'],
];

async function send(t: TestApp, method: 'POST' | 'PUT', body: unknown) {
  const res = await t.request({
    method,
    url: `/v1/products?store_uuid=${t.store.store_uuid}`,
    payload: body as object,
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** The postings' answer once they are current at the index's position (the first asks start the build or follow). */
async function fromPostings(
  t: TestApp,
  postings: PostingsIndex,
  query: QueryPlan,
  mode: MatchMode,
  limit = 1000,
  options: SearchOptions = {},
) {
  await t.container.searchIndexer.follower.catchUp(t.store.store_uuid);
  const store = await t.container.stores.getStore(t.store.store_uuid);
  const { cursor } = await t.container.searchIndexer.follower.readYourWritesAt(store, { apply: false });
  for (let attempt = 0; attempt < 200; attempt++) {
    const hits = await postings.search(store, cursor, query, mode, limit, options);
    if (hits) return hits;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the postings never became current');
}

/** The postings tell whether each title holds the query's words in order (`titlePhrase`); the engine gives the title. */
function assertSameHits(actual: TextHit[], expected: TextHit[], what: string, query: QueryPlan): number {
  assert.deepEqual(
    actual.map((hit) => hit.productCode),
    expected.map((hit) => hit.productCode),
    what,
  );
  actual.forEach((hit, i) =>
    assert.ok(
      Math.abs(hit.relevance - expected[i].relevance) <= 1e-12 * Math.abs(expected[i].relevance),
      `${what}: ${hit.productCode} ${hit.relevance} against ${expected[i].relevance}`,
    ),
  );
  assert.deepEqual(
    actual.map((hit) => ('titlePhrase' in hit ? hit.titlePhrase : undefined)),
    expected.map((hit) => 'titleTerms' in hit && containsPhrase(hit.titleTerms.split(' '), query.tokens)),
    `${what}: phrase matches`,
  );
  return actual.filter((hit) => 'titlePhrase' in hit && hit.titlePhrase).length;
}

describeEachDialect(
  'text ranked in memory for large stores',
  (ctx, dialect) => {
    it('ranks as FTS5 does, and still after products change, are hidden, come back and are reindexed', async (test) => {
      const t = ctx();
      const engine = createTextIndex(t.container.storage);
      await send(t, 'POST', products);
      await send(t, 'POST', [{ ...products[5], product_code: 'N1', 'Product Name': 'Shirt Shirt Shirt' }]);
      if (!engine.documents) {
        assert.equal(dialect, 'postgres');
        test.skip('PostgreSQL ranks with its own engine: no postings');
        return;
      }
      await send(t, 'PUT', [{ product_code: 'N1', Status: 'inactive' }]);
      const postings = new PostingsIndex({
        documents: engine.documents,
        changes: t.container.changeLog,
        budgetBytes: 64 << 20,
        minDocs: 1,
      });
      const storeId = (await t.container.stores.getStore(t.store.store_uuid)).id;
      const compare = async (when: string) => {
        await t.container.searchIndexer.follower.catchUp(t.store.store_uuid);
        let phraseMatches = 0;
        for (const [query, mode] of QUERIES) {
          const expected = await engine.search(storeId, query, mode, 1000);
          const what = `${when}: ${JSON.stringify(query.clauses)} (${mode})`;
          phraseMatches += assertSameHits(await fromPostings(t, postings, query, mode), expected, what, query);
          // The cut of a window: the best few, equal scores taken in index order as FTS5 takes them.
          assertSameHits(
            await fromPostings(t, postings, query, mode, 7),
            await engine.search(storeId, query, mode, 7),
            what,
            query,
          );
          // Asked in any order (the caller sorts): the same hits of the same window.
          const loose = await fromPostings(t, postings, query, mode, 7, { unordered: true });
          assert.deepEqual(
            loose.map((hit) => hit.productCode).sort(),
            expected
              .slice(0, 7)
              .map((hit) => hit.productCode)
              .sort(),
            `${what}: unordered`,
          );
        }
        assert.ok(phraseMatches > 0, `${when}: some titles hold a query's words in order`);
      };
      await compare('built');

      // Renamed, hidden, new: the postings follow the change log.
      await send(t, 'PUT', [
        { product_code: 'P01', 'Product Name': 'Olive Linen Jacket Jacket' },
        { product_code: 'P02', Status: 'inactive' },
        { product_code: 'P03', 'Product Name': 'Red Shirt Dress' },
      ]);
      await send(t, 'PUT', [{ product_code: 'N1', Status: 'active' }]);
      await compare('followed');
      const shirts = await fromPostings(t, postings, plan([word('shirt')]), 'all');
      assert.ok(shirts.some((hit) => hit.productCode === 'N1'));
      assert.ok(!shirts.some((hit) => hit.productCode === 'P02'));
      await send(t, 'PUT', [{ product_code: 'P02', Status: 'active' }]);
      await compare('back');
      // `vitrine reindex` numbers every document anew under the same position: found out, built again.
      await t.container.searchIndexer.rebuild(t.store.store_uuid);
      await compare('reindexed');

      // A phrase of several words is the engine's: no answer from the postings.
      const store = await t.container.stores.getStore(t.store.store_uuid);
      const phrase = plan([{ kind: 'phrase', tokens: ['red', 'shirt'] }]);
      assert.equal(await postings.search(store, Number.MAX_SAFE_INTEGER, phrase, 'all', 10), undefined);
      postings.close();
    });

    it('answers text search through the postings once built', async () => {
      const t = ctx();
      const search = async () => {
        const res = await t.request({
          method: 'GET',
          url: `/v1/search?store_uuid=${t.store.store_uuid}&query=shirt&limit=5&group=false`,
        });
        assert.equal(res.statusCode, 200, res.body);
        return json(res).data.map((hit: { product_code: string }) => hit.product_code);
      };
      const first = await search();
      assert.equal(first.length, 5);
      // (PostgreSQL ranks with its own engine; the metrics registry is the process's, shared with the SQLite suite.)
      if (dialect === 'postgres') return;
      // The first query started the build (the engine answered it); the metrics count the store once built.
      let built = false;
      for (let attempt = 0; attempt < 200 && !built; attempt++) {
        const metrics = (await t.request({ method: 'GET', url: '/metrics' })).body;
        const stores = /vitrine_index_memory_bytes\{index="search\.postings",measure="stores"\} (\d+)/.exec(metrics);
        built = Number(stores?.[1] ?? 0) >= 1;
        if (!built) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(built, 'the postings were built');
      assert.deepEqual(await search(), first);
    });
  },
  { searchPostingsFrom: 1 },
);
