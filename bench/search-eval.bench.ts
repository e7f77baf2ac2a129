import MiniSearch from 'minisearch';
import {
  vacuumAnalyzeIfPostgres,
  fmt,
  machineLine,
  postgresAvailable,
  readStyles,
  recordSection,
  skipWithoutShared,
  storeWithProducts,
  toProduct,
  type CatalogRow,
} from './lib/harness.js';
import { buildQueries, FAMILIES, isRelevant, score, type Metrics } from './lib/search-queries.js';

// Relevance of text search over the real catalog, per query family, for Vitrine on both engines and MiniSearch.
if (skipWithoutShared('search-eval.bench')) process.exit(0);

const rows = readStyles();
const PER_FAMILY = Number(process.env.EVAL_PER_FAMILY ?? 100);
const queries = buildQueries(rows, PER_FAMILY);
const judged = queries
  .map((query) => {
    const relevant = new Set(rows.filter((row) => isRelevant(row, query.wants)).map((row) => row.id));
    return { query, relevant };
  })
  .filter((j) => j.relevant.size > 0);
console.log(`${judged.length} queries with at least one relevant product (${PER_FAMILY} per family asked)`);

type Ranker = (text: string) => Promise<string[]>;

async function evaluate(name: string, rank: Ranker) {
  const byFamily = new Map<string, Array<{ ranked: string[]; relevant: Set<string>; totalRelevant: number }>>();
  for (const { query, relevant } of judged) {
    const ranked = await rank(query.text);
    const list = byFamily.get(query.family) ?? [];
    list.push({ ranked, relevant, totalRelevant: relevant.size });
    byFamily.set(query.family, list);
  }
  const metrics = new Map<string, Metrics>();
  for (const family of FAMILIES) metrics.set(family, score(byFamily.get(family) ?? []));
  metrics.set('overall', score([...byFamily.values()].flat()));
  return { name, metrics };
}

async function vitrine(engine: 'sqlite' | 'postgres'): Promise<{ rank: Ranker; close(): Promise<void> }> {
  const { db, container, store } = await storeWithProducts(engine, rows.map(toProduct));
  await container.searchIndexer.follower.catchUp(store.id);
  await vacuumAnalyzeIfPostgres(container);
  return {
    rank: async (text) =>
      (await container.search.search(store, { query: text, offset: 0, limit: 10 }, { readYourWrites: true })).hits.map(
        (r) => r.product_code,
      ),
    close: async () => {
      await container.close();
      await db.drop();
    },
  };
}

function miniSearch(): Ranker {
  const index = new MiniSearch<CatalogRow & { title: string; category: string; other: string }>({
    fields: ['title', 'category', 'gender', 'baseColour', 'other'],
    storeFields: ['id'],
    searchOptions: { boost: { title: 2, category: 2 }, prefix: true, fuzzy: 0.2 },
  });
  index.addAll(
    rows.map((row) => ({
      ...row,
      title: row.productDisplayName,
      category: `${row.articleType} ${row.subCategory}`,
      other: `${row.usage} ${row.season} ${row.masterCategory}`,
    })),
  );
  return async (text) =>
    index
      .search(text)
      .slice(0, 10)
      .map((hit) => String(hit.id));
}

const systems: Array<Awaited<ReturnType<typeof evaluate>>> = [];
const sqlite = await vitrine('sqlite');
systems.push(await evaluate('Vitrine (SQLite FTS5)', sqlite.rank));
await sqlite.close();
if (await postgresAvailable()) {
  const pg = await vitrine('postgres');
  systems.push(await evaluate('Vitrine (PostgreSQL)', pg.rank));
  await pg.close();
} else console.log('search-eval: PostgreSQL not reachable, its column SKIPPED');
systems.push(await evaluate('MiniSearch 7 (fuzzy 0.2, prefix, title/category ×2)', miniSearch()));

const families = [...FAMILIES, 'overall'];
const lines = [
  `${judged.length} queries built from \`styles.csv\` attributes (seeded): gender + colour + article type, brand (first word of the name) + article type, article type alone; and the same with one typo, with the other plural form, with the last word cut to 60 %. Relevant = has every attribute the query names. P@10 divides by 10 even when fewer products are relevant.`,
  '',
  '| family | queries | ' + systems.map((s) => `${s.name} nDCG@10 / P@10 / MRR / zero`).join(' | ') + ' |',
  '|---|---:|' + systems.map(() => '---|').join(''),
  ...families.map(
    (family) =>
      `| ${family} | ${systems[0].metrics.get(family)!.count} | ` +
      systems
        .map((s) => {
          const m = s.metrics.get(family)!;
          return `${fmt(m.ndcg, 3)} / ${fmt(m.precision, 3)} / ${fmt(m.mrr, 3)} / ${fmt(m.zero * 100, 1)} %`;
        })
        .join(' | ') +
      ' |',
  ),
  '',
  `Targets: Vitrine nDCG@10 ≥ 0.85 overall and ≥ 0.75 on typos, above MiniSearch on every family. ${machineLine()}.`,
];
const table = lines.join('\n');
console.log(table);
recordSection('Search relevance (44k catalog)', table);
