import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { REDIS_SKIP, REDIS_URL } from '../helpers/backends.js';
import { buildTestApp, json } from '../helpers/test-app.js';

describe('rate limiting in Redis', { skip: REDIS_SKIP }, () => {
  it('shares one budget between two API processes', async () => {
    const first = await buildTestApp('sqlite', { rateLimitPerMinute: 4, redisUrl: REDIS_URL });
    // A second "process": its own app and container over the same database and Redis.
    const secondContainer = createContainer(first.container.config, { storage: first.container.storage });
    const second = await buildApp(secondContainer, { logger: false });
    try {
      // As `vitrine serve` does before listening: both are connected, so they share one count.
      assert.ok(await first.container.redisHealth!.ready());
      assert.ok(await secondContainer.redisHealth!.ready());
      const url = `/v1/stores?store_uuid=${first.store.store_uuid}`;
      const headers = { authorization: `Bearer ${first.store.api_token}` };
      const codes = [];
      for (let i = 0; i < 3; i++) {
        codes.push((await first.app.inject({ method: 'GET', url, headers })).statusCode);
        codes.push((await second.inject({ method: 'GET', url, headers })).statusCode);
      }
      assert.deepEqual(codes, [200, 200, 200, 200, 429, 429]);
    } finally {
      await second.close();
      secondContainer.redis?.disconnect();
      await first.close();
    }
  });

  it('keeps answering (fail open, per-process limits) when Redis was never reachable', async () => {
    const config = loadConfig(
      {},
      { logLevel: 'silent', databaseUrl: 'sqlite::memory:', redisUrl: 'redis://127.0.0.1:1' },
    );
    const t = await buildTestApp('sqlite');
    const container = createContainer(config, { storage: t.container.storage });
    const app = await buildApp(container, { logger: false });
    try {
      const res = await app.inject({
        method: 'GET',
        url: `/v1/stores?store_uuid=${t.store.store_uuid}`,
        headers: { authorization: `Bearer ${t.store.api_token}` },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(json(res).status.code, 0);
    } finally {
      await app.close();
      container.redis?.disconnect();
      await t.close();
    }
  });
});
