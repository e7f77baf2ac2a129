import { usageClashes } from '../src/modules/complements/complement-rules.js';
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
  waitForBackground,
  storeWithProducts,
  toProduct,
} from './lib/harness.js';
import { prng } from './lib/search-queries.js';

// Complete the look over the real catalog: quality of the complements for 1,000 sources across all article types, and speed.
if (skipWithoutShared('complementary.bench')) process.exit(0);

const rows = readStyles();
const byId = new Map(rows.map((r) => [r.id, r]));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** 1,000 sources spread over every article type (round robin, seeded). */
function sampleSources(): string[] {
  const random = prng(5);
  const byType = new Map<string, string[]>();
  for (const row of rows) byType.set(row.articleType, [...(byType.get(row.articleType) ?? []), row.id]);
  for (const ids of byType.values()) ids.sort(() => random() - 0.5);
  const sources: string[] = [];
  for (let round = 0; sources.length < 1000; round++) {
    let added = false;
    for (const ids of byType.values())
      if (ids[round] && sources.length < 1000) {
        sources.push(ids[round]);
        added = true;
      }
    if (!added) break;
  }
  return sources;
}

async function runEngine(engine: 'sqlite' | 'postgres') {
  const { db, container, created, store } = await storeWithProducts(engine, rows.map(toProduct));

  const sources = sampleSources();
  await container.complements.complementary(store, sources[0], 10);
  let results = 0;
  let wrongGender = 0;
  let clashing = 0;
  const categoriesByMaster = new Map<string, number[]>();
  const typesWithComplements = new Set<string>();
  const times: number[] = [];
  for (const code of sources) {
    const started = performance.now();
    const { categories } = await container.complements.complementary(store, code, 10);
    times.push(performance.now() - started);
    const source = byId.get(code)!;
    categoriesByMaster.set(source.masterCategory, [
      ...(categoriesByMaster.get(source.masterCategory) ?? []),
      categories.length,
    ]);
    if (categories.length > 0) typesWithComplements.add(source.articleType);
    for (const category of categories) {
      for (const product of category.products) {
        const candidate = byId.get(product.product_code)!;
        results++;
        const fits = candidate.gender === source.gender || candidate.gender === 'Unisex' || source.gender === 'Unisex';
        if (!fits) wrongGender++;
        if (usageClashes(source.usage, candidate.usage)) clashing++;
      }
    }
  }
  // Article types the taxonomy allows (placed in a group that has complements) that got complements for every sampled source type.
  const sampledTypes = new Set(sources.map((c) => byId.get(c)!.articleType));
  await container.close();

  const server = await startServerProcess('vitrine', { DATABASE_URL: db.url, VITRINE_RATE_LIMIT: '100000000' });
  const headers = { authorization: `Bearer ${created.api_token}` };
  try {
    const pathOf = (code: string) => `/v1/complementary?store_uuid=${created.store_uuid}&product_code=${code}`;
    const sample = await (await fetch(`http://127.0.0.1:${server.port}${pathOf(sources[0])}`, { headers })).text();
    const requests = sources.map((code) => ({ method: 'GET' as const, path: pathOf(code), headers }));
    // The catalog was just written: the change-log followers (search index, image catalog,
    // collections) work through its 44k changes first, so the load measures complete the look, not them.
    await waitForBackground(`http://127.0.0.1:${server.port}`);
    await load(`http://127.0.0.1:${server.port}`, { seconds: 2, requests });
    const http = await load(`http://127.0.0.1:${server.port}`, { seconds, requests });
    await server.stop();
    const bareResult = await bareRouteWith(sample, seconds);
    times.sort((a, b) => a - b);
    const avg = (list: number[] = []) => list.reduce((a, b) => a + b, 0) / (list.length || 1);
    return {
      engine,
      sources: sources.length,
      results,
      wrongGender,
      clashing,
      categoriesByMaster,
      avg,
      typesCovered: typesWithComplements.size,
      sampledTypes: sampledTypes.size,
      p50: pct(times, 0.5),
      p99: pct(times, 0.99),
      http,
      bare: bareResult.rps,
    };
  } finally {
    if (server.child.exitCode === null) await server.stop();
    await db.drop();
  }
}

const results = [await runEngine('sqlite')];
if (await postgresAvailable()) results.push(await runEngine('postgres'));
else console.log('complementary.bench: PostgreSQL not reachable, its half SKIPPED');

const r0 = results[0];
const table = [
  `${fmt(r0.sources)} source products spread over all ${r0.sampledTypes} article types of \`styles.csv\` (seeded), limit 10 per category, default fashion taxonomy.`,
  '',
  '| engine | results | wrong department | clashing usage (formal/party/ethnic vs sports/home) | avg categories: Apparel / Footwear / Accessories | article types with complements | server-side p50 / p99 ms | HTTP req/s (50 conn.), p50 / p99 ms | bare route (same body) req/s | HTTP / bare |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.engine} | ${fmt(r.results)} | **${fmt((r.wrongGender / r.results) * 100, 2)} %** | **${fmt((r.clashing / r.results) * 100, 2)} %** | ${fmt(r.avg(r.categoriesByMaster.get('Apparel')), 1)} / ${fmt(r.avg(r.categoriesByMaster.get('Footwear')), 1)} / ${fmt(r.avg(r.categoriesByMaster.get('Accessories')), 1)} | ${r.typesCovered} / ${r.sampledTypes} | **${fmt(r.p50, 2)} / ${fmt(r.p99, 2)}** | ${fmt(r.http.rps)}, ${r.http.p50} / ${r.http.p99} | ${fmt(r.bare)} | ${fmt((r.http.rps / r.bare) * 100, 1)} % |`,
  ),
  '',
  `Targets: wrong department 0; clashing usage < 5 %; ≥ 3 categories for apparel and footwear; every article type the taxonomy places gets complements; p50 ≤ 5 ms, p99 ≤ 20 ms server-side. ${seconds} s per HTTP measurement; ${machineLine()}.`,
].join('\n');
console.log(table);
recordSection('Complete the look (44k catalog)', table);
