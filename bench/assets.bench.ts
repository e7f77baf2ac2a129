import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import {
  vacuumAnalyzeIfPostgres,
  bareRouteWith,
  fmt,
  load,
  machineLine,
  postgresAvailable,
  readStyles,
  recordSection,
  skipWithoutShared,
  startServerProcess,
  storeWithProducts,
  toProduct,
  waitForBackground,
} from './lib/harness.js';

// Assets: link 6 images to each catalog product through POST /v1/assets, then GET /v1/assets?limit=50.
if (skipWithoutShared('assets.bench')) process.exit(0);

const products = readStyles().map(toProduct);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const ITEMS_PER_REQUEST = 100;

async function runEngine(engine: 'sqlite' | 'postgres') {
  const { db, container: setup, created } = await storeWithProducts(engine, products, { channels: ['web', 'app'] });
  await setup.close();

  const serverEnv = { DATABASE_URL: db.url, VITRINE_RATE_LIMIT: '100000000' };
  let server = await startServerProcess('vitrine', serverEnv);
  const base = `http://127.0.0.1:${server.port}`;
  const headers = { authorization: `Bearer ${created.api_token}`, 'content-type': 'application/json' };
  try {
    const bodies: string[] = [];
    for (let i = 0; i < products.length; i += ITEMS_PER_REQUEST) {
      bodies.push(
        JSON.stringify(
          products.slice(i, i + ITEMS_PER_REQUEST).map((p) => ({
            parent_code: p.product_code,
            assets: Object.fromEntries(
              Array.from({ length: 6 }, (_, k) => [
                `Image URL ${k + 1}`,
                `https://images.example/${p.product_code}/${k + 1}.jpg`,
              ]),
            ),
          })),
        ),
      );
    }
    let next = 0;
    let links = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < bodies.length) {
          const res = await fetch(`${base}/v1/assets?store_uuid=${created.store_uuid}`, {
            method: 'POST',
            headers,
            body: bodies[next++],
          });
          const body = (await res.json()) as { data: { created: number; failed: number } };
          if (res.status !== 200 || body.data.failed > 0)
            throw new Error(`linking failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
          links += body.data.created;
        }
      }),
    );
    const linkSeconds = (performance.now() - started) / 1000;
    // The followers (search by photo's image catalog, the change feed) work through the new links in
    // the background: the list is measured once they are done, not against them.
    const catchUpSeconds = await waitForBackground(base);
    // What autovacuum does after a bulk load on PostgreSQL (statistics, visibility map); SQLite: a no-op here.
    if (engine === 'postgres') {
      const analyze = createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
      await vacuumAnalyzeIfPostgres(analyze);
      await analyze.close();
    }

    const url = `${base}/v1/assets?store_uuid=${created.store_uuid}&limit=50`;
    const sample = await (await fetch(url, { headers })).text();
    // Compressed sizes as sent (Node's fetch would decode the body: read the raw bytes over http).
    const wireBytes = async (coding: string) => {
      const { request } = await import('node:http');
      return new Promise<number>((resolve, reject) => {
        request(url, { headers: { authorization: headers.authorization, 'accept-encoding': coding } }, (res) => {
          let size = 0;
          res.on('data', (chunk: Buffer) => (size += chunk.length));
          res.on('end', () => resolve(size));
        })
          .on('error', reject)
          .end();
      });
    };
    const brBytes = await wireBytes('br');
    const gzipBytes = await wireBytes('gzip');
    await load(url, { seconds: 2, headers });
    const http = await load(url, { seconds, headers });
    if (http.non2xx || http.errors)
      throw new Error(`asset list answered ${http.non2xx} non-2xx, ${http.errors} errors`);
    const compressed = await load(url, { seconds, headers: { ...headers, 'accept-encoding': 'br' } });
    await server.stop();
    // The same page with the listing cache off: what a page costs the first time after a write.
    server = await startServerProcess('vitrine', { ...serverEnv, VITRINE_LISTING_CACHE_MB: '0' });
    const uncachedUrl = `http://127.0.0.1:${server.port}/v1/assets?store_uuid=${created.store_uuid}&limit=50`;
    await load(uncachedUrl, { seconds: 2, headers });
    const uncached = await load(uncachedUrl, { seconds, headers });
    if (uncached.non2xx || uncached.errors)
      throw new Error(`uncached asset list answered ${uncached.non2xx} non-2xx, ${uncached.errors} errors`);
    await server.stop();
    const bareResult = await bareRouteWith(sample, seconds);
    return {
      engine,
      links,
      linksPerSecond: links / linkSeconds,
      linkSeconds,
      catchUpSeconds,
      http,
      bare: bareResult.rps,
      bytes: Buffer.byteLength(sample),
      brBytes,
      gzipBytes,
      compressed,
      uncached,
    };
  } finally {
    if (server.child.exitCode === null) await server.stop();
    await db.drop();
  }
}

const results = [await runEngine('sqlite')];
if (await postgresAvailable()) results.push(await runEngine('postgres'));
else console.log('assets.bench: PostgreSQL not reachable, its half SKIPPED');

const table = [
  `${fmt(products.length)} catalog products, 6 image links each (\`Image URL 1\`…\`6\`), ${ITEMS_PER_REQUEST} products (${ITEMS_PER_REQUEST * 6} links) per POST /v1/assets, 4 concurrent clients.`,
  '',
  '| engine | links/s | links | time s | background catch-up s | `GET /v1/assets?limit=50` req/s (50 conn.) | p50 ms | p99 ms | same, listing cache off: req/s, p50 / p99 ms | body bytes | bare route, same body, req/s | HTTP / bare |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.engine} | **${fmt(r.linksPerSecond)}** | ${fmt(r.links)} | ${fmt(r.linkSeconds, 1)} | ${fmt(r.catchUpSeconds, 1)} | **${fmt(r.http.rps)}** | ${r.http.p50} | ${r.http.p99} | ${fmt(r.uncached.rps)}, ${r.uncached.p50} / ${r.uncached.p99} | ${fmt(r.bytes)} | ${fmt(r.bare)} | ${fmt((r.http.rps / r.bare) * 100, 1)} % |`,
  ),
  '',
  'Compression of the same list (`Accept-Encoding`; @fastify/compress, brotli quality 4, gzip level 6):',
  '',
  '| engine | plain bytes | br bytes | br ratio | gzip bytes | gzip ratio | req/s with `br` (50 conn.) | p50 ms | p99 ms |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.engine} | ${fmt(r.bytes)} | ${fmt(r.brBytes)} | **${fmt(r.bytes / r.brBytes, 1)}×** | ${fmt(r.gzipBytes)} | ${fmt(r.bytes / r.gzipBytes, 1)}× | ${fmt(r.compressed.rps)} | ${r.compressed.p50} | ${r.compressed.p99} |`,
  ),
  '',
  `Target: ≥ 10,000 links/s on SQLite. Background catch-up: after the last link is stored, until every change-log follower (search by photo's image catalog, …) has applied it; the list is measured after it. The listing cache (\`VITRINE_LISTING_CACHE_MB\`, on by default) keeps a page while the store is unchanged: the first figure is a storefront asking for the same page again between writes, the "cache off" one what each page costs when the store has just changed. PostgreSQL: \`VACUUM (ANALYZE)\` after the bulk load, before listing (what autovacuum would do; it is off on this machine's PostgreSQL). ${seconds} s per measurement after a 2 s warm-up; LOG_LEVEL=warn; ${machineLine()}.`,
].join('\n');
console.log(table);
recordSection('Assets: linking and listing (44k catalog × 6 images)', table);
