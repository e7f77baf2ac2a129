import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { it } from 'node:test';
import { describeEachDialect } from '../helpers/test-app.js';

describeEachDialect('HTTP caching and compression', (ctx) => {
  const products = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      product_code: `P${String(i).padStart(3, '0')}`,
      'Product Name': `Cotton shirt number ${i}`,
      Category: 'Shirts',
      'Selling Price': '20',
      'Image URL 1': `https://img.example/p${i}.jpg`,
    }));

  it('tags GET answers with a weak ETag over the data, and answers a matching If-None-Match with 304', async () => {
    const { request, store } = ctx();
    const url = `/v1/stores?store_uuid=${store.store_uuid}`;
    const first = await request({ method: 'GET', url });
    const second = await request({ method: 'GET', url });
    const etag = String(first.headers.etag);
    assert.match(etag, /^W\/"[A-Za-z0-9_-]{27}"$/);
    assert.equal(second.headers.etag, etag, 'the request id differs, the tag does not');
    assert.equal(first.headers['cache-control'], 'private, no-cache');

    for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
      const cached = await request({ method: 'GET', url, headers: { 'if-none-match': ifNoneMatch } });
      assert.equal(cached.statusCode, 304, ifNoneMatch);
      assert.equal(cached.body, '');
      assert.equal(cached.headers.etag, etag);
      assert.ok(cached.headers['x-request-id']);
    }
    for (const garbage of ['garbage', '""', 'W/', '"\u00ff\u00fe"', ','.repeat(100)]) {
      const fresh = await request({ method: 'GET', url, headers: { 'if-none-match': garbage } });
      assert.equal(fresh.statusCode, 200, garbage);
      assert.equal(fresh.json().data.store_name, 'Test Store');
    }

    await request({ method: 'POST', url: `/v1/assets?store_uuid=${store.store_uuid}`, payload: [] });
    const write = await request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      payload: products(60),
    });
    assert.equal(write.headers['cache-control'], 'no-store');
    assert.equal(write.headers.etag, undefined);
    const links = await request({
      method: 'POST',
      url: `/v1/assets?store_uuid=${store.store_uuid}&channel=web`,
      payload: [{ parent_code: 'P001', assets: { 'Image URL 1': 'https://img.example/web1.jpg' } }],
    });
    assert.equal(links.statusCode, 200, links.body);
    const changed = await request({ method: 'GET', url, headers: { 'if-none-match': etag } });
    assert.equal(changed.statusCode, 200, 'channels changed: the old tag no longer matches');
    assert.notEqual(changed.headers.etag, etag);
  });

  it('compresses answers over 1 KB with br, gzip or deflate, and nothing for unknown codings', async () => {
    const { request, store } = ctx();
    const url = `/v1/products?store_uuid=${store.store_uuid}&limit=60`;
    const plain = await request({ method: 'GET', url });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.rawPayload.length > 1024);
    const decoders: Record<string, (buffer: Buffer) => Buffer> = {
      br: zlib.brotliDecompressSync,
      gzip: zlib.gunzipSync,
      deflate: zlib.inflateSync,
    };
    for (const [coding, decode] of Object.entries(decoders)) {
      const res = await request({ method: 'GET', url, headers: { 'accept-encoding': coding } });
      assert.equal(res.headers['content-encoding'], coding);
      assert.match(String(res.headers.vary), /accept-encoding/i);
      assert.ok(res.rawPayload.length < plain.rawPayload.length / 3, `${coding}: ${res.rawPayload.length}`);
      assert.deepEqual(JSON.parse(decode(res.rawPayload).toString()).data, plain.json().data);
    }
    for (const unknown of ['compress', 'x-unknown, foo;q=1', 'identity', 'br;q=0, gzip;q=0']) {
      const res = await request({ method: 'GET', url, headers: { 'accept-encoding': unknown } });
      assert.equal(res.statusCode, 200, unknown);
      assert.equal(res.headers['content-encoding'], undefined, unknown);
      assert.equal(res.json().data.total, 60);
    }
    const small = await request({
      method: 'GET',
      url: `/v1/stores?store_uuid=${store.store_uuid}`,
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(small.headers['content-encoding'], undefined, 'under 1 KB: sent as is');
  });

  it('ignores unknown query parameters, as documented', async () => {
    const { request, store } = ctx();
    const res = await request({
      method: 'GET',
      url: `/v1/search?store_uuid=${store.store_uuid}&query=shirt&utm_source=newsletter&_=1700000000`,
    });
    assert.equal(res.statusCode, 200);
  });
});
