import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { buildTestApp, describeEachDialect } from '../helpers/test-app.js';

describeEachDialect('operations: /metrics and /readyz', (ctx) => {
  it('reports ready with every configured backing service checked', async () => {
    const { request } = ctx();
    const res = await request({ method: 'GET', url: '/readyz', token: null });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'ok');
    assert.equal(res.json().database, 'ok');
    assert.deepEqual(res.json().checks, { database: 'ok' });
  });

  it('says how long the server took on every answer (Server-Timing), errors included', async () => {
    const { request, store } = ctx();
    for (const [url, status] of [
      [`/v1/products/failures?store_uuid=${store.store_uuid}`, 200],
      ['/v1/products/failures?store_uuid=not-a-store', 404],
      ['/readyz', 200],
    ] as const) {
      const res = await request({ method: 'GET', url, token: url === '/readyz' ? null : undefined });
      assert.equal(res.statusCode, status, url);
      const timing = /^app;dur=(\d+\.\d{2})$/.exec(String(res.headers['server-timing']));
      assert.ok(timing, `${url}: ${String(res.headers['server-timing'])}`);
      assert.ok(Number(timing[1]) >= 0 && Number(timing[1]) < 5_000);
    }
  });

  it('exposes Prometheus metrics: requests by route and status, latency, queues, follower lag, event loop', async () => {
    const { request, store } = ctx();
    await request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      payload: [{ product_code: 'M1', 'Product Name': 'Shirt', 'Image URL 1': 'http://127.0.0.1:9/m1.jpg' }],
    });
    await request({ method: 'GET', url: `/v1/stores?store_uuid=${store.store_uuid}` });
    await request({ method: 'GET', url: `/v1/stores?store_uuid=nope` });
    // The same asset page twice, the store unchanged between: one read, then one hit.
    for (let i = 0; i < 2; i++)
      assert.equal(
        (await request({ method: 'GET', url: `/v1/assets?store_uuid=${store.store_uuid}` })).statusCode,
        200,
      );
    const res = await request({ method: 'GET', url: '/metrics', token: null });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.body;
    assert.match(text, /vitrine_http_requests_total\{method="GET",route="\/v1\/stores",status="200"\} 1/);
    assert.match(text, /vitrine_http_requests_total\{method="GET",route="\/v1\/stores",status="404"\} 1/);
    assert.match(text, /vitrine_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/v1\/stores"/);
    assert.match(text, /# TYPE vitrine_image_queue gauge/);
    assert.match(text, /vitrine_import_jobs/);
    assert.match(text, /vitrine_change_log_lag/);
    assert.match(text, /vitrine_index_pending\{index="search"\} \d+/);
    assert.match(text, /vitrine_index_stores_behind\{index="photos"\} \d+/);
    assert.match(text, /vitrine_nodejs_eventloop_lag_seconds \d/);
    assert.match(text, /vitrine_listing_cache_lookups\{result="hit"\} 1\n/);
    assert.match(text, /vitrine_listing_cache_lookups\{result="miss"\} 1\n/);
    assert.match(text, /vitrine_listing_cache_bytes [1-9]\d*\n/);
    assert.match(text, /vitrine_index_memory_bytes\{index="listing pages",measure="bytes"\} [1-9]\d*\n/);
    assert.match(text, /vitrine_index_memory_bytes\{index="products.cards",measure="budget"\} [1-9]\d*\n/);
    assert.doesNotMatch(text, new RegExp(store.store_uuid), 'no tenant data');
  });
});

describe('readiness with Redis unreachable', () => {
  it('answers 200 "degraded" naming Redis within the check timeout (rate limits fail open)', async () => {
    // A port nobody listens on: reserve one, then close it.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const t = await buildTestApp('sqlite', { redisUrl: `redis://127.0.0.1:${port}` });
    try {
      const started = Date.now();
      const res = await t.request({ method: 'GET', url: '/readyz', token: null });
      assert.ok(Date.now() - started < 3_000, 'answered within the 2 s check timeout');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.status, 'degraded');
      assert.equal(body.database, 'ok');
      assert.equal(body.redis, 'unreachable');
      assert.match(body.checks.redis, /^unreachable/);
    } finally {
      await t.close();
    }
  });
});
