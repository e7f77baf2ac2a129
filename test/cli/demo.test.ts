import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-demo-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

it('vitrine demo: a store from the shipped sample catalog whose three suggested requests answer', async () => {
  const env = { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'demo.db')}`, VITRINE_DATA_DIR: dir };
  const run = spawnSync(process.execPath, [path.resolve('bin/vitrine.js'), 'demo', '--json'], {
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const demo = JSON.parse(run.stdout);
  assert.equal(demo.products, 216);
  assert.deepEqual(demo.photos, { indexed: 216, failed: 0 });
  assert.match(demo.api_token, /^vt_/);
  assert.equal(demo.try.length, 3);

  // The same requests, through the app on the same database (no network: inject).
  const config = loadConfig({ DATABASE_URL: env.DATABASE_URL, VITRINE_DATA_DIR: dir }, { logLevel: 'silent' });
  const container = createContainer(config);
  const app = await buildApp(container, { logger: false });
  try {
    const headers = { authorization: `Bearer ${demo.api_token}` };
    const store = demo.store_uuid as string;
    // What `vitrine serve` does within a moment of starting: its search follower reads the change log.
    await container.searchIndexer.follower.catchUp(store);
    const search = (await app.inject({ url: `/v1/search?store_uuid=${store}&query=red+dress`, headers })).json();
    assert.equal(search.data[0].title, 'Women Red Midi Dress');
    const photo = fs.readFileSync(path.resolve('samples/demo/photos/DEMO-027.jpg'));
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(photo)]), 'dress.jpg');
    const request = new Request('http://local/', { method: 'POST', body: form });
    const visual = (
      await app.inject({
        method: 'POST',
        url: `/v1/visual-search?store_uuid=${store}&limit=5`,
        payload: Buffer.from(await request.arrayBuffer()),
        headers: { ...headers, 'content-type': request.headers.get('content-type')! },
      })
    ).json();
    assert.equal(visual.data[0].product_code, 'DEMO-027');
    assert.equal(visual.data.length, 5);
    const looks = (
      await app.inject({ url: `/v1/complementary?store_uuid=${store}&product_code=DEMO-027&limit=3`, headers })
    ).json();
    assert.ok(looks.data.categories.length >= 2, JSON.stringify(looks));
    const served = await app.inject({ url: new URL(visual.data[0].image_url as string).pathname });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/jpeg');
  } finally {
    await app.close();
    await container.close();
  }
});
