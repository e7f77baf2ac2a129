import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { DIALECTS, POSTGRES_SKIP } from '../helpers/backends.js';
import { listeningPids, startServe, type ServedVitrine } from '../helpers/serve.js';

// VITRINE_LARGE_STORE_PRODUCTS: a store at or over it is served by one API process (its indexes held
// once); the others forward its calls there. Here 20 products make a store large.
const LARGE_FROM = 20;

interface Answer {
  status: number;
  body: string;
  encoding: string | undefined;
  timing: string;
}

/** One request on a connection of its own (node:cluster hands each connection to the next process). */
function call(
  url: string,
  options: { token?: string; method?: string; body?: string; chunked?: boolean; gzip?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
    if (options.gzip) headers['accept-encoding'] = 'gzip';
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.body !== undefined && !options.chunked)
      headers['content-length'] = String(Buffer.byteLength(options.body));
    const request = http.request(url, { method: options.method ?? 'GET', agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          encoding: res.headers['content-encoding'],
          timing: String(res.headers['server-timing'] ?? ''),
        }),
      );
    });
    request.on('error', reject);
    if (options.body !== undefined && options.chunked) {
      // Written in two pieces without a length: sent as chunks.
      const half = Math.floor(options.body.length / 2);
      request.write(options.body.slice(0, half));
      setTimeout(() => request.end(options.body!.slice(half)), 20);
    } else request.end(options.body);
  });
}

const catalog = (count: number, prefix: string) =>
  ['product_code,Product Name,Category,Colour,Selling Price']
    .concat(Array.from({ length: count }, (_, i) => `${prefix}${i},Blue Linen Shirt ${i},Shirts,Blue,${20 + i}`))
    .join('\n');

const metric = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
const storesHolding = (text: string, index: string) =>
  metric(text, new RegExp(`vitrine_index_memory_bytes\\{index="${index}",measure="stores"\\} (\\d+)`));

for (const dialect of DIALECTS) {
  describe(
    `vitrine serve --processes 2: a large store served by one process [${dialect}]`,
    { skip: dialect === 'postgres' && POSTGRES_SKIP },
    () => {
      let served: ServedVitrine;
      after(() => served?.stop());
      const database = cliDatabase(dialect);
      let large: { store_uuid: string; api_token: string };
      let small: { store_uuid: string; api_token: string };
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-owner-'));
      after(() => fs.rmSync(folder, { recursive: true, force: true }));

      before(async () => {
        assert.equal(runCli(database(), ['migrate']).status, 0);
        const create = (name: string) =>
          jsonOf(runCli(database(), ['store', 'create', '--workspace-name', name, '--name', name, '--json']));
        large = create('Large');
        small = create('Small');
        for (const [store, count] of [
          [large, LARGE_FROM + 10],
          [small, 5],
        ] as const) {
          const file = path.join(folder, `${store.store_uuid}.csv`);
          fs.writeFileSync(file, catalog(count, store === large ? 'L' : 'S'));
          assert.equal(runCli(database(), ['import', '--store', store.store_uuid, file, '--json']).status, 0);
        }
        served = await startServe(database(), { VITRINE_LARGE_STORE_PRODUCTS: String(LARGE_FROM), LOG_LEVEL: 'info' }, [
          '--processes',
          '2',
        ]);
        for (let i = 0; i < 50 && listeningPids(served.output()).length < 2; i++)
          await new Promise((resolve) => setTimeout(resolve, 100));
      });

      const search = (store: { store_uuid: string; api_token: string }, gzip = false) =>
        call(`${served.url}/v1/search?store_uuid=${store.store_uuid}&q=linen+shirt`, { token: store.api_token, gzip });
      const withoutIds = (body: string) => body.replace(/"request_id":"[^"]+"/g, '');

      it('holds a large store in one process and a small store in both, with the same answers', async () => {
        const answers = await Promise.all(Array.from({ length: 8 }, () => search(large)));
        assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]));
        assert.equal(new Set(answers.map((answer) => withoutIds(answer.body))).size, 1);
        const smallAnswers = await Promise.all(Array.from({ length: 8 }, () => search(small)));
        assert.deepEqual(new Set(smallAnswers.map((answer) => answer.status)), new Set([200]));
        const metrics = (await call(`${served.url}/metrics`)).body;
        assert.ok(metric(metrics, /^vitrine_forwarded_calls (\d+)/m) >= 1, 'some calls were forwarded');
        // The large store's search vocabulary in one process, the small store's in each of the two.
        assert.equal(storesHolding(metrics, 'search.vocabulary'), 3);
        // A forwarded answer goes out as the serving process encoded it (a small one: not compressed).
        const encoded = await Promise.all(Array.from({ length: 4 }, () => search(large, true)));
        assert.deepEqual(new Set(encoded.map((answer) => answer.encoding)), new Set([undefined]));
        // Server-Timing: this process's figure (the hop in it), and a forwarded call's serving process's own.
        const timings = answers.map((answer) => answer.timing);
        assert.ok(
          timings.every((timing) => /^app;dur=[\d.]+/.test(timing)),
          timings.join(' | '),
        );
        assert.ok(
          timings.some((timing) => /^app;dur=[\d.]+, serving;dur=[\d.]+$/.test(timing)),
          timings.join(' | '),
        );
        assert.ok(
          smallAnswers.every((answer) => !answer.timing.includes('serving')),
          'a small store is served where the call arrives',
        );
      });

      it('forwards writes with their bodies, with and without a length, and their errors', async () => {
        const url = `${served.url}/v1/products?store_uuid=${large.store_uuid}`;
        const bodies = Array.from({ length: 6 }, (_, i) =>
          JSON.stringify([{ product_code: `W${i}`, 'Product Name': `Red Dress ${i}`, Category: 'Dresses' }]),
        );
        const written = await Promise.all(
          bodies.map((body, i) => call(url, { token: large.api_token, method: 'POST', body, chunked: i % 2 === 1 })),
        );
        for (const answer of written) {
          assert.equal(answer.status, 200, answer.body);
          assert.equal(JSON.parse(answer.body).data.inserted, 1);
        }
        const listed = JSON.parse((await call(`${url}&limit=1`, { token: large.api_token })).body);
        assert.equal(listed.data.total, LARGE_FROM + 10 + 6);
        const broken = await Promise.all(
          Array.from({ length: 4 }, () => call(url, { token: large.api_token, method: 'POST', body: '[{"product' })),
        );
        for (const answer of broken) {
          assert.equal(answer.status, 400);
          assert.match(answer.body, /not valid JSON/);
        }
      });

      it('serves the large store from the other process while its own restarts', async () => {
        const [first] = listeningPids(served.output());
        process.kill(first, 'SIGKILL');
        // The primary tells the other process at once; calls are then served there (the replacement
        // is forked a second after the death, and takes a second or more to listen).
        await new Promise((resolve) => setTimeout(resolve, 600));
        const answers = await Promise.all(Array.from({ length: 6 }, () => search(large)));
        assert.deepEqual(
          answers.map((answer) => answer.status),
          Array(6).fill(200),
        );
      });
    },
  );
}
