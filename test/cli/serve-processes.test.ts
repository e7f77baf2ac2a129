import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { DIALECTS, POSTGRES_SKIP } from '../helpers/backends.js';
import { listeningPids, startServe, type ServedVitrine } from '../helpers/serve.js';
import { ADMIN_TOKEN } from '../factories/admin.js';

const RATE_LIMIT = 8;
const ADMIN = ADMIN_TOKEN;

/** One request on a connection of its own, so that successive requests reach different processes. */
function get(
  url: string,
  token?: string,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      })
      .on('error', reject);
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

for (const dialect of DIALECTS) {
  describe(`vitrine serve --processes 2 [${dialect}]`, { skip: dialect === 'postgres' && POSTGRES_SKIP }, () => {
    let served: ServedVitrine;
    // Registered first so it runs first: the server goes before its database is dropped.
    after(() => served?.stop());
    const database = cliDatabase(dialect);
    let store: { store_uuid: string; api_token: string; workspace_id: string };
    /** A second token of the workspace: its own rate-limit budget for the write test. */
    let writer = '';

    before(async () => {
      assert.equal(runCli(database(), ['migrate']).status, 0);
      store = jsonOf(runCli(database(), ['store', 'create', '--workspace-name', 'Cl', '--name', 'Shop', '--json']));
      writer = jsonOf(runCli(database(), ['token', 'create', '--workspace', store.workspace_id, '--json'])).api_token;
      served = await startServe(
        database(),
        { VITRINE_RATE_LIMIT: String(RATE_LIMIT), LOG_LEVEL: 'info', VITRINE_ADMIN_TOKEN: ADMIN },
        ['--processes', '2'],
      );
      for (let i = 0; i < 50 && listeningPids(served.output()).length < 2; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
    });

    it('serves from two processes on one port, and says so once', () => {
      assert.equal(listeningPids(served.output()).length, 2);
      assert.equal(served.output().match(/Vitrine serving the catalog API/g)?.length, 1);
      assert.match(served.output(), /2 API processes/);
    });

    it('counts a token against one budget across the processes', async () => {
      const url = `${served.url}/v1/stores?store_uuid=${store.store_uuid}`;
      const statuses: number[] = [];
      for (let i = 0; i < RATE_LIMIT + 2; i++) statuses.push((await get(url, store.api_token)).status);
      assert.deepEqual(statuses, [...Array(RATE_LIMIT).fill(200), 429, 429]);
    });

    it('takes concurrent writes from both processes without a failure (one writer at a time)', async () => {
      const post = (body: string) =>
        new Promise<number>((resolve, reject) => {
          const request = http.request(
            `${served.url}/v1/products?store_uuid=${store.store_uuid}`,
            {
              method: 'POST',
              agent: false,
              headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          request.on('error', reject);
          request.end(body);
        });
      const batches = Array.from({ length: 6 }, (_, b) =>
        JSON.stringify(
          Array.from({ length: 100 }, (_, i) => ({
            product_code: `W${b}-${i}`,
            'Product Name': `Shirt ${b} ${i}`,
            Category: 'Shirts',
            'Selling Price': '20',
            'Image URL 1': 'https://img.example/w.jpg',
          })),
        ),
      );
      const statuses = await Promise.all(batches.map(post));
      assert.deepEqual(new Set(statuses), new Set([200]));
      const listed = JSON.parse(
        (await get(`${served.url}/v1/products?store_uuid=${store.store_uuid}&limit=1`, writer)).body,
      );
      assert.equal(listed.data.total, 600);
    });

    it('applies a CORS change made through one process in every process at once', async () => {
      const origin = 'https://shop.example';
      const preflight = () =>
        new Promise<number>((resolve, reject) => {
          http
            .request(
              `${served.url}/v1/search?store_uuid=${store.store_uuid}&query=x`,
              {
                method: 'OPTIONS',
                agent: false,
                headers: { origin, 'access-control-request-method': 'GET' },
              },
              (res) => {
                res.resume();
                res.on('end', () => resolve(res.statusCode ?? 0));
              },
            )
            .on('error', reject)
            .end();
        });
      // Every process has looked at the store's (empty) origins, and cached that.
      for (let i = 0; i < 4; i++) assert.equal(await preflight(), 403);
      const set = await new Promise<number>((resolve, reject) => {
        const request = http.request(
          `${served.url}/admin/v1/stores/${store.store_uuid}/cors`,
          {
            method: 'PUT',
            agent: false,
            headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ allowed_origins: [origin] }));
      });
      assert.equal(set, 200);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the word travels through the primary
      for (let i = 0; i < 4; i++) assert.equal(await preflight(), 204);
    });

    it('aggregates /metrics over the processes', async () => {
      const metrics = await get(`${served.url}/metrics`);
      assert.equal(metrics.status, 200);
      const answered = /vitrine_http_requests_total\{method="GET",route="\/v1\/stores",status="200"\} (\d+)/.exec(
        metrics.body,
      );
      assert.equal(Number(answered?.[1]), RATE_LIMIT, 'every process counted, summed once');
    });

    it('keeps one budget when a burst of requests arrives at once (counts asked for in batches)', async () => {
      const burst = jsonOf(runCli(database(), ['token', 'create', '--workspace', store.workspace_id, '--json']));
      const url = `${served.url}/v1/stores?store_uuid=${store.store_uuid}`;
      const statuses = await Promise.all(Array.from({ length: RATE_LIMIT + 6 }, () => get(url, burst.api_token)));
      const counted = statuses.map((answer) => answer.status);
      assert.equal(counted.filter((status) => status === 200).length, RATE_LIMIT);
      assert.equal(counted.filter((status) => status === 429).length, 6);
    });

    it('refuses a token in every process as soon as the CLI revokes it (no stale token lookup)', async () => {
      const token = jsonOf(runCli(database(), ['token', 'create', '--workspace', store.workspace_id, '--json']));
      const url = `${served.url}/v1/stores?store_uuid=${store.store_uuid}`;
      // Both processes have looked the token up (and may keep the answer while nothing changes).
      for (let i = 0; i < 3; i++) assert.equal((await get(url, token.api_token)).status, 200);
      assert.equal(runCli(database(), ['token', 'revoke', token.token_id]).status, 0);
      for (let i = 0; i < 4; i++) assert.equal((await get(url, token.api_token)).status, 401);
    });

    it('starts a process that dies again, and stops every process on SIGTERM', async () => {
      const [first, second] = listeningPids(served.output());
      process.kill(second, 'SIGKILL');
      // A replacement starts a second after the death; under a loaded machine its start can take several more.
      for (let i = 0; i < 300 && listeningPids(served.output()).length < 3; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const pids = listeningPids(served.output());
      assert.equal(pids.length, 3, 'a replacement process started');
      assert.equal((await get(`${served.url}/healthz`)).status, 200);
      await served.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const pid of [first, pids[2]]) assert.equal(alive(pid), false, `process ${pid} still running`);
    });
  });
}
