import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { POSTGRES_SKIP, REDIS_SKIP, REDIS_URL } from '../helpers/backends.js';
import { startServe, type ServedVitrine } from '../helpers/serve.js';
import { startReceiver, until, type Receiver } from '../helpers/receiver.js';
import { drawShape } from '../helpers/images.js';
import { ADMIN_TOKEN } from '../factories/admin.js';

// Two `vitrine serve` and one `vitrine worker` on one PostgreSQL and one Redis: an import, image
// indexing and webhook delivery spread over them, the worker killed with -9 in the middle. Every
// product, image and event must end up processed exactly once in effect.
const ADMIN = ADMIN_TOKEN;
const PRODUCTS = 240;
const IMAGES = 80;
const SHAPES = ['circle', 'square', 'stripes', 'triangle'] as const;
const COLOURS = [
  '#c0392b',
  '#2980b9',
  '#27ae60',
  '#8e44ad',
  '#f39c12',
  '#2c3e50',
  '#d35400',
  '#16a085',
  '#7f8c8d',
  '#e84393',
];

describe('many processes, one PostgreSQL and one Redis', { skip: POSTGRES_SKIP || REDIS_SKIP }, () => {
  const database = cliDatabase('postgres');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-many-'));
  const servers: ServedVitrine[] = [];
  let worker: ChildProcess | undefined;
  let receiver: Receiver;
  let images: http.Server;
  let imageBase = '';
  let store: { store_uuid: string; api_token: string };
  after(async () => {
    worker?.kill('SIGKILL');
    for (const server of servers) await server.stop();
    await receiver?.close();
    await new Promise((resolve) => images?.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  before(async () => {
    const photos = await Promise.all(
      Array.from({ length: IMAGES }, (_, i) =>
        drawShape(SHAPES[i % SHAPES.length], COLOURS[Math.floor(i / SHAPES.length) % COLOURS.length], 224 + (i % 7)),
      ),
    );
    images = http.createServer((req, res) => {
      const index = Number(/\/img\/(\d+)\.jpg$/.exec(req.url ?? '')?.[1]);
      if (!photos[index]) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photos[index]);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', () => resolve()));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}/img`;
    receiver = await startReceiver();
  });

  it('processes every product, image and event exactly once in effect across a kill -9', async () => {
    const env = {
      REDIS_URL,
      VITRINE_ADMIN_TOKEN: ADMIN,
      VITRINE_ALLOW_PRIVATE_FETCH: 'true',
      VITRINE_WEBHOOK_RETRY_MS: '500',
      VITRINE_DATA_DIR: dataDir,
    };
    const cli = (args: string[]) => runCli(database(), args);
    assert.equal(cli(['migrate']).status, 0);
    store = jsonOf(cli(['store', 'create', '--workspace-name', 'Many', '--name', 'Shop', '--json']));
    process.env.VITRINE_ALLOW_PRIVATE_FETCH = 'true';
    jsonOf(
      cli([
        'webhook',
        'add',
        '--store',
        store.store_uuid,
        '--url',
        receiver.url,
        '--event',
        'product.created',
        '--json',
      ]),
    );

    servers.push(await startServe(database(), env, ['--processes', '1']));
    servers.push(await startServe(database(), env, ['--processes', '1']));
    worker = spawn(process.execPath, [path.resolve('bin/vitrine.js'), 'worker'], {
      env: { ...process.env, DATABASE_URL: database(), LOG_LEVEL: 'warn', ...env },
      stdio: 'ignore',
    });

    // The import is uploaded to one server; any process may run it.
    const lines = Array.from({ length: PRODUCTS }, (_, i) =>
      JSON.stringify({
        product_code: `m${i}`,
        'Product Name': `${SHAPES[i % SHAPES.length]} print tee ${i}`,
        Category: 'Tshirts',
        Department: 'Women',
        'Selling Price': String(10 + (i % 30)),
        'Image URL 1': `${imageBase}/${i % IMAGES}.jpg`,
      }),
    );
    const form = new FormData();
    form.append('file', new Blob([lines.join('\n')], { type: 'application/x-ndjson' }), 'catalog.ndjson');
    const queued = await fetch(`${servers[0].url}/admin/v1/stores/${store.store_uuid}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
      body: form,
    });
    assert.equal(queued.status, 202, await queued.clone().text());
    const importId = ((await queued.json()) as { data: { import_id: string } }).data.import_id;

    const pipeline = async () =>
      (
        (await (
          await fetch(`${servers[1].url}/admin/v1/stores/${store.store_uuid}/images`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          })
        ).json()) as { data: { images: number; pending: number; indexed: number; failed: number } }
      ).data;
    // Kill the worker once indexing is under way (it holds some image leases at that moment).
    await until(async () => (await pipeline()).indexed >= 5, 'indexing under way', 60_000);
    worker.kill('SIGKILL');

    await until(
      async () => {
        const state = await pipeline();
        return state.images === IMAGES && state.indexed === IMAGES;
      },
      `all ${IMAGES} images indexed by the surviving processes`,
      90_000,
    );
    const finalPipeline = await pipeline();
    assert.equal(finalPipeline.failed, 0);

    const job = (await (
      await fetch(`${servers[1].url}/admin/v1/imports/${importId}`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { data: { status: string; summary?: { inserted: number } } };
    assert.equal(job.data.status, 'done');

    const listed = (await (
      await fetch(`${servers[0].url}/v1/products?store_uuid=${store.store_uuid}&limit=1000`, {
        headers: { authorization: `Bearer ${store.api_token}` },
      })
    ).json()) as { data: { total?: number; products?: unknown[] } };
    const total = listed.data.total ?? listed.data.products?.length;
    assert.equal(total, PRODUCTS, 'every product once');

    await until(() => new Set(receiver.events().map((e) => e.id)).size >= PRODUCTS, 'every event delivered', 60_000);
    const ids = new Set(receiver.events().map((e) => e.id));
    assert.equal(ids.size, PRODUCTS, 'no event missing, none extra');
    assert.deepEqual(
      [...new Set(receiver.events().map((e) => e.code))].sort(),
      Array.from({ length: PRODUCTS }, (_, i) => `m${i}`).sort(),
    );

    // Search by photo works from either server (the index was built by all three processes).
    const similar = await fetch(`${servers[1].url}/v1/similar?store_uuid=${store.store_uuid}&product_code=m0&limit=5`, {
      headers: { authorization: `Bearer ${store.api_token}` },
    });
    assert.equal(similar.status, 200);
  });
});
