import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { product } from '../factories/products.js';

async function post(t: TestApp, body: unknown, method: 'POST' | 'PUT' = 'POST', storeUuid = t.store.store_uuid) {
  return t.request({ method, url: `/v1/products?store_uuid=${storeUuid}`, payload: body as object });
}

async function getProducts(t: TestApp, codes: string[]) {
  const res = await t.request({
    method: 'GET',
    url: `/v1/products?store_uuid=${t.store.store_uuid}&product_code=${encodeURIComponent(codes.join(','))}`,
  });
  return json(res).data.products as Array<Record<string, any>>;
}

describeEachDialect('POST /v1/products', (ctx) => {
  it('inserts, then updates, round-tripping spaced field names and extra attributes', async () => {
    const t = ctx();
    const first = await post(t, [
      product('A1', { Colour: 'Navy Blue', fabric: 'linen', tags: ['summer'] }),
      product('A2'),
    ]);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(json(first).data, { inserted: 2, updated: 0, failed: 0, error_info: [] });
    assert.equal(json(first).status.code, 0);
    const [a1] = await getProducts(t, ['A1']);
    assert.equal(a1['Product Name'], 'Shirt A1');
    assert.equal(a1['Selling Price'], '49.90');
    assert.equal(a1['Image URL 1'], 'https://img.example/A1.jpg');
    assert.equal(a1.fabric, 'linen');
    assert.deepEqual(a1.tags, ['summer']);
    assert.equal(a1.status, 'new');
    assert.deepEqual(a1.problems, []);

    const again = await post(t, [product('A1', { 'Product Name': 'Renamed' })]);
    assert.deepEqual(json(again).data, { inserted: 0, updated: 1, failed: 0, error_info: [] });
    const [updated] = await getProducts(t, ['A1']);
    assert.equal(updated['Product Name'], 'Renamed');
    // POST replaces the product: attributes not sent again are gone
    assert.equal(updated.fabric, undefined);
  });

  it('writes nothing for a product identical to what is stored (counted as updated, no change-log entry)', async () => {
    const t = ctx();
    const item = {
      product_code: 'SAME-1',
      'Product Name': 'Same',
      Category: 'Tops',
      'Selling Price': '5',
      extra: [1, 2],
    };
    const url = `/v1/products?store_uuid=${t.store.store_uuid}`;
    assert.equal(json(await t.request({ method: 'POST', url, payload: [item] })).data.inserted, 1);
    const seq = await t.container.changeLog.latest(t.store.store_uuid);
    const again = json(await t.request({ method: 'POST', url, payload: [{ ...item }] })).data;
    assert.deepEqual([again.inserted, again.updated, again.failed], [0, 1, 0]);
    const merge = json(
      await t.request({ method: 'PUT', url, payload: [{ product_code: 'SAME-1', Category: 'Tops' }] }),
    ).data;
    assert.equal(merge.updated, 1);
    assert.equal(await t.container.changeLog.latest(t.store.store_uuid), seq, 'no write, no re-indexing');
    const changed = json(
      await t.request({ method: 'PUT', url, payload: [{ product_code: 'SAME-1', Category: 'Shirts' }] }),
    );
    assert.equal(changed.data.updated, 1);
    assert.equal(await t.container.changeLog.latest(t.store.store_uuid), seq + 1);
  });

  it('rejects whole bodies that are not an array of 1..100 objects', async () => {
    const t = ctx();
    for (const [body, status] of [
      [{ product_code: 'x' }, 422],
      [[], 422],
      [[product('ok'), 'nope'], 422],
      [[product('ok'), [1]], 422],
    ] as const) {
      const res = await post(t, body);
      assert.equal(res.statusCode, status, JSON.stringify(body));
      assert.equal(json(res).status, 'error');
      assert.ok(json(res).detail.length > 0);
    }
    const tooMany = await post(
      t,
      Array.from({ length: 101 }, (_, i) => product(`big-${i}`)),
    );
    assert.equal(tooMany.statusCode, 413);
    assert.equal(json(tooMany).status.code, -1);
    assert.equal((await getProducts(t, ['ok', 'big-0'])).length, 0);
  });

  it('fails bad items alone, with index, code, reason and details', async () => {
    const t = ctx();
    const res = await post(t, [
      product('good-1'),
      { 'Product Name': 'no code' },
      product(''),
      product('x'.repeat(129)),
      product(true as unknown as string),
      product('bad-status', { Status: 'archived' }),
      product('by-hand', { Status: 'problem' }),
      product(15970),
      product('bad-field', { Category: { nested: true } }),
    ]);
    assert.equal(res.statusCode, 200);
    const data = json(res).data;
    assert.equal(data.inserted, 2);
    assert.equal(data.failed, 7);
    const reasons = data.error_info.map((e: { index: number; reason: string }) => [e.index, e.reason]);
    assert.deepEqual(reasons, [
      [1, 'Missing SKU'],
      [2, 'Missing SKU'],
      [3, 'invalid_product_code'],
      [4, 'invalid_product_code'],
      [5, 'invalid_status'],
      [6, 'invalid_status'],
      [8, 'invalid_field'],
    ]);
    for (const e of data.error_info) assert.ok(typeof e.details === 'string' && e.details.length > 0);
    assert.equal(data.error_info[4].product_code, 'bad-status');
    const stored = await getProducts(t, ['good-1', '15970', 'bad-status', 'by-hand', 'bad-field']);
    assert.deepEqual(stored.map((p) => p.product_code).sort(), ['15970', 'good-1']);
  });

  it('stores a failing product with status problem and says why', async () => {
    const t = ctx();
    const res = await post(t, [
      product('cheap', { 'Selling Price': '12,50' }),
      product('nothing', { 'Product Name': '', 'Image URL 1': undefined, Category: null, 'Selling Price': undefined }),
    ]);
    const data = json(res).data;
    assert.equal(data.inserted, 2);
    assert.equal(data.failed, 0);
    assert.deepEqual(data.warnings, [
      { product_code: 'cheap', reasons: ['Invalid price'] },
      { product_code: 'nothing', reasons: ['Missing price', 'Missing title and images', 'Missing category'] },
    ]);
    const stored = await getProducts(t, ['cheap', 'nothing']);
    assert.deepEqual(
      stored.map((p) => p.status),
      ['problem', 'problem'],
    );
    assert.equal(stored[0]['Selling Price'], '12,50');
  });

  it('counts the same product_code twice once, the last occurrence winning', async () => {
    const t = ctx();
    const res = await post(t, [product('dup', { Colour: 'Red' }), product('dup', { Colour: 'Blue' })]);
    assert.deepEqual(json(res).data, { inserted: 1, updated: 0, failed: 0, error_info: [] });
    assert.equal((await getProducts(t, ['dup']))[0].Colour, 'Blue');
  });

  it("answers 404 for another workspace's store, writing nothing", async () => {
    const t = ctx();
    const other = await t.container.stores.createStore({ workspaceName: `foreign-${Date.now()}`, name: 'F' });
    const res = await post(t, [product('foreign-1')], 'POST', other.store_uuid);
    assert.equal(res.statusCode, 404);
    assert.equal(json(res).status.message, 'store not found');
  });

  it('checks product fields against the mapping profile, and answers 404 without one', async () => {
    const t = ctx();
    const store = await t.container.stores.createStore({ workspaceName: `map-${Date.now()}`, name: 'Mapped' });
    await t.container.mappingProfiles.set(store.store_uuid, {
      fields: { sku: 'product_code', title: 'Product Name', price: 'Selling Price' },
      required: ['Brand'],
    });
    const res = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      token: store.api_token,
      payload: [
        {
          sku: 'm1',
          title: 'Mapped shirt',
          price: 10,
          Category: 'Shirts',
          Brand: 'Acme',
          'Image URL 1': 'https://i/1.jpg',
        },
        { sku: 'm2', title: 'No brand', price: 10, Category: 'Shirts' },
      ],
    });
    const data = json(res).data;
    assert.equal(data.inserted, 1);
    assert.deepEqual(
      data.error_info.map((e: { reason: string }) => e.reason),
      ['missing_required_field'],
    );
    const listed = json(
      await t.request({ method: 'GET', url: `/v1/products?store_uuid=${store.store_uuid}`, token: store.api_token }),
    ).data.products;
    assert.equal(listed[0]['Product Name'], 'Mapped shirt');
    assert.equal(listed[0]['Selling Price'], '10');
    assert.equal(listed[0].status, 'new');

    await t.container.mappingProfiles.remove(store.store_uuid);
    for (const method of ['POST', 'PUT'] as const) {
      const missing = await t.request({
        method,
        url: `/v1/products?store_uuid=${store.store_uuid}`,
        token: store.api_token,
        payload: [{ product_code: 'm1' }],
      });
      assert.equal(missing.statusCode, 404);
      assert.equal(json(missing).status.message, 'mapping profile not found');
    }
  });

  it('plans a batch of new and stored products each against what is stored, failures included', async () => {
    const t = ctx();
    await post(t, [product('MIX-1'), product('MIX-2')]);
    await post(t, [{ product_code: 'MIX-1', Status: 'draft' }], 'PUT');
    const res = await post(t, [
      product('MIX-1', { Colour: 'Blue' }), // stored, parked in draft: stays draft
      product('MIX-3'), // new
      product('MIX-4', { Status: 'active', 'Selling Price': undefined }), // new, fails the checks
      product('MIX-2', { Status: 'active', 'Selling Price': undefined }), // stored, fails the checks
    ]);
    const data = json(res).data;
    assert.deepEqual([data.inserted, data.updated, data.failed], [1, 1, 2]);
    assert.deepEqual(
      data.error_info.map((e: { product_code: string; reason: string }) => [e.product_code, e.reason]),
      [
        ['MIX-4', 'quality_check_failed'],
        ['MIX-2', 'quality_check_failed'],
      ],
    );
    const stored = new Map(
      (await getProducts(t, ['MIX-1', 'MIX-2', 'MIX-3', 'MIX-4'])).map((p) => [p.product_code, p]),
    );
    assert.deepEqual([...stored.keys()].sort(), ['MIX-1', 'MIX-2', 'MIX-3']);
    assert.deepEqual([stored.get('MIX-1')!.status, stored.get('MIX-1')!.Colour], ['draft', 'Blue']);
    assert.deepEqual([stored.get('MIX-2')!.status, stored.get('MIX-2')!['Selling Price']], ['new', '49.90']);
    assert.equal(stored.get('MIX-3')!.status, 'new');
  });

  it('forgets the quality problems of a deleted product when its code comes back', async () => {
    const t = ctx();
    const withReason = async (reason: string) =>
      json(
        await t.request({
          method: 'GET',
          url: `/v1/products?store_uuid=${t.store.store_uuid}&reason=${encodeURIComponent(reason)}&product_code=BACK-1`,
        }),
      ).data.products.map((p: { product_code: string }) => p.product_code);
    await post(t, [product('BACK-1', { 'Selling Price': undefined })]);
    const [reason] = (await getProducts(t, ['BACK-1']))[0].problems as string[];
    assert.ok(reason, 'the product without a price has a problem');
    assert.deepEqual(await withReason(reason), ['BACK-1']);
    const deleted = await t.request({
      method: 'DELETE',
      url: `/v1/products?store_uuid=${t.store.store_uuid}&sku_codes=BACK-1`,
    });
    assert.equal(json(deleted).data.deleted, 1);
    const back = json(await post(t, [product('BACK-1')])).data;
    assert.equal(back.inserted, 1);
    assert.deepEqual((await getProducts(t, ['BACK-1']))[0].problems, []);
    assert.deepEqual(await withReason(reason), []);
  });

  it('never duplicates a product under concurrent upserts of the same code', async () => {
    const t = ctx();
    const bodies = Array.from({ length: 8 }, (_, i) =>
      Array.from({ length: 20 }, (_, j) => product(`race-${j}`, { Colour: `c${i}`, writer: i })),
    );
    const results = await Promise.all(bodies.map((body) => post(t, body)));
    const totals = results.map((r) => json(r).data);
    assert.equal(
      totals.reduce((n, d) => n + d.inserted, 0),
      20,
    );
    assert.equal(
      totals.reduce((n, d) => n + d.updated, 0),
      140,
    );
    const stored = await getProducts(
      t,
      Array.from({ length: 20 }, (_, j) => `race-${j}`),
    );
    assert.equal(stored.length, 20);
    for (const p of stored) assert.equal(p.Colour, `c${p.writer}`, 'each product is one complete body');
  });
});

describeEachDialect('PUT /v1/products', (ctx) => {
  it('changes only the given fields and reports unknown codes as not_found', async () => {
    const t = ctx();
    await post(t, [product('P1', { Colour: 'Red' })]);
    const res = await post(
      t,
      [
        { product_code: 'P1', Category: 'Tshirts', Department: 'Women' },
        { product_code: 'nope', Category: 'x' },
      ],
      'PUT',
    );
    assert.equal(res.statusCode, 200);
    const data = json(res).data;
    assert.equal(data.updated, 1);
    assert.equal(data.failed, 1);
    assert.deepEqual(data.error_info[0], {
      index: 1,
      product_code: 'nope',
      reason: 'not_found',
      details: 'product nope does not exist',
    });
    assert.equal('inserted' in data, false);
    const [p1] = await getProducts(t, ['P1']);
    assert.equal(p1.Category, 'Tshirts');
    assert.equal(p1.Department, 'Women');
    assert.equal(p1.Colour, 'Red');
    assert.equal(p1['Product Name'], 'Shirt P1');
    assert.equal((await getProducts(t, ['nope'])).length, 0);
  });

  it('applies the status rules of the quality checks', async () => {
    const t = ctx();
    await post(t, [product('S1'), product('S2', { 'Selling Price': undefined }), product('S3')]);
    const activate = await post(
      t,
      [
        { product_code: 'S1', Status: 'active' },
        { product_code: 'S2', Status: 'active' },
        { product_code: 'S3', Status: 'draft' },
      ],
      'PUT',
    );
    const data = json(activate).data;
    assert.equal(data.updated, 2);
    assert.deepEqual(
      data.error_info.map((e: { product_code: string; reason: string }) => [e.product_code, e.reason]),
      [['S2', 'quality_check_failed']],
    );
    let [s1, s2, s3] = await getProducts(t, ['S1', 'S2', 'S3']);
    assert.equal(s1.status, 'active');
    assert.equal(s2.status, 'problem');
    assert.equal(s3.status, 'draft');
    // an active product that starts failing becomes problem; a draft one keeps draft
    await post(
      t,
      [
        { product_code: 'S1', 'Selling Price': 'abc' },
        { product_code: 'S3', 'Selling Price': '-3' },
      ],
      'PUT',
    );
    [s1, , s3] = await getProducts(t, ['S1', 'S2', 'S3']);
    assert.equal(s1.status, 'problem');
    assert.equal(s3.status, 'draft');
    assert.deepEqual(s3.problems, ['Invalid price']);
    // fixing a problem product returns it to new
    await post(t, [{ product_code: 'S2', 'Selling Price': 19 }], 'PUT');
    [, s2] = await getProducts(t, ['S1', 'S2']);
    assert.equal(s2.status, 'new');
    assert.equal(s2['Selling Price'], '19');
    const bad = await post(
      t,
      [
        { product_code: 'S2', Status: 'problem' },
        { product_code: 'S2x', Status: 'gone' },
      ],
      'PUT',
    );
    assert.deepEqual(
      json(bad).data.error_info.map((e: { reason: string }) => e.reason),
      ['invalid_status', 'invalid_status'],
    );
  });

  it('keeps both fields when two updates of one product race', async () => {
    const t = ctx();
    await post(t, [product('R1')]);
    const updates = Array.from({ length: 10 }, (_, i) =>
      post(t, [{ product_code: 'R1', [`field${i}`]: `v${i}` }], 'PUT'),
    );
    await Promise.all(updates);
    const [r1] = await getProducts(t, ['R1']);
    for (let i = 0; i < 10; i++) assert.equal(r1[`field${i}`], `v${i}`);
  });
});

describeEachDialect('DELETE /v1/products', (ctx) => {
  it('deletes by comma-separated and repeated sku_codes, reporting unknown codes', async () => {
    const t = ctx();
    await post(t, [product('D1'), product('D2'), product('D3'), product('V1', { parent_code: 'D1' })]);
    const res = await t.request({
      method: 'DELETE',
      url: `/v1/products?store_uuid=${t.store.store_uuid}&sku_codes=D1,D2&sku_codes=missing`,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(json(res).status.code, 0);
    assert.deepEqual(json(res).data, { deleted: 2, not_found: ['missing'] });
    const left = await getProducts(t, ['D1', 'D2', 'D3', 'V1']);
    assert.deepEqual(
      left.map((p) => p.product_code),
      ['D3', 'V1'],
    );
    assert.equal(left[1].parent_code, 'D1', 'variants of a deleted parent are kept');
  });

  it('answers 400 without sku_codes and 422 with an empty list', async () => {
    const t = ctx();
    assert.equal(
      (await t.request({ method: 'DELETE', url: `/v1/products?store_uuid=${t.store.store_uuid}` })).statusCode,
      400,
    );
    const empty = await t.request({
      method: 'DELETE',
      url: `/v1/products?store_uuid=${t.store.store_uuid}&sku_codes=`,
    });
    assert.equal(empty.statusCode, 422);
    assert.match(json(empty).detail, /sku_codes/);
  });
});

describeEachDialect('GET /v1/products/status and /failures', (ctx) => {
  it('lists by status in product_code order with a total', async () => {
    const t = ctx();
    await post(t, [
      product('L3'),
      product('L1'),
      product('L2', { 'Selling Price': '' }),
      product('L4', { Category: '' }),
    ]);
    await post(t, [{ product_code: 'L1', Status: 'active' }], 'PUT');
    const all = json(
      await t.request({ method: 'GET', url: `/v1/products/status?store_uuid=${t.store.store_uuid}` }),
    ).data;
    assert.equal(all.store_uuid, t.store.store_uuid);
    assert.equal(all.total, 4);
    assert.deepEqual(all.data, [
      { L1: { Category: 'Shirts', product_code: 'L1', status: 'active' } },
      { L2: { Category: 'Shirts', product_code: 'L2', status: 'problem' } },
      { L3: { Category: 'Shirts', product_code: 'L3', status: 'new' } },
      { L4: { Category: '', product_code: 'L4', status: 'problem' } },
    ]);
    const problems = json(
      await t.request({
        method: 'GET',
        url: `/v1/products/status?store_uuid=${t.store.store_uuid}&status=problem&offset=1&limit=1`,
      }),
    ).data;
    assert.equal(problems.total, 2);
    assert.deepEqual(
      problems.data.map((o: object) => Object.keys(o)[0]),
      ['L4'],
    );
    const review = json(
      await t.request({
        method: 'GET',
        url: `/v1/products/status?store_uuid=${t.store.store_uuid}&status=under%20review`,
      }),
    ).data;
    assert.equal(review.total, 0);
  });

  it("pages by keyset: `after` the previous page's next_after, null on the last page, with or without a status", async () => {
    const t = ctx();
    await post(
      t,
      ['Z1', 'Z2', 'Z3', 'Z4', 'Z5'].map((code) => product(code)),
    );
    const page = async (query: string) =>
      json(await t.request({ method: 'GET', url: `/v1/products/status?store_uuid=${t.store.store_uuid}&${query}` }))
        .data as { data: object[]; next_after: string | null; total: number };
    const codes = (p: { data: object[] }) => p.data.map((o) => Object.keys(o)[0]);
    const seen: string[] = [];
    let after: string | null = 'Z';
    while (after !== null) {
      const next = await page(`limit=2&after=${after}`);
      seen.push(...codes(next));
      after = next.next_after;
    }
    assert.deepEqual(seen, ['Z1', 'Z2', 'Z3', 'Z4', 'Z5'], 'every product once, in order');
    const first = await page('limit=5&after=Z');
    assert.equal(first.next_after, 'Z5', 'a full page may have a next one');
    assert.deepEqual(codes(await page('limit=5&after=Z5')), []);
    assert.equal((await page('limit=5&after=Z5')).next_after, null);
    assert.deepEqual(codes(await page('status=new&after=Z3')), ['Z4', 'Z5']);
    const refused = await t.request({
      method: 'GET',
      url: `/v1/products/status?store_uuid=${t.store.store_uuid}&after=${'x'.repeat(200)}`,
    });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /after/);
  });

  it('refuses bad paging and filters with 422 naming the parameter', async () => {
    const t = ctx();
    for (const [query, field] of [
      ['offset=-1', 'offset'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=abc', 'limit'],
      ['status=archived', 'status'],
    ]) {
      const res = await t.request({
        method: 'GET',
        url: `/v1/products/status?store_uuid=${t.store.store_uuid}&${query}`,
      });
      assert.equal(res.statusCode, 422, query);
      assert.match(json(res).detail, new RegExp(field));
    }
  });

  it('counts failure reasons of current products and recent Missing SKU rejections', async () => {
    const t = ctx();
    const store = await t.container.stores.createStore({ workspaceName: `fail-${Date.now()}`, name: 'F' });
    const send = (body: unknown[]) =>
      t.request({
        method: 'POST',
        url: `/v1/products?store_uuid=${store.store_uuid}`,
        token: store.api_token,
        payload: body,
      });
    await send([
      product('F1', { 'Selling Price': '' }),
      product('F2', { 'Selling Price': null }),
      product('F3', { 'Selling Price': 'x', Category: '' }),
      { 'Product Name': 'nocode' },
      { product_code: '' },
      { product_code: ' ' },
    ]);
    const failures = json(
      await t.request({
        method: 'GET',
        url: `/v1/products/failures?store_uuid=${store.store_uuid}`,
        token: store.api_token,
      }),
    ).data;
    assert.deepEqual(failures, [
      { _id: 'Missing SKU', count: 3 },
      { _id: 'Missing price', count: 2 },
      { _id: 'Invalid price', count: 1 },
      { _id: 'Missing category', count: 1 },
    ]);
    await send([product('F1'), product('F2')]);
    await t.request({
      method: 'DELETE',
      url: `/v1/products?store_uuid=${store.store_uuid}&sku_codes=F3`,
      token: store.api_token,
    });
    const after = json(
      await t.request({
        method: 'GET',
        url: `/v1/products/failures?store_uuid=${store.store_uuid}`,
        token: store.api_token,
      }),
    ).data;
    assert.deepEqual(after, [{ _id: 'Missing SKU', count: 3 }]);
  });
});

describeEachDialect('product change feed', (ctx) => {
  it('appends every write in order, so a reader can resume from a sequence number', async () => {
    const t = ctx();
    const store = await t.container.stores.createStore({ workspaceName: `feed-${Date.now()}`, name: 'Feed' });
    const send = (method: 'POST' | 'PUT', body: unknown[]) =>
      t.request({ method, url: `/v1/products?store_uuid=${store.store_uuid}`, token: store.api_token, payload: body });
    await send('POST', [product('C1'), product('C2')]);
    await send('PUT', [{ product_code: 'C1', Status: 'active' }, { product_code: 'missing' }]);
    await send('POST', [{ product_code: 'bad', Status: 'problem' }]);
    await t.request({
      method: 'DELETE',
      url: `/v1/products?store_uuid=${store.store_uuid}&sku_codes=C2`,
      token: store.api_token,
    });
    const changes = await t.container.changeLog.read(store.store_uuid, 0);
    assert.deepEqual(
      changes.map((c) => [c.seq, c.key, c.op, c.status]),
      [
        [1, 'C1', 'created', 'new'],
        [2, 'C2', 'created', 'new'],
        [3, 'C1', 'updated', 'active'],
        [4, 'C2', 'deleted', null],
      ],
    );
    assert.deepEqual(
      (await t.container.changeLog.read(store.store_uuid, 2)).map((c) => c.seq),
      [3, 4],
    );
  });

  it('hands out gap-free sequence numbers under concurrent writers', async () => {
    const t = ctx();
    const store = await t.container.stores.createStore({ workspaceName: `feed2-${Date.now()}`, name: 'Feed2' });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.request({
          method: 'POST',
          url: `/v1/products?store_uuid=${store.store_uuid}`,
          token: store.api_token,
          payload: Array.from({ length: 10 }, (_, j) => product(`w${i}-${j}`)),
        }),
      ),
    );
    const seqs = (await t.container.changeLog.read(store.store_uuid, 0)).map((c) => c.seq);
    assert.deepEqual(
      seqs,
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
  });
});

describeEachDialect('GET /v1/products', (ctx) => {
  it('answers an empty product_code filter with an empty list', async () => {
    const t = ctx();
    const res = await t.request({ method: 'GET', url: `/v1/products?store_uuid=${t.store.store_uuid}&product_code=` });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res).data.products, []);
  });
});

describeEachDialect('GET /v1/products filters (reason, q) and GET /v1/workspace/stores', (ctx) => {
  it('narrows by a failure reason and by code prefix or name text, with the total of the narrowed list', async () => {
    const t = ctx();
    const store = await t.container.stores.createStore({ workspaceName: `filters-${Date.now()}`, name: 'Filters' });
    const list = async (query: string) => {
      const res = await t.request({
        method: 'GET',
        url: `/v1/products?store_uuid=${store.store_uuid}&${query}`,
        token: store.api_token,
      });
      assert.equal(res.statusCode, 200, query);
      const data = json(res).data;
      return { total: data.total as number, codes: data.products.map((p: any) => p.product_code as string) };
    };
    await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      token: store.api_token,
      payload: [
        product('RED-1', { 'Product Name': 'Red Linen Shirt', 'Selling Price': '' }),
        product('RED-2', { 'Product Name': 'Crimson dress' }),
        product('BLU-1', { 'Product Name': 'Navy 100% cotton tee', 'Selling Price': '' }),
        product('b_x', { 'Product Name': 'Plain' }),
      ],
    });
    assert.deepEqual(await list('reason=Missing%20price'), { total: 2, codes: ['BLU-1', 'RED-1'] });
    assert.deepEqual(await list('reason=Missing%20price&status=problem&limit=1'), { total: 2, codes: ['BLU-1'] });
    assert.deepEqual(await list('reason=Nothing%20like%20this'), { total: 0, codes: [] });
    assert.deepEqual(await list('q=red'), { total: 2, codes: ['RED-1', 'RED-2'] });
    // A name filter's page: its codes first (the listing index), then their rows.
    assert.deepEqual(await list('q=red&offset=1&limit=1'), { total: 2, codes: ['RED-2'] });
    assert.deepEqual(await list('q=red&offset=2'), { total: 2, codes: [] });
    // A page that ends before its limit tells the total; one that is full or empty past the start does not.
    assert.deepEqual(await list('q=red&offset=1'), { total: 2, codes: ['RED-2'] });
    assert.deepEqual(await list('q=red&offset=5'), { total: 2, codes: [] });
    assert.deepEqual(await list('q=r&limit=1'), { total: 2, codes: ['RED-1'] });
    assert.deepEqual(await list('q=LINEN'), { total: 1, codes: ['RED-1'] });
    // LIKE wildcards in the text are taken literally
    assert.deepEqual(await list('q=100%25'), { total: 1, codes: ['BLU-1'] });
    assert.deepEqual(await list('q=b_'), { total: 1, codes: ['b_x'] });
    assert.deepEqual(await list('q=%25'), { total: 1, codes: ['BLU-1'] });
    assert.deepEqual(await list('q=red&reason=Missing%20price'), { total: 1, codes: ['RED-1'] });
    // A text's total is kept while the catalog is unchanged and counted again once it changes.
    assert.deepEqual(await list('q=e&limit=1'), { total: 3, codes: ['BLU-1'] });
    assert.deepEqual(await list('q=e&limit=1&offset=1'), { total: 3, codes: ['RED-1'] });
    const renamed = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      token: store.api_token,
      payload: [product('b_x', { 'Product Name': 'Plain tee' })],
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(await list('q=e&limit=1'), { total: 4, codes: ['BLU-1'] });
    const tooLong = await t.request({
      method: 'GET',
      url: `/v1/products?store_uuid=${store.store_uuid}&q=${'x'.repeat(201)}`,
      token: store.api_token,
    });
    assert.equal(tooLong.statusCode, 422);
    assert.match(json(tooLong).detail, /q/);
  });

  it("lists the token's own workspace stores, a publishable key's named stores only, and nothing without a token", async () => {
    const t = ctx();
    const workspace = `ws-${Date.now()}`;
    const first = await t.container.stores.createStore({ workspaceName: workspace, name: 'First' });
    const second = await t.container.stores.createStore({ workspaceName: workspace, name: 'Second' });
    const res = await t.request({ method: 'GET', url: '/v1/workspace/stores', token: first.api_token });
    assert.equal(res.statusCode, 200);
    // oldest first; two stores made in the same millisecond may come in either order
    assert.deepEqual(
      json(res)
        .data.map((s: any) => [s.store_uuid, s.store_name])
        .sort((a: string[], b: string[]) => a[1].localeCompare(b[1])),
      [
        [first.store_uuid, 'First'],
        [second.store_uuid, 'Second'],
      ],
    );
    assert.ok(!json(res).data.some((s: any) => s.store_uuid === t.store.store_uuid), 'another workspace store');
    const key = await t.container.tokens.createToken(first.workspace_id, {
      scope: 'search',
      storeIds: [second.store_uuid],
    });
    const keyed = await t.request({ method: 'GET', url: '/v1/workspace/stores', token: key.api_token });
    assert.deepEqual(
      json(keyed).data.map((s: any) => s.store_uuid),
      [second.store_uuid],
    );
    const anonymous = await t.request({ method: 'GET', url: '/v1/workspace/stores', token: null });
    assert.equal(anonymous.statusCode, 401);
  });
});
