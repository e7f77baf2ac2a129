import {
  fmt,
  postgresAvailable,
  readStyles,
  recordSection,
  skipWithoutShared,
  startServerProcess,
  storeWithProducts,
  toProduct,
  waitForBackground,
} from './lib/harness.js';
import { resolveColour } from '../src/catalog/vocabulary/colours.js';

// A simulated day of shoppers on 6,000 products of the real catalog, over HTTP: returning shoppers
// with a favourite colour and garment, anonymous sessions, searches recorded by the server, clicks
// that favour the top results, carts and purchases; a few searches for what the store does not sell
// and one query nobody clicks. Prints the analytics merchandisers get, a trendScore collection before
// and after, and how much personalization moves a returning shopper's favourite colour up. Both engines.
if (skipWithoutShared('shopper-day.bench')) process.exit(0);

const rows = readStyles().slice(0, 6000);
const SESSIONS = 1200;
const SHOPPERS = 200;
const NOTHING = ['snorkel fins', 'tuxedo rental', 'bridal veil'];
const UNCLICKED = 'sandals men';

/** Deterministic randomness (mulberry32): the same day every run. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Hit {
  product_code: string;
  title: string;
}

async function runEngine(engine: 'sqlite' | 'postgres') {
  const { db, container, created } = await storeWithProducts(engine, rows.map(toProduct));
  await container.close();
  const server = await startServerProcess('vitrine', { DATABASE_URL: db.url, VITRINE_RATE_LIMIT: '100000000' });
  const base = `http://127.0.0.1:${server.port}`;
  const headers = { authorization: `Bearer ${created.api_token}`, 'content-type': 'application/json' };
  const adminHeaders = { authorization: `Bearer ${process.env.VITRINE_ADMIN_TOKEN ?? ''}` };
  const q = `store_uuid=${created.store_uuid}`;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: T }).data;
  };
  const search = (query: string, extra: Record<string, unknown> = {}) =>
    call<{ hits: Hit[] }>('POST', `/v1/search/query?${q}`, { query, group_variants: 'false', limit: 10, ...extra });
  try {
    await waitForBackground(base);
    const rand = random(41);
    const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
    const colourOf = new Map(rows.map((row) => [row.id, resolveColour(row.baseColour).family || row.baseColour]));
    const types = [...new Set(rows.map((row) => row.articleType))].filter(
      (type) => rows.filter((row) => row.articleType === type).length >= 40,
    );
    const colours = ['Black', 'Blue', 'White', 'Red', 'Green', 'Pink', 'Grey', 'Brown'];
    const shoppers = Array.from({ length: SHOPPERS }, (_, i) => ({
      id: `shopper-${i}`,
      colour: pick(colours),
      type: pick(types),
    }));

    await call('POST', `/v1/collection?${q}`, [
      { id: 'tshirts', name: 'Tshirts', filters: { Category: 'Tshirts' }, sortBy: { static: { trendScore: true } } },
    ]);
    await waitForBackground(base);
    const firstMembers = async () =>
      (
        await call<{ products: Array<{ product_code: string; title?: string }> }>(
          'GET',
          `/v1/collection/tshirts/products?${q}&limit=5`,
        )
      ).products.map((p) => p.product_code);
    const before = await firstMembers();

    let accepted = 0;
    for (let s = 0; s < SESSIONS; s++) {
      const shopper = rand() < 0.5 ? pick(shoppers) : undefined;
      const session = `session-${s}`;
      const who = { session_id: session, ...(shopper ? { shopper_id: shopper.id } : {}) };
      const roll = rand();
      const query =
        roll < 0.05
          ? pick(NOTHING)
          : roll < 0.08
            ? UNCLICKED
            : shopper && rand() < 0.7
              ? `${rand() < 0.6 ? `${shopper.colour} ` : ''}${shopper.type}`
              : `${rand() < 0.4 ? `${pick(colours)} ` : ''}${pick(types)}`;
      const { hits } = await search(query, who);
      if (query === UNCLICKED) continue;
      const events: Array<Record<string, unknown>> = [];
      hits.forEach((hit, index) => {
        const liked = shopper && colourOf.get(hit.product_code) === resolveColour(shopper.colour).family;
        if (rand() > (0.45 / (index + 1)) * (liked ? 2 : 1)) return;
        const event = (type: string, extra: Record<string, unknown> = {}) =>
          events.push({
            event_id: `${session}-${type}-${index}`,
            type,
            product_code: hit.product_code,
            ...who,
            ...extra,
          });
        event('click', { query, position: index + 1 });
        event('view');
        if (rand() < 0.25) {
          event('add_to_cart', { query, quantity: 1 });
          if (rand() < 0.4) event('purchase', { query, quantity: 1 });
        }
      });
      if (events.length > 0) accepted += (await call<{ accepted: number }>('POST', `/v1/events?${q}`, events)).accepted;
    }
    const after = await firstMembers();

    // Personalization: each returning shopper with events searches their garment with and without
    // their id; the share of their favourite colour in the first 10 hits.
    let anonymousShare = 0;
    let personalShare = 0;
    let measured = 0;
    for (const shopper of shoppers) {
      const family = resolveColour(shopper.colour).family;
      const share = (hits: Hit[]) =>
        hits.length === 0 ? 0 : hits.filter((h) => colourOf.get(h.product_code) === family).length / hits.length;
      const anonymous = (await search(shopper.type)).hits;
      const personal = (await search(shopper.type, { shopper_id: shopper.id })).hits;
      if (anonymous.length < 10) continue;
      anonymousShare += share(anonymous);
      personalShare += share(personal);
      measured++;
    }

    const admin = async <T>(path: string): Promise<T> => {
      const res = await fetch(`${base}/admin/v1/stores/${created.store_uuid}${path}`, { headers: adminHeaders });
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      return ((await res.json()) as { data: T }).data;
    };
    const searches = await admin<{
      top_queries: Array<{
        query: string;
        searches: number;
        clicks: number;
        click_through: number;
        conversions: number;
      }>;
      zero_result_queries: Array<{ query: string; searches: number }>;
      unclicked_queries: Array<{ query: string; searches: number }>;
    }>('/analytics/search');
    const products = await admin<{
      trending: Array<{ product_code: string; trend: number }>;
      viewed_not_bought: Array<{ product_code: string; views: number }>;
    }>('/analytics/products');
    return {
      engine,
      accepted,
      before,
      after,
      anonymousShare: anonymousShare / Math.max(1, measured),
      personalShare: personalShare / Math.max(1, measured),
      measured,
      searches,
      products,
    };
  } finally {
    await server.stop();
    await db.drop();
  }
}

process.env.VITRINE_ADMIN_TOKEN ??= 'bench-admin-token-0123456789abcdef';
const results = [await runEngine('sqlite')];
if (await postgresAvailable()) results.push(await runEngine('postgres'));
else console.log('shopper-day.bench: PostgreSQL not reachable, its half SKIPPED');

const nameOf = new Map(rows.map((row) => [row.id, row.productDisplayName]));
const [first] = results;
const table = [
  `${fmt(rows.length)} products of the real catalog, ${fmt(SESSIONS)} sessions (half of them by ${SHOPPERS} returning shoppers, each with a favourite colour and garment), each one search over HTTP (recorded by the server) and clicks, carts and purchases favouring the top hits; 5 % search for what the store does not sell, 3 % search "${UNCLICKED}" and click nothing. Deterministic (seeded).`,
  '',
  "| engine | events accepted | Tshirts by trendScore, first 5 before | after | favourite colour in a returning shopper's top 10: anonymous | personalised |",
  '|---|---:|---|---|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.engine} | ${fmt(r.accepted)} | ${r.before.join(', ')} | ${r.after.join(', ')} | ${fmt(100 * r.anonymousShare, 1)} % | **${fmt(100 * r.personalShare, 1)} %** (${r.measured} shoppers) |`,
  ),
  '',
  `Analytics of the day (${first.engine}), top queries:`,
  '',
  '| query | searches | clicks | click-through | conversions |',
  '|---|---:|---:|---:|---:|',
  ...first.searches.top_queries
    .slice(0, 8)
    .map((r) => `| ${r.query} | ${r.searches} | ${r.clicks} | ${fmt(100 * r.click_through, 0)} % | ${r.conversions} |`),
  '',
  `Found nothing: ${first.searches.zero_result_queries.map((r) => `"${r.query}" (${r.searches})`).join(', ') || 'none'}. Nobody clicked: ${first.searches.unclicked_queries.map((r) => `"${r.query}" (${r.searches})`).join(', ') || 'none'}.`,
  '',
  `Trending: ${first.products.trending
    .slice(0, 5)
    .map((t) => `${t.product_code} ${nameOf.get(t.product_code) ?? ''} (${fmt(t.trend, 1)})`)
    .join('; ')}. Most viewed, never bought: ${first.products.viewed_not_bought
    .slice(0, 3)
    .map((t) => `${t.product_code} ${nameOf.get(t.product_code) ?? ''} (${t.views} views)`)
    .join('; ')}.`,
].join('\n');
console.log(table);
recordSection('Shopper signals: a simulated day (evaluation)', table);
