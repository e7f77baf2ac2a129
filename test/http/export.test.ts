import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { importCatalog } from '../../src/modules/imports/catalog-import.js';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-export-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const PRODUCTS = [
  {
    product_code: 'E1',
    'Product Name': 'Linen shirt, "relaxed"\nfit',
    Category: 'Shirts',
    'Selling Price': '49.90',
    'Image URL 1': 'https://cdn.example/e1.jpg',
    Colour: 'White',
    sizes: ['S', 'M'],
    care: { wash: 30 },
    stock: 12,
  },
  { product_code: 'E2', 'Product Name': 'Jeans', Category: 'Jeans', 'Image URL 1': 'https://cdn.example/e2.jpg' },
  {
    product_code: 'E3',
    'Product Name': 'Parked dress',
    Category: 'Dresses',
    'Selling Price': '80',
    'Image URL 1': 'https://cdn.example/e3.jpg',
    Status: 'draft',
  },
  {
    product_code: 'E4',
    'Product Name': 'Live coat',
    Category: 'Coats',
    'Selling Price': '120',
    'Image URL 1': 'https://cdn.example/e4.jpg',
    Status: 'active',
  },
];

async function exportOf(t: TestApp, query: string) {
  return t.request({ method: 'GET', url: `/v1/products/export?store_uuid=${t.store.store_uuid}${query}` });
}

describeEachDialect('product export', (ctx) => {
  it('streams every product with all attributes and its status as NDJSON, in product_code order', async () => {
    const t = ctx();
    const put = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: PRODUCTS,
    });
    assert.equal(json(put).data.inserted, 4);
    const res = await exportOf(t, '');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="products-.*\.ndjson"/);
    const lines = res.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((l) => [l.product_code, l.Status]),
      [
        ['E1', 'new'],
        ['E2', 'problem'],
        ['E3', 'draft'],
        ['E4', 'active'],
      ],
    );
    const { Status, ...e1 } = lines[0];
    assert.equal(Status, 'new');
    assert.deepEqual(e1, PRODUCTS[0], 'every attribute, with its JSON value');
    const problems = await exportOf(t, '&status=problem');
    assert.deepEqual(
      problems.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).product_code),
      ['E2'],
    );
    assert.equal((await exportOf(t, '&status=inactive')).body, '');
  });

  it('writes CSV with one column per attribute, quoting what needs it', async () => {
    const t = ctx();
    const res = await exportOf(t, '&format=csv');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    const [header] = res.body.split('\n');
    assert.equal(header, 'product_code,Product Name,Category,Selling Price,Image URL 1,Colour,care,sizes,stock,Status');
    assert.ok(res.body.includes('"Linen shirt, ""relaxed""\nfit"'), res.body);
    assert.ok(res.body.includes('"{""wash"":30}","[""S"",""M""]",12,new'), res.body);
  });

  it('imports back unchanged: NDJSON for every value, CSV for text, problem and parked statuses included', async () => {
    const t = ctx();
    const store = await t.container.stores.getStore(t.store.store_uuid);
    const seq = await t.container.changeLog.latest(t.store.store_uuid);
    const ndjson = path.join(dir, `${t.dialect}.ndjson`);
    fs.writeFileSync(ndjson, (await exportOf(t, '')).body);
    const again = await importCatalog(t.container.products, store, ndjson, { format: 'ndjson' });
    assert.deepEqual(
      [again.rows, again.inserted, again.updated, again.unchanged, again.failed],
      [4, 0, 0, 4, 0],
      JSON.stringify(again),
    );
    assert.equal(await t.container.changeLog.latest(t.store.store_uuid), seq, 'nothing written');
    // CSV: the text-only products round-trip exactly (E1 holds JSON values, which CSV carries as text).
    const csv = path.join(dir, `${t.dialect}.csv`);
    fs.writeFileSync(csv, (await exportOf(t, '&format=csv')).body);
    const fromCsv = await importCatalog(t.container.products, store, csv, { format: 'csv', dryRun: true });
    assert.equal(fromCsv.unchanged, 3, JSON.stringify(fromCsv));
    assert.equal(fromCsv.updated, 1);
  });

  it('answers 422 for a status or format that does not exist', async () => {
    const t = ctx();
    const status = await exportOf(t, '&status=sold');
    assert.equal(status.statusCode, 422);
    assert.match(json(status).detail, /status.*must be one of new, active, problem, inactive, draft, under review/);
    assert.equal((await exportOf(t, '&format=xml')).statusCode, 422);
    const foreign = await t.request({
      method: 'GET',
      url: '/v1/products/export?store_uuid=00000000-0000-0000-0000-000000000000',
    });
    assert.equal(foreign.statusCode, 404);
  });

  it('ends the export when the client goes away mid-stream, and keeps serving', async () => {
    const t = ctx();
    const store = await t.container.stores.getStore(t.store.store_uuid);
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < 4; i++)
      await t.container.products.importBatch(
        store,
        Array.from({ length: 2500 }, (_, j) => ({
          product_code: `BULK-${i}-${String(j).padStart(4, '0')}`,
          'Product Name': 'Bulk',
          Category: 'Tops',
          notes: filler,
        })),
        { mode: 'replace' },
      );
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const firstBytes = await new Promise<number>((resolve, reject) => {
      const req = http.get(
        {
          host: '127.0.0.1',
          port,
          path: `/v1/products/export?store_uuid=${t.store.store_uuid}`,
          headers: { authorization: `Bearer ${t.store.api_token}` },
        },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            req.destroy();
            resolve(chunk.length);
          });
        },
      );
      req.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
    });
    assert.ok(firstBytes > 0);
    for (let i = 0; i < 100 && t.container.productExport.active > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(t.container.productExport.active, 0, 'the export stopped reading pages');
    const next = await exportOf(t, '&status=draft');
    assert.equal(next.statusCode, 200);
    assert.equal(next.body.trim().split('\n').length, 1);
  });
});
