import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { describeEachDialect, type TestApp } from '../helpers/test-app.js';
import { drawShape } from '../helpers/images.js';

/** A multipart body built byte by byte, so a test can send any file name (NUL, `../`) as it is. */
function multipart(files: Array<{ name?: string; filename: string; data: Buffer; type?: string }>) {
  const boundary = `----vitrine${randomBytes(8).toString('hex')}`;
  const parts = files.map((file) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
        'latin1',
      ),
      file.data,
      Buffer.from('\r\n'),
    ]),
  );
  return {
    payload: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
function glb(): Buffer {
  const json = Buffer.from('{"asset":{"version":"2.0"}}  ');
  const header = Buffer.alloc(20);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + json.length, 8);
  header.writeUInt32LE(json.length, 12);
  header.write('JSON', 16, 'latin1');
  return Buffer.concat([header, json]);
}
function mp4(): Buffer {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isomiso2', 16, 'latin1');
  const mdat = Buffer.alloc(4096, 7);
  mdat.writeUInt32BE(4096, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat]);
}

describeEachDialect('media upload and serving', (ctx) => {
  let red: Buffer;
  const upload = (t: TestApp, files: Parameters<typeof multipart>[0], store = t.store.store_uuid, token?: string) => {
    const { payload, headers } = multipart(files);
    return t.request({ method: 'POST', url: `/v1/media?store_uuid=${store}`, payload, headers, token });
  };
  const pathOf = (url: string) => new URL(url).pathname;

  it('stores a photo by its SHA-256 and serves it with long-lived caching, ETag and ranges', async () => {
    const t = ctx();
    red = await drawShape('circle', '#d01010');
    const res = await upload(t, [{ filename: 'red.jpg', data: red, type: 'image/jpeg' }]);
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assert.equal(data.uploaded, 1);
    assert.equal(data.failed, 0);
    const [file] = data.files;
    assert.equal(file.file_name, 'red.jpg');
    assert.equal(file.content_type, 'image/jpeg');
    assert.equal(file.media_type, 'image');
    assert.equal(file.bytes, red.length);
    assert.equal(file.created, true);
    assert.match(file.url, /^http:\/\/localhost(:\d+)?\/media\/[0-9a-f]{64}\.jpg$/);

    const served = await t.request({ method: 'GET', url: pathOf(file.url), token: null });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/jpeg');
    assert.match(String(served.headers['cache-control']), /max-age=31536000, immutable/);
    assert.equal(served.headers['accept-ranges'], 'bytes');
    assert.ok(served.rawPayload.equals(red));

    const range = await t.request({
      method: 'GET',
      url: pathOf(file.url),
      headers: { range: 'bytes=10-19' },
      token: null,
    });
    assert.equal(range.statusCode, 206);
    assert.equal(range.headers['content-range'], `bytes 10-19/${red.length}`);
    assert.ok(range.rawPayload.equals(red.subarray(10, 20)));
    const past = await t.request({
      method: 'GET',
      url: pathOf(file.url),
      headers: { range: `bytes=${red.length + 5}-` },
      token: null,
    });
    assert.equal(past.statusCode, 416);
    const cached = await t.request({
      method: 'GET',
      url: pathOf(file.url),
      headers: { 'if-none-match': String(served.headers.etag) },
      token: null,
    });
    assert.equal(cached.statusCode, 304);
    const unknown = await t.request({ method: 'GET', url: `/media/${'0'.repeat(64)}.jpg`, token: null });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().status.code, -1);
    assert.ok(unknown.headers['x-request-id']);
  });

  it('takes many files of every kind in one request, each typed from its bytes', async () => {
    const t = ctx();
    const png = await (await import('sharp')).default(red).png().toBuffer();
    const res = await upload(t, [
      { filename: 'a.png', data: png },
      { filename: 'manual.pdf', data: PDF },
      { filename: 'shoe.glb', data: glb() },
      { filename: 'clip.mp4', data: mp4() },
      { filename: 'looks-like.jpg', data: png },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const files = res.json().data.files as Array<Record<string, unknown>>;
    assert.deepEqual(
      files.map((f) => [f.file_name, f.content_type, f.media_type]),
      [
        ['a.png', 'image/png', 'image'],
        ['manual.pdf', 'application/pdf', 'pdf'],
        ['shoe.glb', 'model/gltf-binary', '3D'],
        ['clip.mp4', 'video/mp4', 'video'],
        // the name says JPEG, the bytes say PNG: the bytes decide, and it is the same object
        ['looks-like.jpg', 'image/png', 'image'],
      ],
    );
    assert.equal(files[4].url, files[0].url);
    const video = await t.request({
      method: 'GET',
      url: pathOf(String(files[3].url)),
      headers: { range: 'bytes=0-1023' },
      token: null,
    });
    assert.equal(video.statusCode, 206);
    assert.equal(video.headers['content-type'], 'video/mp4');
    assert.equal(video.rawPayload.length, 1024);
  });

  it('refuses bytes that are no accepted type whatever the name says, empty files and a 10 MB + 1 byte image', async () => {
    const t = ctx();
    const html = await upload(t, [
      { filename: 'photo.jpg', data: Buffer.from('<html><script>alert(1)</script></html>') },
    ]);
    assert.equal(html.statusCode, 400);
    assert.match(html.json().detail, /unsupported_type/);
    assert.match(html.json().detail, /photo\.jpg/);
    const empty = await upload(t, [{ filename: 'empty.jpg', data: Buffer.alloc(0) }]);
    assert.equal(empty.statusCode, 400);
    assert.match(empty.json().detail, /empty_file/);
    const big = Buffer.concat([red, Buffer.alloc(10 * 1024 * 1024 + 1 - red.length)]);
    const tooBig = await upload(t, [{ filename: 'big.jpg', data: big }]);
    assert.equal(tooBig.statusCode, 413);
    assert.equal(tooBig.json().status.code, -1);
    assert.match(tooBig.json().status.message, /at most 10 MB/);
    const exactly = Buffer.concat([red, Buffer.alloc(10 * 1024 * 1024 - red.length)]);
    const atLimit = await upload(t, [{ filename: 'limit.jpg', data: exactly }]);
    assert.equal(atLimit.statusCode, 200, 'exactly 10 MB is accepted');
    // One bad file among good ones fails alone.
    const mixed = await upload(t, [
      { filename: 'ok.jpg', data: red },
      { filename: 'empty.jpg', data: Buffer.alloc(0) },
    ]);
    assert.equal(mixed.statusCode, 200);
    assert.deepEqual(
      mixed.json().data.error_info.map((e: { index: number; reason: string }) => [e.index, e.reason]),
      [[1, 'empty_file']],
    );
    const none = await t.request({
      method: 'POST',
      url: `/v1/media?store_uuid=${t.store.store_uuid}`,
      payload: { file: 'x' },
    });
    assert.equal(none.statusCode, 400);
  });

  it('never turns a file name into a path: ../ is dropped, NUL refused', async () => {
    const t = ctx();
    const dataDir = t.container.config.dataDir;
    const traversal = await upload(t, [{ filename: '../../escape.jpg', data: red }]);
    assert.equal(traversal.statusCode, 200, traversal.body);
    assert.equal(traversal.json().data.files[0].file_name, 'escape.jpg');
    assert.equal(fs.existsSync(path.join(dataDir, '..', 'escape.jpg')), false);
    assert.equal(fs.existsSync(path.resolve(dataDir, '../../escape.jpg')), false);
    const nul = await upload(t, [{ filename: 'a\u0000.jpg', data: red }]);
    assert.equal(nul.statusCode, 400);
    assert.match(nul.json().detail, /invalid_file_name/);
    // Serving too: a NUL in a query value is a documented 422 (the fuzz bench found it undocumented).
    const query = await t.request({ method: 'GET', url: '/media/abc?x=a%00b', token: null });
    assert.equal(query.statusCode, 422, query.body);
    assert.match(query.json().detail, /NUL/);
  });

  it('stores the same bytes once: one object, one URL', async () => {
    const t = ctx();
    const blue = await drawShape('square', '#1030d0');
    const first = (await upload(t, [{ filename: 'one.jpg', data: blue }])).json().data.files[0];
    const second = (await upload(t, [{ filename: 'two.jpg', data: blue }])).json().data.files[0];
    assert.equal(second.url, first.url);
    assert.equal(second.created, false);
    const objects = fs
      .readdirSync(path.join(t.container.config.dataDir, 'media'), { recursive: true })
      .map(String)
      .filter((name) => name.endsWith(`${first.sha256}.jpg`));
    assert.equal(objects.length, 1);
    assert.equal(
      fs.readdirSync(path.join(t.container.config.dataDir, 'media-tmp')).length,
      0,
      'no temporary file left',
    );
  });

  it("answers an upload to another workspace's store like an unknown store", async () => {
    const t = ctx();
    const other = await t.container.stores.createStore({
      workspaceName: `other-${randomBytes(3).toString('hex')}`,
      name: 'Other',
      channels: [],
      countries: [],
    });
    const res = await upload(t, [{ filename: 'x.jpg', data: red }], other.store_uuid);
    assert.equal(res.statusCode, 404);
    const unknown = await upload(t, [{ filename: 'x.jpg', data: red }], '00000000-0000-0000-0000-000000000000');
    assert.equal(unknown.statusCode, 404);
    assert.equal(res.body.replace(/"request_id":"[^"]+"/, ''), unknown.body.replace(/"request_id":"[^"]+"/, ''));
  });

  it('indexes uploaded photos for search by photo without a network fetch (private fetching off)', async () => {
    const t = ctx();
    assert.equal(t.container.config.allowPrivateFetch, false);
    const green = await drawShape('stripes', '#10a030');
    const urls = (
      await upload(t, [
        { filename: 'g.jpg', data: green },
        { filename: 'r.jpg', data: red },
      ])
    )
      .json()
      .data.files.map((f: { url: string }) => f.url);
    const put = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [
        {
          product_code: 'M-GREEN',
          'Product Name': 'Green top',
          Category: 'Tops',
          'Selling Price': '10',
          'Image URL 1': urls[0],
        },
        {
          product_code: 'M-RED',
          'Product Name': 'Red top',
          Category: 'Tops',
          'Selling Price': '10',
          'Image URL 1': 'https://example.invalid/x.jpg',
        },
      ],
    });
    assert.equal(put.json().data.inserted, 2);
    const link = await t.request({
      method: 'POST',
      url: `/v1/assets?store_uuid=${t.store.store_uuid}`,
      payload: [{ parent_code: 'M-RED', channel: 'web', asset_type: 'image', assets: { 'Image URL 1': urls[1] } }],
    });
    assert.equal(link.json().data.created, 1, link.body);
    await t.container.imageCatalog.catchUp(t.store.store_uuid);
    await t.container.imageWorker.drain();
    const status = await t.container.visual.status(t.store.store_uuid, 10);
    const failures = status.failures.map((f: { url: string }) => f.url);
    assert.ok(!failures.includes(urls[0]) && !failures.includes(urls[1]), JSON.stringify(status.failures));
    const { payload, headers } = multipart([{ name: 'image', filename: 'q.jpg', data: red }]);
    const found = await t.request({
      method: 'POST',
      url: `/v1/visual-search?store_uuid=${t.store.store_uuid}&limit=2`,
      payload,
      headers,
    });
    assert.equal(found.statusCode, 200, found.body);
    assert.equal(found.json().data[0].product_code, 'M-RED');
    assert.equal(found.json().data[0].image_url, urls[1]);
  });
});
