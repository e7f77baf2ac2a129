import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { CreatedStore } from '../../src/modules/stores/stores.service.js';
import { POSTGRES_SKIP, POSTGRES_URL, REDIS_SKIP, REDIS_URL } from '../helpers/backends.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/receiver.js';

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

describe('PostgreSQL goes away and comes back', { skip: POSTGRES_SKIP }, () => {
  let proxy: TcpProxy;
  let container: Container;
  let app: FastifyInstance;
  let store: CreatedStore;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(statement);
    await client.end();
  };

  before(async () => {
    await admin(`CREATE SCHEMA ${schema}`);
    const target = new URL(POSTGRES_URL);
    proxy = await startTcpProxy(Number(target.port || 5432), target.hostname);
    target.port = String(proxy.port);
    const storage = openDatabase(target.toString(), { schema, poolSize: 4 });
    await migrateToLatest(storage);
    container = createContainer(loadConfig({}, { logLevel: 'silent', databaseUrl: target.toString() }), { storage });
    app = await buildApp(container, { logger: false });
    store = await container.stores.createStore({ workspaceName: 'Lost db', name: 'Shop' });
  });
  after(async () => {
    await app.close();
    await container.close();
    await proxy.close();
    await admin(`DROP SCHEMA ${schema} CASCADE`);
  });

  const get = () =>
    app.inject({
      method: 'GET',
      url: `/v1/stores?store_uuid=${store.store_uuid}`,
      headers: { authorization: `Bearer ${store.api_token}` },
    });

  it('answers 502 in the envelope within 2 s while it is down, never 500, and recovers without a restart', async (t) => {
    assert.equal((await get()).statusCode, 200);
    await proxy.down(); // every open connection cut, new ones refused
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [res, ms] = await timed(get);
      times.push(Math.round(ms));
      assert.equal(res.statusCode, 502, res.body);
      assert.equal(res.json().status.code, -1);
      assert.ok(res.headers['x-request-id']);
      assert.ok(ms < 2000, `answered in ${Math.round(ms)} ms`);
    }
    const write = await app.inject({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      headers: { authorization: `Bearer ${store.api_token}` },
      payload: [{ product_code: 'x1', 'Product Name': 'Shirt' }],
    });
    assert.equal(write.statusCode, 502);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().database, 'unreachable');

    const down = Date.now();
    await proxy.up();
    await until(async () => (await get()).statusCode === 200, 'the API serving again', 10_000);
    t.diagnostic(
      `PostgreSQL down: GET /v1/stores answered 502 in ${times.join(', ')} ms; serving again ${Date.now() - down} ms after it came back`,
    );
    assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).json().database, 'ok');
  });
});

describe('Redis goes away and comes back', { skip: REDIS_SKIP }, () => {
  let proxy: TcpProxy;
  let t: TestApp;
  before(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy(Number(target.port || 6379), target.hostname);
    t = await buildTestApp('sqlite', { redisUrl: `redis://127.0.0.1:${proxy.port}`, rateLimitPerMinute: 5 });
    await until(() => t.container.redisHealth!.up, 'Redis connected');
  });
  after(async () => {
    await t.close();
    await proxy.close();
  });

  const get = () => t.request({ method: 'GET', url: `/v1/stores?store_uuid=${t.store.store_uuid}` });

  it('keeps serving with per-process limits, never waiting on Redis, and says so in /readyz and /metrics', async (t0) => {
    assert.equal((await get()).statusCode, 200);
    await proxy.down();
    await until(() => !t.container.redisHealth!.up, 'the connection loss noticed', 5_000);
    const statuses: number[] = [];
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [res, ms] = await timed(get);
      statuses.push(res.statusCode);
      times.push(Math.round(ms));
      assert.ok(ms < 150, `answered in ${Math.round(ms)} ms`);
    }
    // The budget of 5 a minute still holds, counted in this process.
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    t0.diagnostic(`Redis down: GET /v1/stores answered ${statuses.join(', ')} in ${times.join(', ')} ms`);
    const ready = await t.request({ method: 'GET', url: '/readyz', token: null });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().status, 'degraded');
    assert.equal(ready.json().database, 'ok');
    assert.equal(ready.json().redis, 'unreachable');
    assert.match((await t.request({ method: 'GET', url: '/metrics', token: null })).body, /vitrine_redis_up 0/);

    await proxy.up();
    await until(() => t.container.redisHealth!.up, 'Redis back', 10_000);
    const back = await t.request({ method: 'GET', url: '/readyz', token: null });
    assert.equal(back.json().status, 'ok');
    assert.equal(back.json().redis, 'ok');
  });
});
