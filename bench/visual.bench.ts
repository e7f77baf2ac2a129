import fs from 'node:fs';
import {
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
  type ServerProcess,
} from './lib/harness.js';
import { FASHION_IMAGES, multipartImage, readPhotoLabels, serveImages } from './lib/images.js';

// Search by photo at catalogue scale: the 44k products of styles.csv, each with its own image URL
// (the 3,988 real photos reused under different URLs), indexed by `vitrine serve`'s worker from a
// local HTTP server; then end-to-end visual search (upload, decode, embed, search) and /similar.
if (skipWithoutShared('visual.bench') || !fs.existsSync(FASHION_IMAGES)) process.exit(0);

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const photos = readPhotoLabels().map((p) => fs.readFileSync(p.file));
const rows = readStyles().slice(0, Number(process.env.BENCH_PRODUCTS ?? Infinity));
const ADMIN = 'bench-admin';

function rssMb(server: ServerProcess) {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function runEngine(engine: 'sqlite' | 'postgres') {
  const images = await serveImages((p) => {
    const match = /^\/p\/(\d+)\.jpg$/.exec(p);
    return match ? photos[Number(match[1]) % photos.length] : undefined;
  });
  const products = rows.map((row) => ({ ...toProduct(row), 'Image URL 1': `${images.base}/p/${row.id}.jpg` }));
  const { db, container, created } = await storeWithProducts(engine, products);
  await container.close();
  // One API process: its RSS is the serving process's (with --processes N, each holds its own index).
  const env = {
    DATABASE_URL: db.url,
    VITRINE_RATE_LIMIT: '100000000',
    VITRINE_ALLOW_PRIVATE_FETCH: 'true',
    VITRINE_ADMIN_TOKEN: ADMIN,
    VITRINE_PROCESSES: '1',
  };
  let server = await startServerProcess('vitrine', env);
  let url = `http://127.0.0.1:${server.port}`;
  try {
    const rssBefore = rssMb(server);
    const started = performance.now();
    let status: { images: number; pending: number; indexed: number; failed: number };
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      status = (
        await (
          await fetch(`${url}/admin/v1/stores/${created.store_uuid}/images?failures=0`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          })
        ).json()
      ).data;
      if (status.images > 0 && status.pending === 0) break;
    }
    const indexSeconds = (performance.now() - started) / 1000;
    const rssIndexing = rssMb(server);
    // A fresh process on the indexed catalogue, as after a deploy: its index is loaded by the first
    // query; RSS is read once the idle indexing thread has ended (60 s), then again after the load.
    await server.stop();
    const restarted = performance.now();
    server = await startServerProcess('vitrine', env);
    url = `http://127.0.0.1:${server.port}`;
    const headers = { authorization: `Bearer ${created.api_token}` };
    const uploads = await Promise.all(photos.filter((_, i) => i % 200 === 7).map((photo) => multipartImage(photo)));
    const first = await fetch(`${url}/v1/visual-search?store_uuid=${created.store_uuid}`, {
      method: 'POST',
      body: uploads[0].body,
      headers: { ...headers, 'content-type': uploads[0].contentType },
    });
    const sample = await first.text();
    if (first.status !== 200) throw new Error(`visual search answered ${first.status}: ${sample}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 65_000 - (performance.now() - restarted))));
    const rssAfter = rssMb(server);
    const requests = uploads.map((u) => ({
      method: 'POST' as const,
      path: `/v1/visual-search?store_uuid=${created.store_uuid}&limit=20`,
      headers: { ...headers, 'content-type': u.contentType },
      body: u.body,
    }));
    await load(url, { seconds: 2, connections: 1, requests });
    const serial = await load(url, { seconds, connections: 1, requests });
    const loaded = await load(url, { seconds, connections: 8, requests });
    const filtered = await load(url, {
      seconds,
      connections: 1,
      requests: requests.map((r) => ({
        ...r,
        path: `${r.path}&filters=${encodeURIComponent('{"Department":"Women"}')}`,
      })),
    });
    const similarRequests = rows
      .filter((_, i) => i % 97 === 0)
      .map((row) => ({
        method: 'GET' as const,
        path: `/v1/similar?store_uuid=${created.store_uuid}&product_code=${row.id}&limit=20`,
        headers,
      }));
    await load(url, { seconds: 2, connections: 1, requests: similarRequests });
    const similar = await load(url, { seconds, connections: 1, requests: similarRequests });
    for (const r of [serial, loaded, filtered, similar])
      if (r.non2xx || r.errors) throw new Error(`${r.non2xx} non-2xx, ${r.errors} errors`);
    const rssLoaded = rssMb(server);
    await server.stop();
    const bare = await bareRouteWith(sample, seconds);
    return {
      engine,
      status: status!,
      indexSeconds,
      rssBefore,
      rssIndexing,
      rssAfter,
      rssLoaded,
      serial,
      loaded,
      filtered,
      similar,
      bare,
    };
  } finally {
    if (server.child.exitCode === null) await server.stop();
    await images.close();
    await db.drop();
  }
}

const engines = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',');
const results = [];
if (engines.includes('sqlite')) results.push(await runEngine('sqlite'));
if (engines.includes('postgres')) {
  if (await postgresAvailable()) results.push(await runEngine('postgres'));
  else console.log('visual.bench: PostgreSQL not reachable, its half SKIPPED');
}
for (const r of results) console.log(JSON.stringify(r));

recordSection(
  'Search by photo: speed (visual.bench)',
  `
${machineLine()}. ${fmt(rows.length)} products from styles.csv, each with its own image URL (the 3,988 photos reused),
fetched from a local HTTP server and embedded by the worker of \`vitrine serve\` (one vision thread for indexing,
one for queries). Visual search = multipart upload of a real 224×224 JPEG, decode, embed, score all images, rank;
autocannon in another process, ${seconds} s per row. Bare route = a bare Fastify route answering the same body.

| engine | images indexed | indexing (images/s) | RSS (MB): started / end of indexing / fresh process, index loaded / after the load | visual search p50 / p99 (1 conn) | req/s (1 / 8 conn) | with filter p50 / p99 | /similar p50 / p99 | bare route req/s | ratio (8 conn) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${results.map((r) => `| ${r.engine} | ${fmt(r.status.indexed)} | ${fmt(r.status.indexed / r.indexSeconds)} | ${fmt(r.rssBefore)} / ${fmt(r.rssIndexing)} / **${fmt(r.rssAfter)}** / ${fmt(r.rssLoaded)} | ${r.serial.p50} / ${r.serial.p99} ms | ${fmt(r.serial.rps)} / ${fmt(r.loaded.rps)} | ${r.filtered.p50} / ${r.filtered.p99} ms | ${r.similar.p50} / ${r.similar.p99} ms | ${fmt(r.bare.rps)} | ${fmt((100 * r.loaded.rps) / r.bare.rps, 1)} % |`).join('\n')}

RSS is the one API process's (\`VITRINE_PROCESSES=1\`): when started, at the end of indexing (its indexing thread
still loaded), then a fresh process on the indexed catalogue with its index loaded by the first query, read once
the indexing thread it started to learn the model's identity has ended (60 s idle), and after every load row.
Vectors are 164 bytes (the fashion head's 128 + 36 dimensions, one byte each).

Before the fashion head (same machine, the backbone's 1,280 dimensions, \`/similar\` reading the product's first
vector from the database, default two API processes, RSS of the process the bench started before → after the first query):

| engine | indexing (images/s) | RSS (MB) | visual search p50 / p99 (1 conn) | req/s (1 / 8 conn) | with filter p50 / p99 | /similar p50 / p99 |
| --- | --- | --- | --- | --- | --- | --- |
| sqlite | 252 | 302 → 678 | 47 / 103 ms | 20 / 24 | 50 / 64 ms | 55 / 112 ms |
| postgres | 239 | 206 → 682 | 91 / 119 ms | 11 / 13 | 72 / 91 ms | 79 / 123 ms |
`,
);
