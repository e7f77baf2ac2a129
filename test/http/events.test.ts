import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';
import { dress, product } from '../factories/products.js';

async function track(t: TestApp, events: unknown, token?: string, storeUuid = t.store.store_uuid) {
  const res = await t.request({
    method: 'POST',
    url: `/v1/events?store_uuid=${storeUuid}`,
    payload: events as object,
    ...(token ? { token } : {}),
  });
  return { status: res.statusCode, body: json(res) };
}

/** The per-product, per-day counters of a product, summed over days. */
async function counters(t: TestApp, code: string) {
  const rows = await t.container.storage.db
    .selectFrom('product_event_days')
    .selectAll()
    .where('product_code', '=', code)
    .execute();
  return rows.reduce(
    (sum, row) => ({
      views: sum.views + Number(row.views),
      clicks: sum.clicks + Number(row.clicks),
      carts: sum.carts + Number(row.carts),
      purchases: sum.purchases + Number(row.purchases),
    }),
    { views: 0, clicks: 0, carts: 0, purchases: 0 },
  );
}

describeEachDialect(
  'shopper events: POST /v1/events',
  (ctx) => {
    before(async () => {
      const t = ctx();
      const res = await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [dress('E-DRESS'), product('E-SHIRT')],
      });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('stores a batch, folds product events into daily counters, and counts a retry once', async () => {
      const t = ctx();
      const batch = [
        { event_id: 'e1', type: 'view', product_code: 'E-DRESS', session_id: 's1' },
        { event_id: 'e2', type: 'click', product_code: 'E-DRESS', query: 'dress', position: 1, session_id: 's1' },
        { event_id: 'e3', type: 'add_to_cart', product_code: 'E-DRESS', quantity: 1, session_id: 's1' },
        { event_id: 'e4', type: 'purchase', product_code: 'E-DRESS', quantity: 2, price: 30, session_id: 's1' },
        { event_id: 'e5', type: 'search', query: 'summer dress', hits: 12, session_id: 's1' },
        {
          event_id: 'e6',
          type: 'view',
          product_code: 'E-SHIRT',
          time: new Date(Date.now() - 86_400_000).toISOString(),
        },
      ];
      const first = await track(t, batch);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(first.body.data, { accepted: 6, duplicate: 0, rejected: 0, error_info: [] });
      assert.deepEqual(await counters(t, 'E-DRESS'), { views: 1, clicks: 1, carts: 1, purchases: 1 });
      assert.deepEqual(await counters(t, 'E-SHIRT'), { views: 1, clicks: 0, carts: 0, purchases: 0 });
      // The client retries the whole batch (and repeats an id inside one): nothing counts twice.
      const retry = await track(t, [...batch, batch[0]]);
      assert.deepEqual(retry.body.data, { accepted: 0, duplicate: 7, rejected: 0, error_info: [] });
      assert.deepEqual(await counters(t, 'E-DRESS'), { views: 1, clicks: 1, carts: 1, purchases: 1 });
    });

    it('rejects each faulty event with its reason and stores the others', async () => {
      const t = ctx();
      const now = Date.now();
      const res = await track(t, [
        { event_id: 'r0', type: 'view', product_code: 'E-DRESS' },
        { event_id: 'r1', type: 'view', product_code: 'NOT-IN-CATALOG' },
        { event_id: 'r2', type: 'wishlist', product_code: 'E-DRESS' },
        { event_id: 'r3', type: 'view', product_code: 'E-DRESS', time: new Date(now - 8 * 86_400_000).toISOString() },
        { event_id: 'r4', type: 'view', product_code: 'E-DRESS', time: new Date(now + 10 * 60_000).toISOString() },
        { event_id: 'r5', type: 'search', hits: 3 },
        { event_id: 'r6', type: 'click', product_code: 'E-DRESS', position: 0 },
        { type: 'view', product_code: 'E-DRESS' },
        { event_id: 'r9', type: 'view' },
        { event_id: 'r10', type: 'view', product_code: 'E-DRESS', time: 'yesterday' },
      ]);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const reasons = res.body.data.error_info.map((e: { index: number; reason: string }) => [e.index, e.reason]);
      assert.deepEqual(reasons, [
        [1, 'unknown_product'],
        [2, 'invalid_type'],
        [3, 'too_old'],
        [4, 'in_the_future'],
        [5, 'missing_query'],
        [6, 'invalid_field'],
        [7, 'invalid_event_id'],
        [8, 'missing_product'],
        [9, 'invalid_time'],
      ]);
      assert.equal(res.body.data.accepted, 1);
      assert.equal(res.body.data.rejected, 9);
      // An item that is not an object is a malformed batch, as for products (422, nothing stored).
      const malformed = await track(t, [{ event_id: 'm1', type: 'view', product_code: 'E-DRESS' }, 'not an event']);
      assert.equal(malformed.status, 422);
      const tooMany = await track(
        t,
        Array.from({ length: 501 }, (_, i) => ({ event_id: `big${i}`, type: 'view', product_code: 'E-DRESS' })),
      );
      assert.equal(tooMany.status, 413);
      const notArray = await track(t, { event_id: 'x' });
      assert.equal(notArray.status, 422);
    });

    it('keeps shopper ids only as a keyed hash, and erases a shopper with what they added', async () => {
      const t = ctx();
      const before = await counters(t, 'E-SHIRT');
      await track(t, [
        { event_id: 'p1', type: 'click', product_code: 'E-SHIRT', shopper_id: 'alice@example.com' },
        { event_id: 'p2', type: 'purchase', product_code: 'E-SHIRT', shopper_id: 'alice@example.com' },
        { event_id: 'p3', type: 'click', product_code: 'E-SHIRT', shopper_id: 'bob' },
      ]);
      const stored = await t.container.storage.db
        .selectFrom('shopper_events')
        .select(['event_id', 'shopper_hash'])
        .where('event_id', 'in', ['p1', 'p2', 'p3'])
        .execute();
      assert.equal(stored.length, 3);
      for (const row of stored)
        assert.ok(row.shopper_hash && !row.shopper_hash.includes('alice') && row.shopper_hash !== 'bob');
      assert.equal(new Set(stored.map((row) => row.shopper_hash)).size, 2, 'one hash per shopper');

      const erase = await t.app.inject({
        method: 'DELETE',
        url: `/admin/v1/stores/${t.store.store_uuid}/shoppers/${encodeURIComponent('alice@example.com')}`,
        headers: adminHeaders,
      });
      assert.equal(erase.statusCode, 200, erase.body);
      assert.equal(json(erase).data.erased_events, 2);
      // Alice's click and purchase are gone from the counters; Bob's click stays.
      assert.deepEqual(await counters(t, 'E-SHIRT'), { ...before, clicks: before.clicks + 1 });
      const left = await t.container.storage.db
        .selectFrom('shopper_events')
        .select('event_id')
        .where('event_id', 'in', ['p1', 'p2', 'p3'])
        .execute();
      assert.deepEqual(
        left.map((row) => row.event_id),
        ['p3'],
      );
    });

    it('orders listings by trending and popular from the events, and a store without events as before', async () => {
      const t = ctx();
      const listing = async (body: object) => {
        const res = await t.request({
          method: 'POST',
          url: `/v1/search/query?store_uuid=${t.store.store_uuid}`,
          payload: { group_variants: 'false', limit: 10, ...body },
        });
        assert.equal(res.statusCode, 200, res.body);
        return json(res).data.hits.map((h: { product_code: string }) => h.product_code) as string[];
      };
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: ['T-COLD', 'T-WARM', 'T-HOT'].map((code) => product(code, { Brand: 'Trendy' })),
      });
      const before = await listing({ sort: 'trending', filters: { Brand: 'Trendy' } });
      assert.deepEqual(before, ['T-COLD', 'T-HOT', 'T-WARM'], 'no events: ties by product_code');
      // Planted (simulated sessions): many views of T-WARM, a few purchases of T-HOT (a purchase
      // weighs 20 views), and yesterday's purchase of T-COLD.
      const yesterday = new Date(Date.now() - 86_400_000).toISOString();
      const session = (i: number) => `trend-session-${i}`;
      await track(t, [
        ...Array.from({ length: 30 }, (_, i) => ({
          event_id: `tw${i}`,
          type: 'view',
          product_code: 'T-WARM',
          session_id: session(i),
        })),
        ...Array.from({ length: 3 }, (_, i) => ({
          event_id: `th${i}`,
          type: 'purchase',
          product_code: 'T-HOT',
          session_id: session(i),
        })),
        { event_id: 'tc0', type: 'purchase', product_code: 'T-COLD', time: yesterday, session_id: session(0) },
      ]);
      const filters = { Brand: 'Trendy' };
      assert.deepEqual(await listing({ sort: 'trending', filters }), ['T-HOT', 'T-WARM', 'T-COLD']);
      assert.deepEqual(await listing({ sort: 'popular', filters }), ['T-HOT', 'T-COLD', 'T-WARM']);
      // GET /v1/search takes the same sorts.
      const res = await t.request({
        method: 'GET',
        url: `/v1/search?store_uuid=${t.store.store_uuid}&query=shirt&sort=trending&group_variants=false&limit=3`,
      });
      assert.equal(json(res).data[0].product_code, 'T-HOT');
    });

    it('orders a collection by trendScore and qualityScore after its heroes; without events as before', async () => {
      const t = ctx();
      const store = await t.container.stores.getStore(t.store.store_uuid);
      const images = (code: string, n: number) =>
        Object.fromEntries(
          Array.from({ length: n }, (_, i) => [`Image URL ${i + 1}`, `https://img.example/${code}-${i}.jpg`]),
        );
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: [
          product('C-A', { Brand: 'Coll', ...images('C-A', 1) }),
          product('C-B', { Brand: 'Coll', ...images('C-B', 4), Description: 'A linen shirt for warm summer days.' }),
          product('C-C', { Brand: 'Coll', ...images('C-C', 2) }),
          product('C-H', { Brand: 'Coll' }),
        ],
      });
      await t.container.collections.create(store, [
        {
          id: 'by-trend',
          name: 'Trend',
          filters: { Brand: 'Coll' },
          heroProducts: ['C-H'],
          sortBy: { static: { trendScore: true } },
        },
        { id: 'by-quality', name: 'Quality', filters: { Brand: 'Coll' }, sortBy: { static: { qualityScore: true } } },
      ]);
      const members = async (id: string) => {
        const res = await t.request({
          method: 'GET',
          url: `/v1/collection/${id}/products?store_uuid=${t.store.store_uuid}`,
        });
        assert.equal(res.statusCode, 200, res.body);
        return json(res).data.products.map((p: { product_code: string }) => p.product_code) as string[];
      };
      // No events for these products: the hero, then product_code order.
      assert.deepEqual(await members('by-trend'), ['C-H', 'C-A', 'C-B', 'C-C']);
      // More images and a description first.
      assert.deepEqual(await members('by-quality'), ['C-B', 'C-C', 'C-A', 'C-H']);
      // Planted popularity: C-C bought, C-B clicked; the hero stays first.
      await track(t, [
        { event_id: 'cc1', type: 'purchase', product_code: 'C-C', shopper_id: 'coll-1' },
        { event_id: 'cc2', type: 'purchase', product_code: 'C-C', shopper_id: 'coll-2' },
        { event_id: 'cb1', type: 'click', product_code: 'C-B', shopper_id: 'coll-1' },
      ]);
      assert.deepEqual(await members('by-trend'), ['C-H', 'C-C', 'C-B', 'C-A']);
    });

    it('counts each shopper, session or sender once per product, day and type: a flood cannot move the trend', async () => {
      const t = ctx();
      await t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${t.store.store_uuid}`,
        payload: ['F-FLOOD', 'F-FAN', 'F-ANON'].map((code) => product(code, { Brand: 'Flood' })),
      });
      // One shopper sends 400 views and 50 purchases of F-FLOOD; one sender without any id floods
      // F-ANON; five shoppers view F-FAN once each.
      const flood = await track(t, [
        ...Array.from({ length: 400 }, (_, i) => ({
          event_id: `fl${i}`,
          type: 'view',
          product_code: 'F-FLOOD',
          shopper_id: 'flooder',
        })),
        ...Array.from({ length: 50 }, (_, i) => ({
          event_id: `fp${i}`,
          type: 'purchase',
          product_code: 'F-FLOOD',
          shopper_id: 'flooder',
        })),
      ]);
      assert.equal(flood.body.data.accepted, 450, 'every event is kept (analytics), only the first counts');
      await track(
        t,
        Array.from({ length: 300 }, (_, i) => ({ event_id: `an${i}`, type: 'view', product_code: 'F-ANON' })),
      );
      await track(
        t,
        Array.from({ length: 5 }, (_, i) => ({
          event_id: `fan${i}`,
          type: 'add_to_cart',
          product_code: 'F-FAN',
          shopper_id: `fan-${i}`,
        })),
      );
      assert.deepEqual(await counters(t, 'F-FLOOD'), { views: 1, clicks: 0, carts: 0, purchases: 1 });
      assert.deepEqual(await counters(t, 'F-ANON'), { views: 1, clicks: 0, carts: 0, purchases: 0 });
      assert.deepEqual(await counters(t, 'F-FAN'), { views: 0, clicks: 0, carts: 5, purchases: 0 });
      const res = await t.request({
        method: 'POST',
        url: `/v1/search/query?store_uuid=${t.store.store_uuid}`,
        payload: { group_variants: 'false', sort: 'trending', filters: { Brand: 'Flood' } },
      });
      assert.deepEqual(
        json(res).data.hits.map((h: { product_code: string }) => h.product_code),
        ['F-FAN', 'F-FLOOD', 'F-ANON'],
      );
      // Erasing the flooder takes back exactly what they added, and their next event counts again.
      await t.app.inject({
        method: 'DELETE',
        url: `/admin/v1/stores/${t.store.store_uuid}/shoppers/flooder`,
        headers: adminHeaders,
      });
      assert.deepEqual(await counters(t, 'F-FLOOD'), { views: 0, clicks: 0, carts: 0, purchases: 0 });
      await track(t, [{ event_id: 'fl-again', type: 'view', product_code: 'F-FLOOD', shopper_id: 'flooder' }]);
      assert.deepEqual(await counters(t, 'F-FLOOD'), { views: 1, clicks: 0, carts: 0, purchases: 0 });
    });

    it('records searches answered for an identified shopper or session as search events', async () => {
      const t = ctx();
      const count = async () =>
        (
          await t.container.storage.db
            .selectFrom('shopper_events')
            .select('query')
            .where('type', '=', 'search')
            .where('query', '=', 'shirt')
            .execute()
        ).length;
      const before = await count();
      await t.request({ method: 'GET', url: `/v1/search?store_uuid=${t.store.store_uuid}&query=shirt` });
      assert.equal(await count(), before, 'an anonymous search is not recorded');
      await t.request({ method: 'GET', url: `/v1/search?store_uuid=${t.store.store_uuid}&query=shirt&session_id=s9` });
      await t.request({
        method: 'POST',
        url: `/v1/search/query?store_uuid=${t.store.store_uuid}`,
        payload: { query: 'shirt', shopper_id: 'carol' },
      });
      assert.equal(await count(), before + 2);
    });

    it('tells merchandisers what shoppers search for and which products they look at without buying', async () => {
      const t = ctx();
      const search = (i: number, query: string, hits: number) => ({
        event_id: `as${query}${i}`,
        type: 'search',
        query,
        hits,
        session_id: `s${i}`,
      });
      await track(t, [
        ...Array.from({ length: 5 }, (_, i) => search(i, 'Summer  Dress', 12)),
        {
          event_id: 'ac1',
          type: 'click',
          product_code: 'E-DRESS',
          query: 'summer dress',
          position: 1,
          session_id: 's0',
        },
        {
          event_id: 'ac2',
          type: 'click',
          product_code: 'E-DRESS',
          query: 'summer dress',
          position: 2,
          session_id: 's0',
        },
        { event_id: 'ap1', type: 'purchase', product_code: 'E-DRESS', query: 'summer dress' },
        ...Array.from({ length: 2 }, (_, i) => search(i, 'spaceship', 0)),
        ...Array.from({ length: 3 }, (_, i) => search(i, 'linen shirt', 4)),
        ...Array.from({ length: 4 }, (_, i) => ({ event_id: `av${i}`, type: 'view', product_code: 'E-SHIRT' })),
      ]);
      const get = async (what: string) => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/admin/v1/stores/${t.store.store_uuid}/analytics/${what}`,
          headers: adminHeaders,
        });
        assert.equal(res.statusCode, 200, res.body);
        return json(res).data;
      };
      const searches = await get('search');
      const summer = searches.top_queries.find((q: { query: string }) => q.query === 'summer dress');
      // Five searches here and one from the first test's batch.
      assert.equal(summer.searches, 6);
      assert.equal(summer.clicks, 2);
      // Both clicks in one session: one of the six searches was followed by a click.
      assert.equal(summer.click_through, 0.167);
      assert.equal(summer.conversions, 1);
      assert.deepEqual(
        searches.zero_result_queries.find((q: { query: string }) => q.query === 'spaceship'),
        {
          query: 'spaceship',
          searches: 2,
        },
      );
      assert.ok(searches.unclicked_queries.some((q: { query: string }) => q.query === 'linen shirt'));
      assert.ok(!searches.unclicked_queries.some((q: { query: string }) => q.query === 'summer dress'));
      const products = await get('products');
      assert.ok(products.trending.length > 0);
      assert.ok(products.viewed_not_bought.some((p: { product_code: string }) => p.product_code === 'T-WARM'));
      assert.ok(!products.viewed_not_bought.some((p: { product_code: string }) => p.product_code === 'E-DRESS'));
      const bad = await t.app.inject({
        method: 'GET',
        url: `/admin/v1/stores/${t.store.store_uuid}/analytics/search?from=soon`,
        headers: adminHeaders,
      });
      assert.equal(bad.statusCode, 422);
    });

    it('prunes events and counters past the retention', async () => {
      const t = ctx();
      await track(t, [
        {
          event_id: 'old1',
          type: 'view',
          product_code: 'E-DRESS',
          time: new Date(Date.now() - 6 * 86_400_000).toISOString(),
        },
      ]);
      // Pruning as of 100 days from now drops everything older than the 90 days kept.
      const pruned = await t.container.events.prune(new Date(Date.now() + 100 * 86_400_000));
      assert.ok(pruned > 0);
      const left = await t.container.storage.db.selectFrom('product_event_days').select('day').execute();
      assert.deepEqual(left, []);
      assert.deepEqual(await t.container.storage.db.selectFrom('event_actor_days').select('day').execute(), []);
    });

    it('takes events from a publishable key for its own store only, and never another workspace', async () => {
      const t = ctx();
      const created = await t.request({
        method: 'POST',
        url: '/admin/v1/tokens',
        headers: adminHeaders,
        payload: { workspace_id: t.store.workspace_id, scope: 'search', store_uuids: [t.store.store_uuid] },
      });
      const key = json(created).data.api_token as string;
      const ok = await track(t, [{ event_id: 'k1', type: 'view', product_code: 'E-DRESS' }], key);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const foreign = await t.container.stores.createStore({ workspaceName: `foreign-${Date.now()}`, name: 'F' });
      const other = await track(
        t,
        [{ event_id: 'k2', type: 'view', product_code: 'E-DRESS' }],
        undefined,
        foreign.store_uuid,
      );
      assert.equal(other.status, 404);
      const otherWithKey = await track(
        t,
        [{ event_id: 'k3', type: 'view', product_code: 'E-DRESS' }],
        key,
        foreign.store_uuid,
      );
      assert.equal(otherWithKey.status, 403);
    });
  },
  // Signals re-read on every request that needs them (by default within a second): the orders below
  // show the events just sent.
  { adminToken: ADMIN_TOKEN, signalsRefreshMs: 0 },
);
