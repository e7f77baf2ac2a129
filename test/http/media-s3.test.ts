import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { drawShape, imageForm } from '../helpers/images.js';
import { S3MediaStore, readObject } from '../../src/modules/media/media-store.js';

// The S3-compatible server: s3rver from the developer tooling (tools/, installed by `npm run tools`,
// which CI runs). Where it is not installed the suite is skipped and says so.
const S3RVER = path.resolve('tools/node_modules/s3rver/lib/s3rver.js');
const SKIP = fs.existsSync(S3RVER)
  ? false
  : 'SKIPPED: no local S3-compatible server (run `npm run tools` to install s3rver into tools/)';
if (SKIP) console.log(`media on S3: ${SKIP}`);

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

describe('media on an S3-compatible bucket [sqlite]', { skip: SKIP }, () => {
  let server: S3rverInstance;
  let dir: string;
  let endpoint: string;
  let t: TestApp;
  const settings = () => ({
    endpoint,
    bucket: 'vitrine-media',
    region: 'us-east-1',
    prefix: 'media/',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-s3-'));
    const { default: S3rver } = (await import(pathToFileURL(S3RVER).href)) as {
      default: new (options: object) => S3rverInstance;
    };
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'vitrine-media' }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    t = await buildTestApp('sqlite', { mediaS3: settings() });
  });
  after(async () => {
    await t?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps objects in the bucket: stat, put, read whole and by range', async () => {
    const store = new S3MediaStore(settings());
    const key = `${randomBytes(32).toString('hex')}.pdf`;
    assert.equal(await store.stat(key), undefined);
    const file = path.join(dir, 'upload');
    fs.writeFileSync(file, '%PDF-1.4 hello world');
    await store.putFile(key, file, 'application/pdf', 'UNSIGNED-PAYLOAD');
    assert.deepEqual(await store.stat(key), { size: 20 });
    assert.equal((await readObject(store, key)).toString(), '%PDF-1.4 hello world');
    const chunks: Buffer[] = [];
    for await (const chunk of await store.read(key, { start: 9, end: 13 })) chunks.push(chunk as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), 'hello');
  });

  it('uploads through POST /v1/media into the bucket, serves it back by range, indexes it without fetching', async () => {
    const photo = await drawShape('circle', '#d01010');
    const { payload, headers } = await imageForm([{ name: 'file', data: photo, filename: 'red.jpg' }]);
    const res = await t.request({
      method: 'POST',
      url: `/v1/media?store_uuid=${t.store.store_uuid}`,
      payload,
      headers,
    });
    assert.equal(res.statusCode, 200, res.body);
    const file = res.json().data.files[0];
    // The object is in the bucket's folder, not on the local media disk.
    const inBucket = fs.readdirSync(dir, { recursive: true }).map(String);
    assert.ok(
      inBucket.some((name) => name.includes(file.sha256)),
      'stored in the bucket',
    );
    assert.equal(fs.existsSync(path.join(t.container.config.dataDir, 'media')), false);

    const url = new URL(file.url).pathname;
    const whole = await t.request({ method: 'GET', url, token: null });
    assert.equal(whole.statusCode, 200);
    assert.ok(whole.rawPayload.equals(photo));
    const part = await t.request({ method: 'GET', url, headers: { range: 'bytes=0-9' }, token: null });
    assert.equal(part.statusCode, 206);
    assert.ok(part.rawPayload.equals(photo.subarray(0, 10)));

    await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [
        {
          product_code: 'S3-1',
          'Product Name': 'Red',
          Category: 'Tops',
          'Selling Price': '9',
          'Image URL 1': file.url,
        },
      ],
    });
    await t.container.imageCatalog.catchUp(t.store.store_uuid);
    await t.container.imageWorker.drain();
    const status = await t.container.visual.status(t.store.store_uuid, 5);
    assert.equal(status.indexed, 1, JSON.stringify(status.failures));
  });
});
