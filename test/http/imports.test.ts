import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { ImportsService } from '../../src/modules/imports/imports.service.js';
import { isRefusedAddress } from '../../src/net/safe-fetch.js';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';

const ADMIN = adminHeaders;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-imports-'));
const CSV =
  'product_code,Product Name,Category,Selling Price,Image URL 1,material\nA1,Shirt,Shirts,10,https://i/a1.jpg,linen\nA2,Jeans,Jeans,abc,https://i/a2.jpg,denim\n,No code,Shirts,5,https://i/x.jpg,\nA3,Too,Many,Fields,1,2,3\n';

// A local server for URL imports (tests never leave 127.0.0.1).
let server: http.Server;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/catalog.csv') {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(CSV);
      return;
    }
    if (req.url === '/redirect.csv') {
      res.writeHead(302, { location: '/catalog.csv' });
      res.end();
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function multipart(csv: string, name: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('file', new Blob([csv]), name);
  const request = new Request('http://local/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { ...ADMIN, 'content-type': request.headers.get('content-type')! },
  };
}

async function waitDone(t: TestApp, id: string) {
  await t.container.imports.runQueued();
  return json(await t.request({ method: 'GET', url: `/admin/v1/imports/${id}`, token: null, headers: ADMIN })).data;
}

describeEachDialect(
  'admin imports',
  (ctx) => {
    it('accepts a multipart upload (202), imports it in the background, reports the summary and the rejects', async () => {
      const t = ctx();
      const { payload, headers } = await multipart(CSV, 'catalog.csv');
      const res = await t.request({
        method: 'POST',
        url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
        token: null,
        headers,
        payload,
      });
      assert.equal(res.statusCode, 202, res.body);
      const { import_id, status } = json(res).data;
      assert.equal(status, 'queued');
      const done = await waitDone(t, import_id);
      assert.equal(done.status, 'done');
      assert.deepEqual(
        { ...done.summary, seconds: 0 },
        {
          rows: 4,
          inserted: 2,
          updated: 0,
          unchanged: 0,
          failed: 2,
          failures: { 'Missing SKU': 1, field_count: 1 },
          statuses: { new: 1, problem: 1 },
          problems: { 'Invalid price': 1 },
          hint: '1 product is in `problem`: Invalid price 1 — see README › Quality checks',
          suggested_mapping: null,
          mode: 'replace',
          dry_run: false,
          seconds: 0,
        },
      );
      assert.equal(done.progress.rows, 4);
      const rejects = await t.request({
        method: 'GET',
        url: `/admin/v1/imports/${import_id}/rejects`,
        token: null,
        headers: ADMIN,
      });
      assert.equal(rejects.statusCode, 200);
      assert.match(String(rejects.headers['content-type']), /ndjson/);
      const lines = rejects.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => [l.line, l.reason]).sort(), [
        [4, 'Missing SKU'],
        [5, 'field_count'],
      ]);
      const listed = json(
        await t.request({ method: 'GET', url: `/v1/products?store_uuid=${t.store.store_uuid}&product_code=A1,A2` }),
      ).data.products;
      assert.equal(listed[0].material, 'linen', 'unknown columns are kept as attributes');
      assert.equal(listed[1].status, 'problem');
    });

    it('says a file of which no row is accepted is probably not a catalog (hint), and rejects its rows', async () => {
      const t = ctx();
      const { payload, headers } = await multipart('hello world\nthis is not, a catalog\n', 'notes.csv', {});
      const res = await t.request({
        method: 'POST',
        url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
        token: null,
        headers,
        payload,
      });
      assert.equal(res.statusCode, 202, res.body);
      const job = (await waitDone(t, json(res).data.import_id)) as { status: string; summary: Record<string, any> };
      assert.equal(job.status, 'done');
      assert.equal(job.summary.inserted, 0);
      assert.equal(job.summary.failed, job.summary.rows);
      assert.match(String(job.summary.hint), /^no row was accepted \(.*\): is this a catalog file/);
    });

    it('suggests a mapping profile when a catalog names its columns otherwise (fashion-catalog-2 style), which then reads it', async () => {
      const t = ctx();
      const csv =
        'Product_ID,Product_Name,Product_Brand,Gender,Price,Num_Images,Description,Primary_Color\n10017413,DKNY Unisex Black Trolley Bag,DKNY,Unisex,11745,7,"Black trolley bag, four wheels", Black\n';
      const upload = async () => {
        const { payload, headers } = await multipart(csv, 'myntra.csv', {});
        const res = await t.request({
          method: 'POST',
          url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
          token: null,
          headers,
          payload,
        });
        return (await waitDone(t, json(res).data.import_id)) as { summary: Record<string, any> };
      };
      const refused = await upload();
      assert.equal(refused.summary.failed, 1);
      assert.deepEqual(refused.summary.suggested_mapping, {
        Product_ID: 'product_code',
        Product_Name: 'Product Name',
        Product_Brand: 'Brand',
        Gender: 'Department',
        Price: 'Selling Price',
        Primary_Color: 'Colour',
      });
      assert.match(refused.summary.hint, /a mapping profile \{"fields": \{"Product_ID":"product_code"/);
      const set = await t.request({
        method: 'PUT',
        url: `/admin/v1/stores/${t.store.store_uuid}/mapping`,
        token: null,
        headers: ADMIN,
        payload: { fields: refused.summary.suggested_mapping, required: [] },
      });
      assert.equal(set.statusCode, 200, set.body);
      const accepted = await upload();
      assert.equal(accepted.summary.inserted, 1);
      assert.equal(accepted.summary.suggested_mapping, null);
    });

    it('merges a price feed without wiping images, reports a dry run without writing, and skips identical rows', async () => {
      const t = ctx();
      const queue = async (csv: string, fields: Record<string, string>) => {
        const { payload, headers } = await multipart(csv, 'feed.csv', fields);
        const res = await t.request({
          method: 'POST',
          url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
          token: null,
          headers,
          payload,
        });
        assert.equal(res.statusCode, 202, res.body);
        return (await waitDone(t, json(res).data.import_id)) as { status: string; summary: Record<string, unknown> };
      };
      const products = async () =>
        json(
          await t.request({
            method: 'GET',
            url: `/v1/products?store_uuid=${t.store.store_uuid}&product_code=M1,M2,M3`,
          }),
        ).data.products as Array<Record<string, unknown>>;
      await queue(
        'product_code,Product Name,Category,Selling Price,Image URL 1,fabric\nM1,Shirt,Shirts,10,https://i/m1.jpg,linen\nM2,Skirt,Skirts,20,https://i/m2.jpg,silk\n',
        {},
      );
      const before = await products();
      const seq = await t.container.changeLog.latest(t.store.store_uuid);

      const dry = await queue('product_code,Selling Price\nM1,12\nM2,20\nM3,5\n', { mode: 'merge', dry_run: 'true' });
      assert.equal(dry.status, 'done');
      assert.deepEqual(
        { ...dry.summary, seconds: 0, hint: null },
        {
          rows: 3,
          inserted: 1,
          updated: 1,
          unchanged: 1,
          failed: 0,
          failures: {},
          statuses: { new: 2, problem: 1 },
          problems: { 'Missing title and images': 1, 'Missing category': 1 },
          hint: null,
          suggested_mapping: null,
          mode: 'merge',
          dry_run: true,
          seconds: 0,
        },
      );
      assert.deepEqual(await products(), before, 'a dry run writes nothing');
      assert.equal(await t.container.changeLog.latest(t.store.store_uuid), seq);

      const merged = await queue('product_code,Selling Price\nM1,12\nM2,20\n', { mode: 'merge' });
      assert.deepEqual([merged.summary.updated, merged.summary.unchanged], [1, 1]);
      const [m1, m2] = await products();
      assert.equal(m1['Selling Price'], '12');
      assert.equal(m1['Image URL 1'], 'https://i/m1.jpg', 'a price feed keeps the images');
      assert.equal(m1.fabric, 'linen', 'and the other attributes');
      assert.equal(m2.updated_at, before[1].updated_at, 'an identical row writes nothing');
      assert.equal(
        await t.container.changeLog.latest(t.store.store_uuid),
        seq + 1,
        'one change-log entry: the changed product only',
      );

      const withUnknown = await queue('product_code,season_code\nM1,SS27\n', { mode: 'merge' });
      assert.equal(withUnknown.summary.updated, 1);
      assert.equal((await products())[0].season_code, 'SS27', 'unknown columns are kept as attributes in a merge');

      const badMode = await multipart('product_code\nX\n', 'x.csv', { mode: 'upsert' });
      const refused = await t.request({
        method: 'POST',
        url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
        token: null,
        ...badMode,
      });
      assert.equal(refused.statusCode, 422);
      assert.match(json(refused).detail, /mode must be one of replace, merge/);
    });

    it('refuses bad requests and unknown ids', async () => {
      const t = ctx();
      const none = await t.request({
        method: 'POST',
        url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
        token: null,
        headers: ADMIN,
        payload: { nothing: true },
      });
      assert.equal(none.statusCode, 400);
      const { payload, headers } = await multipart('x', 'catalog.xml');
      assert.equal(
        (
          await t.request({
            method: 'POST',
            url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
            token: null,
            headers,
            payload,
          })
        ).statusCode,
        422,
      );
      const unknownStore = await multipart(CSV, 'c.csv');
      assert.equal(
        (await t.request({ method: 'POST', url: '/admin/v1/stores/nope/imports', token: null, ...unknownStore }))
          .statusCode,
        404,
      );
      assert.equal(
        (await t.request({ method: 'GET', url: '/admin/v1/imports/nope', token: null, headers: ADMIN })).statusCode,
        404,
      );
      assert.equal(
        (
          await t.request({
            method: 'POST',
            url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
            token: null,
            payload: { url: `${base}/catalog.csv` },
          })
        ).statusCode,
        401,
      );
    });

    it('fetches a URL with the SSRF rules: loopback refused (also behind a redirect), allowed when private fetch is on', async () => {
      const t = ctx();
      for (const url of [
        `${base}/catalog.csv`,
        `${base}/redirect.csv`,
        'http://169.254.169.254/latest/meta-data.csv',
        'http://10.0.0.1/x.csv',
        'http://localhost/x.csv',
        'file:///etc/passwd',
      ]) {
        const res = await t.request({
          method: 'POST',
          url: `/admin/v1/stores/${t.store.store_uuid}/imports`,
          token: null,
          headers: ADMIN,
          payload: { url },
        });
        assert.equal(res.statusCode, 422, url);
        assert.match(json(res).detail, /refused|http\(s\)|cannot fetch/, url);
      }
      const permissive = new ImportsService(t.container.storage, t.container.products, t.container.stores, {
        dataDir,
        allowPrivateFetch: true,
      });
      const queued = await permissive.fromUrl(t.store.store_uuid, `${base}/redirect.csv`, {});
      await permissive.runQueued();
      const done = await permissive.get(queued.import_id);
      assert.equal(done.status, 'done');
      assert.equal(done.summary?.rows, 4);
      await assert.rejects(permissive.fromUrl(t.store.store_uuid, `${base}/missing.csv`, {}), /HTTP 404/);
    });
  },
  { adminToken: ADMIN_TOKEN, dataDir },
);

it('classifies addresses for the fetcher', () => {
  for (const refused of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    'fe80::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '0.0.0.0',
    '100.100.100.200',
  ])
    assert.ok(isRefusedAddress(refused), refused);
  for (const allowed of ['93.184.216.34', '2606:4700::1111']) assert.ok(!isRefusedAddress(allowed), allowed);
});
