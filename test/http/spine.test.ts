import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { openDatabase } from '../../src/storage/database.js';
import { POSTGRES_SKIP } from '../helpers/backends.js';
import { describeEachDialect, json } from '../helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeEachDialect('GET /v1/stores', (ctx) => {
  it('returns the store details in the envelope with every seed key', async () => {
    const { request, store } = ctx();
    const res = await request({
      method: 'GET',
      url: `/v1/stores?store_uuid=${store.store_uuid}`,
      headers: { 'x-request-id': 'abc-123' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-request-id'], 'abc-123');
    assert.deepEqual(json(res), {
      status: { code: 0, message: 'SUCCESS', request_id: 'abc-123' },
      data: {
        store_name: 'Test Store',
        workspace_id: store.workspace_id,
        linked_store_id: null,
        store_website: null,
        country: ['FR'],
        channels: { web: 0, app: 0 },
        store_taxonomy: 'fashion',
        store_language: 'en',
        indexes: {
          caught_up: true,
          pending: { search: 0, vocabulary: 0, facets: 0, complements: 0, collections: 0, photos: 0 },
        },
      },
    });
  });

  it('tells how far behind the catalog each index is, until the indexes catch up', async () => {
    const { request, store, container } = ctx();
    const indexes = async () =>
      json(await request({ method: 'GET', url: `/v1/stores?store_uuid=${store.store_uuid}` })).data.indexes;
    await request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      payload: [{ product_code: 'FRESH-1', 'Product Name': 'Fresh linen shirt', Category: 'Shirts' }],
    });
    const behind = await indexes();
    assert.equal(behind.caught_up, false);
    assert.ok(behind.pending.search > 0 && behind.pending.collections > 0 && behind.pending.photos > 0);
    // The shared followers apply the write (as `vitrine serve` does in the background).
    const current = await container.stores.getStore(store.store_uuid);
    for (const follower of [
      container.searchIndexer.follower,
      container.collections.follower,
      container.imageCatalog.follower,
    ])
      await follower.readYourWrites(current);
    const after = await indexes();
    assert.equal(after.pending.search, 0);
    assert.equal(after.pending.collections, 0);
  });

  it('runs one catch-up for the concurrent reads of a store with writes pending, not one each', async () => {
    const { request, store, container } = ctx();
    await request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      payload: [{ product_code: 'BURST-1', 'Product Name': 'Burst linen shirt', Category: 'Shirts' }],
    });
    const current = await container.stores.getStore(store.store_uuid);
    const follower = container.searchIndexer.follower;
    const lockCursor = follower.lockCursor.bind(follower);
    let locks = 0;
    follower.lockCursor = (trx, storeId) => {
      locks++;
      return lockCursor(trx, storeId);
    };
    try {
      const lags = await Promise.all(Array.from({ length: 20 }, () => follower.readYourWrites(current)));
      assert.deepEqual(new Set(lags), new Set([0]));
      // Each read took the cursor's lock in turn before (20 here; 16 queued 0.6 s each in the soak).
      assert.ok(locks <= 2, `${locks} catch-ups for 20 reads`);
    } finally {
      delete (follower as { lockCursor?: unknown }).lockCursor;
    }
    assert.equal(await follower.lag(current.id), 0);
  });

  it('accepts the token in an apikey header', async () => {
    const { request, store } = ctx();
    const res = await request({
      method: 'GET',
      url: `/v1/stores?store_uuid=${store.store_uuid}`,
      token: null,
      headers: { apikey: store.api_token },
    });
    assert.equal(res.statusCode, 200);
  });

  it('generates a UUID request id when none is given, in header and body', async () => {
    const { request, store } = ctx();
    const res = await request({ method: 'GET', url: `/v1/stores?store_uuid=${store.store_uuid}` });
    assert.match(String(res.headers['x-request-id']), UUID);
    assert.equal(json(res).status.request_id, res.headers['x-request-id']);
  });

  it('answers 401 without a token, with a malformed header, or with an unknown token', async () => {
    const { request, store } = ctx();
    for (const headers of [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      { authorization: `Bearer vt_${'x'.repeat(43)}` },
      { apikey: 'nope' },
    ]) {
      const res = await request({
        method: 'GET',
        url: `/v1/stores?store_uuid=${store.store_uuid}`,
        token: null,
        headers: { ...headers, 'x-request-id': 'r401' },
      });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.deepEqual(json(res), {
        status: { code: -1, message: 'Invalid or missing bearer token', request_id: 'r401' },
      });
      assert.equal(res.headers['x-request-id'], 'r401');
    }
  });

  it('answers 401 at once for a revoked token', async () => {
    const { request, container, store } = ctx();
    const extra = await container.tokens.createToken(store.workspace_id);
    assert.equal(
      (await request({ method: 'GET', url: `/v1/stores?store_uuid=${store.store_uuid}`, token: extra.api_token }))
        .statusCode,
      200,
    );
    await container.tokens.revokeToken(extra.token_id);
    assert.equal(
      (await request({ method: 'GET', url: `/v1/stores?store_uuid=${store.store_uuid}`, token: extra.api_token }))
        .statusCode,
      401,
    );
  });

  it("answers another workspace's store exactly like an unknown store", async () => {
    const { request, container, store } = ctx();
    const other = await container.stores.createStore({ workspaceName: `other-${Date.now()}`, name: 'Other' });
    const foreign = await request({
      method: 'GET',
      url: `/v1/stores?store_uuid=${other.store_uuid}`,
      headers: { 'x-request-id': 'same' },
    });
    const unknown = await request({
      method: 'GET',
      url: '/v1/stores?store_uuid=00000000-0000-0000-0000-000000000000',
      headers: { 'x-request-id': 'same' },
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.body, unknown.body);
    assert.deepEqual(json(foreign), { status: { code: -1, message: 'store not found', request_id: 'same' } });
    // and the other workspace's own token does not open this store either
    const cross = await request({
      method: 'GET',
      url: `/v1/stores?store_uuid=${store.store_uuid}`,
      token: other.api_token,
    });
    assert.equal(cross.statusCode, 404);
  });

  it('a second store of the same workspace name joins the workspace; every token works for every store', async () => {
    const { request, container } = ctx();
    const name = `shared-${Date.now()}`;
    const a = await container.stores.createStore({ workspaceName: name, name: 'A' });
    const b = await container.stores.createStore({
      workspaceName: name,
      name: 'B',
      website: 'https://b.example',
      linkedStoreId: a.store_uuid,
    });
    assert.equal(a.workspace_id, b.workspace_id);
    const res = await request({ method: 'GET', url: `/v1/stores?store_uuid=${b.store_uuid}`, token: a.api_token });
    assert.equal(res.statusCode, 200);
    assert.equal(json(res).data.linked_store_id, a.store_uuid);
    assert.equal(json(res).data.store_website, 'https://b.example');
    assert.deepEqual(json(res).data.channels, { default: 0 });
  });

  it('answers 400 in the detail shape when store_uuid is missing', async () => {
    const res = await ctx().request({ method: 'GET', url: '/v1/stores', headers: { 'x-request-id': 'r400' } });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(json(res), {
      detail: "query parameter 'store_uuid' is required",
      status: 'error',
      request_id: 'r400',
    });
  });

  it('answers 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    const { request, store } = ctx();
    const missing = await request({ method: 'GET', url: '/v1/nothing-here' });
    assert.equal(missing.statusCode, 404);
    assert.equal(json(missing).status.code, -1);
    assert.ok(missing.headers['x-request-id']);
    const wrong = await request({
      method: 'PATCH',
      url: `/v1/stores?store_uuid=${store.store_uuid}`,
      headers: { 'x-request-id': 'r405' },
    });
    assert.equal(wrong.statusCode, 405);
    assert.equal(wrong.headers.allow, 'GET, HEAD');
    assert.equal(json(wrong).status.request_id, 'r405');
    assert.equal(wrong.headers['x-request-id'], 'r405');
  });

  it('answers 500 without internals when something unexpected breaks', async () => {
    const { request, container, store } = ctx();
    const original = container.stores.describeStore;
    container.stores.describeStore = async () => {
      throw new Error('secret internal detail at /src/x.ts:12');
    };
    try {
      const res = await request({
        method: 'GET',
        url: `/v1/stores?store_uuid=${store.store_uuid}`,
        headers: { 'x-request-id': 'r500' },
      });
      assert.equal(res.statusCode, 500);
      assert.deepEqual(json(res), {
        status: { code: -1, message: 'Internal server error, please contact support', request_id: 'r500' },
      });
      assert.equal(res.headers['x-request-id'], 'r500');
    } finally {
      container.stores.describeStore = original;
    }
  });
});

describeEachDialect('request bodies', (ctx) => {
  it('answers 400 for a body that is not JSON', async () => {
    const { request, store } = ctx();
    const res = await request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"not json',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(json(res).status, 'error');
    assert.match(json(res).detail, /JSON/);
  });

  it('answers 400 (not 415) for a wrong content type', async () => {
    const { request, store } = ctx();
    const res = await request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(res.statusCode, 400);
    assert.match(json(res).detail, /Content-Type/);
  });

  it('answers 413 in the envelope for a body over 10 MB, with nothing written', async () => {
    const { request, store, container } = ctx();
    const huge = JSON.stringify([{ product_code: 'big', 'Product Name': 'x'.repeat(11 * 1024 * 1024) }]);
    const res = await request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      headers: { 'content-type': 'application/json', 'x-request-id': 'r413' },
      payload: huge,
    });
    assert.equal(res.statusCode, 413);
    assert.equal(json(res).status.code, -1);
    assert.equal(json(res).status.request_id, 'r413');
    const listed = await container.productQueries.listProducts(await container.stores.getStore(store.store_uuid), {
      offset: 0,
      limit: 10,
    });
    assert.equal(listed.total, 0);
  });
});

describeEachDialect(
  'rate limiting (in memory)',
  (ctx) => {
    it('counts per token and answers 429 with Retry-After and RateLimit headers', async () => {
      const { request, store, container } = ctx();
      const url = `/v1/stores?store_uuid=${store.store_uuid}`;
      const first = await request({ method: 'GET', url });
      assert.equal(first.headers['ratelimit-limit'], '3');
      assert.equal(first.headers['ratelimit-remaining'], '2');
      assert.ok(Number(first.headers['ratelimit-reset']) > 0);
      await request({ method: 'GET', url });
      await request({ method: 'GET', url });
      const limited = await request({ method: 'GET', url, headers: { 'x-request-id': 'r429' } });
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.equal(limited.headers['ratelimit-remaining'], '0');
      assert.equal(json(limited).status.code, -1);
      assert.equal(json(limited).status.request_id, 'r429');
      // another token of the same workspace has its own budget
      const other = await container.tokens.createToken(store.workspace_id);
      assert.equal((await request({ method: 'GET', url, token: other.api_token })).statusCode, 200);
      // operations endpoints are never limited
      for (let i = 0; i < 5; i++)
        assert.equal((await request({ method: 'GET', url: '/healthz', token: null })).statusCode, 200);
    });

    it('throttles requests without a valid token per client IP', async () => {
      const { request, store } = ctx();
      const url = `/v1/stores?store_uuid=${store.store_uuid}`;
      const codes = [];
      for (let i = 0; i < 5; i++)
        codes.push(
          (await request({ method: 'GET', url, token: 'vt_guess', headers: { 'x-forwarded-for': '1.2.3.4' } }))
            .statusCode,
        );
      assert.deepEqual(codes.slice(0, 3), [401, 401, 401]);
      assert.equal(codes[4], 429);
    });
  },
  { rateLimitPerMinute: 3 },
);

describeEachDialect('operations endpoints', (ctx) => {
  it('serves /healthz, /readyz, /openapi.json and /docs without a token', async () => {
    const { request } = ctx();
    assert.equal((await request({ method: 'GET', url: '/healthz', token: null })).statusCode, 200);
    const ready = await request({ method: 'GET', url: '/readyz', token: null });
    assert.equal(ready.statusCode, 200);
    const spec = await request({ method: 'GET', url: '/openapi.json', token: null });
    assert.equal(spec.statusCode, 200);
    const doc = json(spec);
    assert.equal(doc.openapi, '3.0.3');
    for (const path of ['/v1/stores', '/v1/products', '/v1/products/status', '/v1/products/failures'])
      assert.ok(doc.paths[path], `${path} documented`);
    assert.ok(doc.paths['/v1/products'].post.responses['413']);
    const docs = await request({ method: 'GET', url: '/docs/', token: null });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger/i);
  });
});

describe('an unreachable database', { skip: POSTGRES_SKIP }, () => {
  it('answers 502 on /v1 and 503 on /readyz when PostgreSQL cannot be reached', async () => {
    const config = loadConfig({}, { logLevel: 'silent', databaseUrl: 'postgres://postgres@127.0.0.1:1/test' });
    const container = createContainer(config, { storage: openDatabase('postgres://postgres@127.0.0.1:1/test') });
    const app = await buildApp(container, { logger: false });
    try {
      const res = await app.inject({
        method: 'GET',
        url: '/v1/stores?store_uuid=x',
        headers: { authorization: `Bearer vt_${'a'.repeat(43)}`, 'x-request-id': 'r502' },
      });
      assert.equal(res.statusCode, 502);
      assert.equal(json(res).status.code, -1);
      assert.equal(json(res).status.request_id, 'r502');
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
    } finally {
      await app.close();
      await container.close();
    }
  });
});
