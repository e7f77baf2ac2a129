import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createContainer } from '../../src/container.js';
import { buildTestApp, describeEachDialect, json, type TestApp } from '../helpers/test-app.js';

async function seedProducts(t: TestApp, codes: string[], extra: Record<string, unknown> = {}) {
  const res = await t.request({
    method: 'POST',
    url: `/v1/products?store_uuid=${t.store.store_uuid}`,
    payload: codes.map((code) => ({
      product_code: code,
      'Product Name': code,
      Category: 'Shirts',
      'Selling Price': '10',
      'Image URL 1': 'https://i/x.jpg',
      ...extra,
    })),
  });
  assert.equal(res.statusCode, 200);
}

const create = (t: TestApp, body: unknown, query = '') =>
  t.request({ method: 'POST', url: `/v1/assets?store_uuid=${t.store.store_uuid}${query}`, payload: body as object });
const list = async (t: TestApp, query = '') =>
  t.request({ method: 'GET', url: `/v1/assets?store_uuid=${t.store.store_uuid}${query}` });
const groupOf = async (t: TestApp, parent: string, query = '') =>
  json(await list(t, `&parent_code=${parent}${query}`)).data.assets[parent];

describeEachDialect('asset links', (ctx) => {
  it('creates ranked links, lists them grouped by parent_code, and counts channels in store details', async () => {
    const t = ctx();
    await seedProducts(t, ['P1', 'P2']);
    const res = await create(t, [
      {
        parent_code: 'P1',
        assets: {
          'Image URL 2': 'https://cdn.example/p1-b.jpg',
          'Image URL 1': 'https://cdn.example/p1-a.jpg',
          front: 'https://cdn.example/p1-front.jpg',
        },
      },
      { parent_code: 'P2', assets: { 'Image URL 1': 'https://cdn.example/p2-a.jpg' } },
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res).data, { created: 4, updated: 0, failed: 0, error_info: [] });
    const listed = json(await list(t)).data;
    assert.equal(listed.total_groups, 2);
    assert.equal(listed.returned_groups, 2);
    assert.deepEqual(Object.keys(listed.assets), ['P1', 'P2']);
    const p1 = listed.assets.P1;
    assert.equal(p1.channel, 'web');
    assert.equal(p1.asset_type, 'image');
    assert.equal(p1.store_uuid, t.store.store_uuid);
    assert.deepEqual(
      p1.assets.map((a: Record<string, unknown>) => [
        Object.keys(a).find((k) => k !== 'asset_id' && k !== 'rank'),
        a.rank,
      ]),
      [
        ['Image URL 1', 1],
        ['Image URL 2', 2],
        ['front', 3],
      ],
    );
    assert.equal(p1.assets[0]['Image URL 1'], 'https://cdn.example/p1-a.jpg');
    assert.ok(typeof p1.assets[0].asset_id === 'string' && p1.assets[0].asset_id.length > 0);
    const details = json(await t.request({ method: 'GET', url: `/v1/stores?store_uuid=${t.store.store_uuid}` })).data;
    assert.deepEqual(details.channels, { web: 2, app: 0 });
    // paging over groups
    const page = json(await list(t, '&offset=1&limit=1')).data;
    assert.equal(page.total_groups, 2);
    assert.deepEqual(Object.keys(page.assets), ['P2']);
  });

  it('pages over groups in parent_code order with every link of each group, whatever the other channel holds', async () => {
    // A store of its own: the other tests' groups would change the totals.
    const t = await buildTestApp(ctx().dialect);
    try {
      const codes = ['G1', 'G2', 'G3', 'G4', 'G5'];
      await seedProducts(t, codes);
      // Linked out of order, G3 with three images; the app channel has a group of its own in between.
      await create(t, [
        { parent_code: 'G4', assets: { 'Image URL 1': 'https://c/g4.jpg' } },
        {
          parent_code: 'G3',
          assets: {
            'Image URL 1': 'https://c/g3-1.jpg',
            'Image URL 2': 'https://c/g3-2.jpg',
            side: 'https://c/g3-s.jpg',
          },
        },
        ...['G1', 'G2', 'G5'].map((code) => ({
          parent_code: code,
          assets: { 'Image URL 1': `https://c/${code}.jpg` },
        })),
      ]);
      await create(t, [{ parent_code: 'G2', assets: { 'Image URL 1': 'https://c/g2-app.jpg' } }], '&channel=app');
      const page = json(await list(t, '&offset=2&limit=2')).data;
      assert.equal(page.total_groups, 5);
      assert.equal(page.returned_groups, 2);
      assert.deepEqual(Object.keys(page.assets), ['G3', 'G4']);
      assert.deepEqual(
        page.assets.G3.assets.map((a: Record<string, unknown>) => [
          a.rank,
          Object.keys(a).find((k) => k !== 'asset_id' && k !== 'rank'),
        ]),
        [
          [1, 'Image URL 1'],
          [2, 'Image URL 2'],
          [3, 'side'],
        ],
      );
      const first = json(await list(t, '&limit=2')).data;
      assert.deepEqual(Object.keys(first.assets), ['G1', 'G2']);
      assert.equal(first.assets.G2.assets.length, 1, 'the app channel link is not listed on web');
      const app = json(await list(t, '&channel=app')).data;
      assert.deepEqual([app.total_groups, Object.keys(app.assets)], [1, ['G2']]);
      const past = json(await list(t, '&offset=5&limit=2')).data;
      assert.deepEqual([past.total_groups, past.returned_groups, past.assets], [5, 0, {}]);
    } finally {
      await t.close();
    }
  });

  it('replaces a re-sent name (updated), compacts numbers past the end, and keeps ranks contiguous after unlink and delete', async () => {
    const t = ctx();
    await seedProducts(t, ['R1']);
    await create(t, [
      { parent_code: 'R1', assets: { 'Image URL 1': 'https://c/1.jpg', 'Image URL 2': 'https://c/2.jpg' } },
    ]);
    const more = await create(t, [
      { parent_code: 'R1', assets: { 'Image URL 5': 'https://c/3.jpg', 'Image URL 1': 'https://c/1b.jpg' } },
    ]);
    assert.deepEqual(json(more).data, { created: 1, updated: 1, failed: 0, error_info: [] });
    let group = await groupOf(t, 'R1');
    assert.deepEqual(
      group.assets.map((a: Record<string, unknown>) => Object.entries(a)[0]),
      [
        ['Image URL 1', 'https://c/1b.jpg'],
        ['Image URL 2', 'https://c/2.jpg'],
        ['Image URL 3', 'https://c/3.jpg'],
      ],
    );
    const second = group.assets[1].asset_id;
    const third = group.assets[2].asset_id;
    // unlink Image URL 2: the old Image URL 3 is listed as Image URL 2
    const unlinked = await t.request({
      method: 'POST',
      url: '/v1/assets/unlink',
      payload: [{ store_uuid: t.store.store_uuid, parent_code: 'R1', channel: 'web', asset_id: second }],
    });
    assert.deepEqual(json(unlinked).data, { unlinked: 1, failed: 0, error_info: [] });
    group = await groupOf(t, 'R1');
    assert.deepEqual(
      group.assets.map((a: Record<string, unknown>) => [
        Object.keys(a)[0],
        a.asset_id === third ? 'third' : 'other',
        a.rank,
      ]),
      [
        ['Image URL 1', 'other', 1],
        ['Image URL 2', 'third', 2],
      ],
    );
    // relinking the unlinked URL gives back the same asset_id
    await create(t, [{ parent_code: 'R1', assets: { 'Image URL 3': 'https://c/2.jpg' } }]);
    group = await groupOf(t, 'R1');
    assert.equal(group.assets[2].asset_id, second);
    // delete removes the asset and compacts
    const deleted = await t.request({
      method: 'DELETE',
      url: '/v1/assets',
      payload: [
        {
          store_uuid: t.store.store_uuid,
          channel: 'web',
          parent_code: 'R1',
          asset_id: [group.assets[0].asset_id, 'as_unknown'],
        },
      ],
    });
    assert.equal(json(deleted).data.deleted_count, 1);
    assert.equal(json(deleted).data.failed, 1);
    assert.equal(json(deleted).data.error_info[0].reason, 'not_found');
    group = await groupOf(t, 'R1');
    assert.deepEqual(
      group.assets.map((a: Record<string, unknown>) => [Object.keys(a)[0], a.rank]),
      [
        ['Image URL 1', 1],
        ['Image URL 2', 2],
      ],
    );
    // a deleted asset's URL gets a new asset_id when linked again
    await create(t, [{ parent_code: 'R1', assets: { extra: 'https://c/1b.jpg' } }]);
    group = await groupOf(t, 'R1');
    assert.notEqual(group.assets[2].asset_id, deleted);
  });

  it('uses the default channel when omitted and keeps channels and asset types apart', async () => {
    const t = ctx();
    await seedProducts(t, ['C1']);
    await create(t, [{ parent_code: 'C1', assets: { 'Image URL 1': 'https://c/web.jpg' } }]);
    await create(t, [{ parent_code: 'C1', assets: { 'Image URL 1': 'https://c/app.jpg' } }], '&channel=app');
    await create(t, [{ parent_code: 'C1', asset_type: 'video', assets: { clip: 'https://c/clip.mp4' } }]);
    await create(t, [{ parent_code: 'C1', asset_type: '3d', assets: { model: 'https://c/m.glb' } }]);
    assert.equal((await groupOf(t, 'C1')).assets[0]['Image URL 1'], 'https://c/web.jpg');
    assert.equal((await groupOf(t, 'C1', '&channel=app')).assets[0]['Image URL 1'], 'https://c/app.jpg');
    assert.equal((await groupOf(t, 'C1', '&asset_format=video')).assets[0].clip, 'https://c/clip.mp4');
    const model = await groupOf(t, 'C1', '&asset_format=3D');
    assert.equal(model.asset_type, '3D');
    const details = json(await t.request({ method: 'GET', url: `/v1/stores?store_uuid=${t.store.store_uuid}` })).data;
    assert.equal(details.channels.app, 1);
  });

  it('links to a parent_code that only variants carry', async () => {
    const t = ctx();
    await seedProducts(t, ['V1-S', 'V1-M'], { parent_code: 'V1' });
    const res = await create(t, [{ parent_code: 'V1', assets: { 'Image URL 1': 'https://c/v1.jpg' } }]);
    assert.equal(json(res).data.created, 1);
  });

  it('fails bad items and links alone, with reasons', async () => {
    const t = ctx();
    await seedProducts(t, ['B1']);
    const res = await create(t, [
      {
        parent_code: 'B1',
        assets: {
          'Image URL 1': 'https://ok/1.jpg',
          'Image URL 2': 'javascript:alert(1)',
          'Image URL 3': 'file:///etc/passwd',
          'Image URL 4': '/relative.jpg',
          'Image URL 5': `https://x/${'a'.repeat(2048)}`,
        },
      },
      { parent_code: 'nobody', assets: { 'Image URL 1': 'https://ok/2.jpg' } },
      { parent_code: 'B1', asset_type: 'hologram', assets: { a: 'https://ok/3.jpg' } },
      { parent_code: 'B1', assets: 'https://ok/4.jpg' },
      { parent_code: 'B1', assets: {} },
      { parent_code: 'B1', channel: 'fax', assets: { a: 'https://ok/5.jpg' } },
      { assets: { a: 'https://ok/6.jpg' } },
    ]);
    assert.equal(res.statusCode, 200);
    const data = json(res).data;
    assert.equal(data.created, 1);
    assert.deepEqual(
      data.error_info.map((e: { index: number; reason: string }) => [e.index, e.reason]),
      [
        [0, 'invalid_url'],
        [0, 'invalid_url'],
        [0, 'invalid_url'],
        [0, 'invalid_url'],
        [1, 'unknown_parent_code'],
        [2, 'invalid_asset_type'],
        [3, 'invalid_assets'],
        [4, 'invalid_assets'],
        [5, 'unknown_channel'],
        [6, 'invalid_parent_code'],
      ],
    );
    assert.equal(data.failed, 10);
    assert.deepEqual(
      (await groupOf(t, 'B1')).assets.map((a: Record<string, unknown>) => a.rank),
      [1],
    );
  });

  it('answers request-level errors in the asset shape with 400', async () => {
    const t = ctx();
    const cases: Array<[string, string, unknown?]> = [
      ['GET', '/v1/assets'],
      ['GET', `/v1/assets?store_uuid=${t.store.store_uuid}&limit=0`],
      ['GET', `/v1/assets?store_uuid=${t.store.store_uuid}&limit=51`],
      ['GET', `/v1/assets?store_uuid=${t.store.store_uuid}&limit=abc`],
      ['GET', `/v1/assets?store_uuid=${t.store.store_uuid}&offset=-1`],
      ['GET', `/v1/assets?store_uuid=${t.store.store_uuid}&asset_format=hologram`],
      ['GET', `/v1/assets?store_uuid=${t.store.store_uuid}&channel=fax`],
      ['POST', '/v1/assets', [{ parent_code: 'x', assets: {} }]],
      ['POST', `/v1/assets?store_uuid=${t.store.store_uuid}`, { parent_code: 'x' }],
      ['POST', `/v1/assets?store_uuid=${t.store.store_uuid}`, ['nope']],
      ['POST', '/v1/assets/unlink', { not: 'an array' }],
    ];
    for (const [method, url, payload] of cases) {
      const res = await t.request({
        method: method,
        url,
        payload: payload as object,
        headers: { 'x-request-id': 'a400' },
      });
      assert.equal(res.statusCode, 400, `${method} ${url}`);
      const body = json(res);
      assert.equal(body.status.code, -1);
      assert.equal(body.status.request_id, 'a400');
      assert.equal(body.data.error_info[0].reason, 'invalid_request', `${method} ${url}`);
      assert.ok(body.data.error_info[0].details.length > 0);
    }
  });

  it('checks per-item stores against the workspace on unlink and delete', async () => {
    const t = ctx();
    await seedProducts(t, ['W1']);
    await create(t, [{ parent_code: 'W1', assets: { 'Image URL 1': 'https://c/w1.jpg' } }]);
    const assetId = (await groupOf(t, 'W1')).assets[0].asset_id;
    const other = await t.container.stores.createStore({ workspaceName: `foreign-assets-${Date.now()}`, name: 'F' });
    const unlink = json(
      await t.request({
        method: 'POST',
        url: '/v1/assets/unlink',
        payload: [
          { store_uuid: other.store_uuid, parent_code: 'W1', channel: 'web', asset_id: assetId },
          { store_uuid: t.store.store_uuid, parent_code: 'W1', channel: 'web', asset_id: 'as_nope' },
          { store_uuid: t.store.store_uuid, parent_code: 'W1', channel: 'fax', asset_id: assetId },
        ],
      }),
    ).data;
    assert.deepEqual(
      unlink.error_info.map((e: { reason: string }) => e.reason),
      ['store_not_found', 'not_found', 'unknown_channel'],
    );
    assert.equal(unlink.unlinked, 0);
    const del = json(
      await t.request({
        method: 'DELETE',
        url: '/v1/assets',
        payload: [
          { store_uuid: other.store_uuid, parent_code: 'W1', asset_id: [assetId] },
          { store_uuid: t.store.store_uuid, parent_code: 'W1', asset_id: assetId },
        ],
      }),
    ).data;
    assert.deepEqual(
      del.error_info.map((e: { reason: string }) => e.reason),
      ['store_not_found', 'invalid_request'],
    );
    assert.equal((await groupOf(t, 'W1')).assets.length, 1);
    // the foreign store's own GET is a 404 in the asset shape
    const foreign = await t.request({ method: 'GET', url: `/v1/assets?store_uuid=${other.store_uuid}` });
    assert.equal(foreign.statusCode, 404);
    assert.equal(json(foreign).data.error_info[0].reason, 'store_not_found');
  });

  it('appends asset writes to the change feed', async () => {
    const t = ctx();
    const store = await t.container.stores.createStore({ workspaceName: `feed-assets-${Date.now()}`, name: 'FA' });
    const s = await t.container.stores.getStore(store.store_uuid);
    await t.container.products.upsertProducts(s, [
      { product_code: 'F1', 'Product Name': 'x', Category: 'c', 'Selling Price': '1', 'Image URL 1': 'https://i/1' },
    ]);
    await t.container.assets.createLinks(s, undefined, [
      { parent_code: 'F1', assets: { 'Image URL 1': 'https://c/f1.jpg' } },
    ]);
    const changes = await t.container.changeLog.read(s.id, 0);
    assert.deepEqual(
      changes.map((c: { entity: string; key: string }) => [c.entity, c.key]),
      [
        ['product', 'F1'],
        ['asset', 'F1'],
      ],
    );
  });

  it('never lists a page older than the last write, from whichever process the write came', async () => {
    const t = await buildTestApp(ctx().dialect);
    // A second "process": its own app and container (so its own caches) over the same database.
    const otherContainer = createContainer(t.container.config, { storage: t.container.storage });
    const other = await buildApp(otherContainer, { logger: false });
    const listed = async (query = '') => json(await list(t, query)).data;
    try {
      await seedProducts(t, ['C1', 'C2']);
      assert.equal(
        (await create(t, [{ parent_code: 'C1', assets: { 'Image URL 1': 'https://c/c1.jpg' } }])).statusCode,
        200,
      );
      const first = await listed('&limit=10');
      assert.deepEqual(await listed('&limit=10'), first, 'the same page again, unchanged');
      assert.deepEqual(Object.keys(first.assets), ['C1']);

      const viaOther = (method: 'POST' | 'DELETE', url: string, payload: object) =>
        other.inject({ method, url, payload, headers: { authorization: `Bearer ${t.store.api_token}` } });
      const linked = await viaOther('POST', `/v1/assets?store_uuid=${t.store.store_uuid}`, [
        { parent_code: 'C2', assets: { 'Image URL 1': 'https://c/c2.jpg' } },
      ]);
      assert.equal(linked.statusCode, 200);
      const after = await listed('&limit=10');
      assert.equal(after.total_groups, 2);
      assert.deepEqual(Object.keys(after.assets), ['C1', 'C2']);
      // A page cached with other paging is not mistaken for this one.
      assert.deepEqual(Object.keys((await listed('&limit=1&offset=1')).assets), ['C2']);

      const assetId = after.assets.C1.assets[0].asset_id as string;
      const deleted = await viaOther('DELETE', '/v1/assets', [
        { store_uuid: t.store.store_uuid, parent_code: 'C1', asset_id: [assetId] },
      ]);
      assert.equal(json(deleted).data.deleted_count, 1);
      const last = await listed('&limit=10');
      assert.equal(last.total_groups, 1);
      assert.deepEqual(Object.keys(last.assets), ['C2']);
    } finally {
      await other.close();
      await t.close();
    }
  });

  it('lists the same with the page cache turned off (VITRINE_LISTING_CACHE_MB=0)', async () => {
    const t = await buildTestApp(ctx().dialect, { listingCacheBytes: 0 });
    try {
      await seedProducts(t, ['N1']);
      await create(t, [{ parent_code: 'N1', assets: { 'Image URL 1': 'https://c/n1.jpg' } }]);
      assert.equal(json(await list(t)).data.total_groups, 1);
      await create(t, [{ parent_code: 'N1', assets: { 'Image URL 2': 'https://c/n1-2.jpg' } }]);
      assert.equal(json(await list(t)).data.assets.N1.assets.length, 2);
    } finally {
      await t.close();
    }
  });

  it('answers a wrong method on an asset path with 405, Allow and the asset error shape', async () => {
    const t = ctx();
    for (const [method, url] of [
      ['PUT', '/v1/assets'],
      ['GET', '/v1/assets/unlink'],
      ['PATCH', '/v1/assets'],
    ] as const) {
      const res = await t.request({
        method,
        url: `${url}?store_uuid=${t.store.store_uuid}`,
        headers: { 'x-request-id': 'a405' },
      });
      assert.equal(res.statusCode, 405, `${method} ${url}`);
      assert.ok(res.headers.allow, 'Allow header');
      const body = json(res);
      assert.equal(body.status.code, -1);
      assert.equal(body.status.request_id, 'a405');
      assert.equal(body.data.error_info[0].reason, 'method_not_allowed');
      assert.match(body.data.error_info[0].details, new RegExp(`method ${method} is not allowed`));
    }
    // Other paths keep the plain envelope.
    const other = json(await t.request({ method: 'PUT', url: `/v1/search?store_uuid=${t.store.store_uuid}` }));
    assert.equal(other.data, undefined);
  });
});
