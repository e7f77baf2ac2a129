import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestApp, describeEachDialect, json } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';

const ADMIN = ADMIN_TOKEN;
const admin = adminHeaders;

describe('admin API switched off', () => {
  it('is not served when VITRINE_ADMIN_TOKEN is unset', async () => {
    const t = await buildTestApp('sqlite');
    try {
      const res = await t.request({
        method: 'GET',
        url: '/admin/v1/stores',
        token: null,
        headers: { authorization: 'Bearer anything' },
      });
      assert.equal(res.statusCode, 404);
    } finally {
      await t.close();
    }
  });
});

describeEachDialect(
  'admin API',
  (ctx) => {
    it('refuses a missing or wrong admin token, and API tokens', async () => {
      const { request, store } = ctx();
      assert.equal((await request({ method: 'GET', url: '/admin/v1/stores', token: null })).statusCode, 401);
      assert.equal((await request({ method: 'GET', url: '/admin/v1/stores', token: 'wrong' })).statusCode, 401);
      assert.equal((await request({ method: 'GET', url: '/admin/v1/stores', token: store.api_token })).statusCode, 401);
    });

    it('creates a store (201), lists it, issues and revokes tokens', async () => {
      const { request } = ctx();
      const created = await request({
        method: 'POST',
        url: '/admin/v1/stores',
        headers: admin,
        payload: {
          workspace_name: 'Admin Co',
          name: 'Admin Store',
          website: 'https://shop.example',
          country: ['de', 'FR'],
          channels: ['web', 'app'],
          taxonomy: 'fashion',
        },
      });
      assert.equal(created.statusCode, 201);
      const { workspace_id, store_uuid, api_token } = json(created).data;
      assert.match(api_token, /^vt_[A-Za-z0-9_-]{43,}$/);
      const details = json(
        await request({ method: 'GET', url: `/v1/stores?store_uuid=${store_uuid}`, token: api_token }),
      ).data;
      assert.deepEqual(details.country, ['DE', 'FR']);
      assert.deepEqual(details.channels, { web: 0, app: 0 });

      const list = json(await request({ method: 'GET', url: '/admin/v1/stores', headers: admin })).data;
      assert.ok(
        list.some(
          (s: { store_uuid: string; default_channel: string }) =>
            s.store_uuid === store_uuid && s.default_channel === 'web',
        ),
      );

      const token = await request({
        method: 'POST',
        url: '/admin/v1/tokens',
        headers: admin,
        payload: { workspace_id },
      });
      assert.equal(token.statusCode, 201);
      const { token_id, api_token: second } = json(token).data;
      assert.equal(
        (await request({ method: 'GET', url: `/v1/stores?store_uuid=${store_uuid}`, token: second })).statusCode,
        200,
      );
      // Listed (never the token itself), newest first, the store's own token beside it.
      const listed = json(
        await request({ method: 'GET', url: `/admin/v1/tokens?workspace_id=${workspace_id}`, headers: admin }),
      ).data as Array<Record<string, unknown>>;
      assert.equal(listed.length, 2);
      assert.deepEqual(
        { ...listed[0], created_at: typeof listed[0].created_at },
        { token_id, scope: 'full', store_uuids: null, created_at: 'string', revoked_at: null },
      );
      assert.ok(!JSON.stringify(listed).includes(second), 'no token in the list');
      const revoked = await request({ method: 'DELETE', url: `/admin/v1/tokens/${token_id}`, headers: admin });
      assert.equal(revoked.statusCode, 200);
      const after = json(
        await request({ method: 'GET', url: `/admin/v1/tokens?workspace_id=${workspace_id}`, headers: admin }),
      ).data as Array<{ token_id: string; revoked_at: string | null }>;
      assert.equal(typeof after.find((t) => t.token_id === token_id)?.revoked_at, 'string');
      assert.equal(
        (await request({ method: 'GET', url: '/admin/v1/tokens?workspace_id=nope', headers: admin })).statusCode,
        404,
      );
      assert.equal((await request({ method: 'GET', url: '/admin/v1/tokens', headers: admin })).statusCode, 400);
      assert.equal(
        (await request({ method: 'GET', url: `/v1/stores?store_uuid=${store_uuid}`, token: second })).statusCode,
        401,
      );
      assert.equal((await request({ method: 'DELETE', url: '/admin/v1/tokens/nope', headers: admin })).statusCode, 404);
      assert.equal(
        (await request({ method: 'POST', url: '/admin/v1/tokens', headers: admin, payload: { workspace_id: 'nope' } }))
          .statusCode,
        404,
      );
    });

    it('rejects bad store input with a clear error and creates nothing', async () => {
      const { request } = ctx();
      const before = json(await request({ method: 'GET', url: '/admin/v1/stores', headers: admin })).data.length;
      const cases: Array<[unknown, number, RegExp]> = [
        [{ workspace_name: 'X' }, 400, /'name' is required/],
        [{ workspace_name: 'X', name: 'S', website: 'ftp://x' }, 422, /website/],
        [{ workspace_name: 'X', name: 'S', country: ['France'] }, 422, /country/],
        [{ workspace_name: 'X', name: 'S', channels: ['web', 'web'] }, 422, /channel/],
        [{ workspace_name: 'X', name: 'S', linked_store_id: 'nope' }, 422, /linked store/],
        [{ name: 'S' }, 400, /workspace_name/],
      ];
      for (const [payload, status, detail] of cases) {
        const res = await request({
          method: 'POST',
          url: '/admin/v1/stores',
          headers: admin,
          payload: payload as object,
        });
        assert.equal(res.statusCode, status, JSON.stringify(payload));
        assert.match(json(res).detail, detail);
      }
      assert.equal(json(await request({ method: 'GET', url: '/admin/v1/stores', headers: admin })).data.length, before);
    });

    it('reads, replaces and removes a mapping profile', async () => {
      const { request, store } = ctx();
      const url = `/admin/v1/stores/${store.store_uuid}/mapping`;
      const current = json(await request({ method: 'GET', url, headers: admin })).data;
      assert.equal(current.fields['Product Name'], 'Product Name');
      const put = await request({
        method: 'PUT',
        url,
        headers: admin,
        payload: { fields: { title: 'Product Name' }, required: ['Brand'] },
      });
      assert.equal(put.statusCode, 200);
      assert.deepEqual(json(put).data, { fields: { title: 'Product Name' }, required: ['Brand'] });
      const bad = await request({
        method: 'PUT',
        url,
        headers: admin,
        payload: { fields: { title: '' }, required: [] },
      });
      assert.equal(bad.statusCode, 422);
      assert.equal(
        (
          await request({
            method: 'PUT',
            url: '/admin/v1/stores/nope/mapping',
            headers: admin,
            payload: { fields: {}, required: [] },
          })
        ).statusCode,
        404,
      );
      assert.equal((await request({ method: 'DELETE', url, headers: admin })).statusCode, 200);
      assert.equal((await request({ method: 'GET', url, headers: admin })).statusCode, 404);
    });
  },
  { adminToken: ADMIN },
);
