import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';

const ADMIN = ADMIN_TOKEN;
const admin = adminHeaders;
const SHOP = 'https://shop.example';

describeEachDialect(
  'storefront access: publishable keys and CORS',
  (ctx) => {
    let key = '';
    let otherStore = '';

    it('issues a publishable key for named stores of the workspace, through the admin API', async () => {
      const { request, store, container } = ctx();
      otherStore = (await container.stores.createStore({ workspaceName: 'Foreign', name: 'Elsewhere' })).store_uuid;
      const bad = [
        [{ workspace_id: store.workspace_id, scope: 'search' }, 422, /names at least one store/],
        [{ workspace_id: store.workspace_id, store_uuids: [store.store_uuid] }, 422, /only for a publishable key/],
        [{ workspace_id: store.workspace_id, scope: 'search', store_uuids: [otherStore] }, 404, /not found/],
        [{ workspace_id: store.workspace_id, scope: 'admin' }, 422, /scope/],
      ] as const;
      for (const [body, status, message] of bad) {
        const res = await request({ method: 'POST', url: '/admin/v1/tokens', headers: admin, payload: body });
        assert.equal(res.statusCode, status, res.body);
        assert.match(res.body, message);
      }
      const res = await request({
        method: 'POST',
        url: '/admin/v1/tokens',
        headers: admin,
        payload: { workspace_id: store.workspace_id, scope: 'search', store_uuids: [store.store_uuid] },
      });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json().data;
      assert.match(created.api_token, /^vt_pk_[A-Za-z0-9_-]{43}$/);
      assert.equal(created.scope, 'search');
      assert.deepEqual(created.store_uuids, [store.store_uuid]);
      key = created.api_token;
    });

    it('lets a publishable key call the shopper endpoints of its store', async () => {
      const { request, store } = ctx();
      const q = `store_uuid=${store.store_uuid}`;
      for (const url of [
        `/v1/search?${q}&query=dress`,
        `/v1/stores?${q}`,
        `/v1/collection?${q}`,
        `/v1/collection/hierarchy?${q}`,
      ]) {
        const res = await request({ method: 'GET', url, token: key });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      }
      // Complementary and similar: allowed, so an unknown product is the endpoint's own 404, not 403.
      for (const url of [`/v1/complementary?${q}&product_code=NOPE`, `/v1/similar?${q}&product_code=NOPE`]) {
        assert.equal((await request({ method: 'GET', url, token: key })).statusCode, 404, url);
      }
    });

    it('refuses a publishable key on writes, catalog reads, other stores and the operator API (403)', async () => {
      const { request, store } = ctx();
      const q = `store_uuid=${store.store_uuid}`;
      const refused: Array<[string, string, unknown?]> = [
        ['POST', `/v1/products?${q}`, [{ product_code: 'A' }]],
        ['DELETE', `/v1/products?${q}&sku_codes=A`],
        ['GET', `/v1/products?${q}`],
        ['GET', `/v1/products/export?${q}`],
        ['POST', `/v1/collection?${q}`, [{ name: 'X' }]],
        ['GET', `/v1/assets?${q}`],
        ['GET', `/v1/search?store_uuid=${otherStore}&query=dress`],
        ['GET', '/admin/v1/stores'],
      ];
      for (const [method, url, payload] of refused) {
        const res = await request({ method: method, url, token: key, ...(payload ? { payload } : {}) });
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
        const body = res.json();
        assert.equal(body.status.code, -1);
        assert.equal(body.status.request_id, res.headers['x-request-id']);
        assert.match(body.status.message, /publishable key/);
      }
      // A workspace token on the operator API is still simply not the admin token.
      assert.equal((await request({ method: 'GET', url: '/admin/v1/stores' })).statusCode, 401);
    });

    it('sets the allowed origins through the admin API, refusing what is not an origin', async () => {
      const { request, store } = ctx();
      const url = `/admin/v1/stores/${store.store_uuid}/cors`;
      for (const origins of [['https://shop.example/path'], ['shop.example'], ['*'], [42]]) {
        const res = await request({ method: 'PUT', url, headers: admin, payload: { allowed_origins: origins } });
        assert.equal(res.statusCode, 422, `${JSON.stringify(origins)}: ${res.body}`);
        assert.match(res.json().detail, /allowed_origins/);
      }
      const res = await request({
        method: 'PUT',
        url,
        headers: admin,
        payload: { allowed_origins: ['HTTPS://Shop.Example/', 'http://localhost:3000'] },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().data.allowed_origins, [SHOP, 'http://localhost:3000']);
      const read = await request({ method: 'GET', url, headers: admin });
      assert.deepEqual(read.json().data.allowed_origins, [SHOP, 'http://localhost:3000']);
    });

    it('answers a preflight from an allowed origin, and reflects nothing for another one', async () => {
      const { request, store } = ctx();
      const url = `/v1/search?store_uuid=${store.store_uuid}&query=dress`;
      const preflight = (origin: string, path = url) =>
        request({
          method: 'OPTIONS',
          url: path,
          token: null,
          headers: {
            origin,
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'authorization',
          },
        });
      const allowed = await preflight(SHOP);
      assert.equal(allowed.statusCode, 204);
      assert.equal(allowed.headers['access-control-allow-origin'], SHOP);
      assert.match(String(allowed.headers['access-control-allow-methods']), /GET/);
      assert.match(String(allowed.headers['access-control-allow-headers']), /authorization/);
      const denied = await preflight('https://evil.example');
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.headers['access-control-allow-origin'], undefined);
      assert.equal(denied.json().status.code, -1);
      // Another store's origins do not open this one, and an unknown path is still unknown.
      assert.equal((await preflight(SHOP, `/v1/search?store_uuid=${otherStore}&query=x`)).statusCode, 403);
      assert.equal((await preflight(SHOP, `/v1/nowhere?store_uuid=${store.store_uuid}`)).statusCode, 404);
      assert.equal((await request({ method: 'GET', url: '/v1/nowhere' })).statusCode, 404);

      const answered = await request({ method: 'GET', url, token: key, headers: { origin: SHOP } });
      assert.equal(answered.statusCode, 200);
      assert.equal(answered.headers['access-control-allow-origin'], SHOP);
      assert.match(String(answered.headers['access-control-expose-headers']), /x-request-id/);
      const foreign = await request({ method: 'GET', url, token: key, headers: { origin: 'https://evil.example' } });
      assert.equal(foreign.statusCode, 200);
      assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    });
  },
  { adminToken: ADMIN },
);

describeEachDialect(
  'publishable key rate limit',
  (ctx) => {
    it('gives each shopper IP its own budget on a publishable key, apart from the workspace token', async () => {
      const { request, store, container } = ctx();
      const key = (
        await container.tokens.createToken(store.workspace_id, { scope: 'search', storeIds: [store.store_uuid] })
      ).api_token;
      const url = `/v1/stores?store_uuid=${store.store_uuid}`;
      const fromIp = (remoteAddress: string) => request({ method: 'GET', url, token: key, remoteAddress });
      for (let i = 0; i < 3; i++) assert.equal((await fromIp('10.0.0.1')).statusCode, 200);
      const limited = await fromIp('10.0.0.1');
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.equal((await fromIp('10.0.0.2')).statusCode, 200);
      assert.equal((await request({ method: 'GET', url })).statusCode, 200);
    });
  },
  { publishableRateLimitPerMinute: 3 },
);
