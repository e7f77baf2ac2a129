import {
  vacuumAnalyzeIfPostgres,
  deterministicPrice,
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
import { prng } from './lib/search-queries.js';

// Collections: 2,000 rule collections (all autoRefresh) over the 44k catalog.
if (skipWithoutShared('collections.bench')) process.exit(0);

const rows = readStyles();
const products = rows.map(toProduct);
const COLLECTIONS = Number(process.env.BENCH_COLLECTIONS ?? 2000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Rules drawn from real attribute combinations: department + article, article + colour, article + price band. */
function collectionBodies() {
  const random = prng(3);
  return Array.from({ length: COLLECTIONS }, (_, i) => {
    const row = rows[Math.floor(random() * rows.length)];
    const kind = i % 3;
    const filters =
      kind === 0
        ? { Department: row.gender, Category: row.articleType }
        : kind === 1
          ? { Category: row.articleType, Colour: [row.baseColour, 'Black'] }
          : { Category: row.articleType, 'Selling Price': { gte: 20, lte: 120 } };
    return {
      id: `c${i}`,
      name: `Collection ${i}`,
      filters,
      sortBy: { dynamic: [{ field: 'Selling Price', order: i % 2 ? 'asc' : 'desc' }] },
      autoRefresh: true,
    };
  });
}

async function runEngine(engine: 'sqlite' | 'postgres') {
  const { db, container, created, store } = await storeWithProducts(engine, products);
  await container.collections.follower.catchUp(store.id);

  const bodies = collectionBodies();
  let started = performance.now();
  for (let i = 0; i < bodies.length; i += 100) await container.collections.create(store, bodies.slice(i, i + 100));
  const createSeconds = (performance.now() - started) / 1000;
  await vacuumAnalyzeIfPostgres(container);
  const memberRows = Number(
    (
      await container.storage.db
        .selectFrom('collection_members')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

  // Extra cost of a 100-product write: the follower re-evaluating those products against every autoRefresh
  // collection. Worst case: every written product gets a new price, which every collection sorts by, so
  // each of its memberships moves. Common case: a write that leaves filters and sort fields alone.
  const random = prng(9);
  const writes: number[] = [];
  const follows: number[] = [];
  const followsUnsorted: number[] = [];
  for (let round = 0; round < 40; round++) {
    const repriced = round < 20;
    const batch = Array.from({ length: 100 }, () => {
      const p = { ...products[Math.floor(random() * products.length)] };
      if (repriced) p['Selling Price'] = deterministicPrice(String(Number(p.product_code) + round + 1));
      else p['Product Name'] = `${p['Product Name']} (${round})`;
      return p;
    });
    started = performance.now();
    await container.products.upsertProducts(store, batch);
    writes.push(performance.now() - started);
    started = performance.now();
    await container.collections.follower.catchUp(store.id);
    (repriced ? follows : followsUnsorted).push(performance.now() - started);
  }
  await container.close();

  const server = await startServerProcess('vitrine', { DATABASE_URL: db.url, VITRINE_RATE_LIMIT: '100000000' });
  const headers = { authorization: `Bearer ${created.api_token}` };
  try {
    // The server's own change-log followers (search, images, complete the look) start from the
    // catalog just written: the reads are measured once they are done, as in the other benches.
    await waitForBackground(`http://127.0.0.1:${server.port}`);
    const base = `http://127.0.0.1:${server.port}/v1/collection`;
    await fetch(`${base}?store_uuid=${created.store_uuid}&limit=1000`, { headers });
    const list = await load(`${base}?store_uuid=${created.store_uuid}&limit=1000`, {
      seconds,
      headers,
      connections: 10,
    });
    const requests = Array.from({ length: 200 }, (_, i) => ({
      method: 'GET' as const,
      path: `/v1/collection/c${(i * 7) % COLLECTIONS}/products?store_uuid=${created.store_uuid}&limit=100`,
      headers,
    }));
    const members = await load(`http://127.0.0.1:${server.port}`, { seconds, requests, connections: 10 });
    if (list.non2xx || members.non2xx) throw new Error('non-2xx answers');
    return {
      engine,
      createSeconds,
      memberRows,
      write: [...writes].sort((a, b) => a - b),
      follow: [...follows].sort((a, b) => a - b),
      followUnsorted: [...followsUnsorted].sort((a, b) => a - b),
      list,
      members,
    };
  } finally {
    await server.stop();
    await db.drop();
  }
}

const results = [await runEngine('sqlite')];
if (await postgresAvailable()) results.push(await runEngine('postgres'));
else console.log('collections.bench: PostgreSQL not reachable, its half SKIPPED');

const table = [
  `${fmt(COLLECTIONS)} rule collections (department + article type, article type + colours, article type + price range; sorted by price; all autoRefresh) over ${fmt(products.length)} products.`,
  '',
  '| engine | create all s | member rows | `GET /v1/collection?limit=1000` req/s, p50 / p99 ms (10 conn.) | `/collection/{id}/products?limit=100` req/s, p50 / p99 ms | 100-product write ms p50 | follower work per 100-product write, every price changed, ms p50 / p99 | same, names changed (filters and sort fields unchanged) |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.engine} | ${fmt(r.createSeconds, 1)} | ${fmt(r.memberRows)} | ${fmt(r.list.rps)}, ${r.list.p50} / ${r.list.p99} | ${fmt(r.members.rps)}, ${r.members.p50} / ${r.members.p99} | ${fmt(pct(r.write, 0.5), 1)} | **${fmt(pct(r.follow, 0.5), 1)} / ${fmt(pct(r.follow, 0.99), 1)}** | ${fmt(pct(r.followUnsorted, 0.5), 1)} / ${fmt(pct(r.followUnsorted, 0.99), 1)} |`,
  ),
  '',
  `The follower re-evaluates only the changed products against the compiled rules (not every collection over the catalog). Target (issue 18): at most 50 ms of follower work per 100-product write. PostgreSQL: \`VACUUM (ANALYZE)\` after bulk loads (what autovacuum would do; it is off on this machine's PostgreSQL). ${seconds} s per HTTP measurement; ${machineLine()}.`,
  '',
  'The follower re-evaluates only the changed products against the live rules, compiled once per change of the rule set and filed by attribute (`RuleIndex`): matching 100 products takes about 10 ms. It then writes only the memberships that changed (a diff against the stored ones, read through the per-product index). Sort keys live apart from the memberships, one per product and sort (`collection_sort_keys`, shared by every collection sorted the same way; members page by joining them): a price change every collection sorts by rewrites 100 × 2 keys here instead of about 5,000 membership rows. What remains of the worst case is the membership rows that really change (products crossing the price bands of a third of the collections, many of which repeat the same rule: about 1,300 inserts and 1,270 removals per write, counted in 2026-11-25) and, on SQLite, the commit that writes their pages to the WAL (29–49 ms of it).',
  '',
  "History (issue 18, follower work per price-changing write, p50): 961.9 ms (SQLite) and 413.5 ms (PostgreSQL) before; 601.5 and 276.2 with the rule index (Intel machine); 621.8 and 384.8 with the membership diff (this machine); 85.1 and 65.6 with shared sort keys, which also made the member listing faster (SQLite 440 → 658 req/s, PostgreSQL 98 → 164) and the collection list (55 → 132, 7 → 110 req/s: narrower membership rows to count). Collection creation got slower on PostgreSQL (84.6 → 130 s for 2,000: each save reads and writes its members' keys). Tried and not kept: WAL checkpoints in a worker thread (SQLite, so no commit copies the WAL back): the commit stayed at ≈ 50 ms, it is the page writes themselves.",
].join('\n');
console.log(table);
recordSection('Collections (2,000 rule collections, 44k catalog)', table);
