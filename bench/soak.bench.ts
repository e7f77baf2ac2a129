import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { startServe } from '../test/helpers/serve.js';
import {
  fmt,
  machineLine,
  postgresAvailable,
  processRss,
  profilerFlags,
  readStyles,
  recordSection,
  skipWithoutShared,
  storeWithProducts,
  toProduct,
  waitForBackground,
} from './lib/harness.js';
import { runLoad, type LoadWindow, type MixRequest } from './lib/open-loop.js';
import { buildQueries, prng } from './lib/search-queries.js';
import { startWebhookReceiver } from './lib/webhook-receiver.js';

// A day of load, compressed (issue 45): the 44k catalog on PostgreSQL, `vitrine serve --processes 2
// --no-worker` and one `vitrine worker`, a webhook subscription to every event. The shopper mix
// (search, listing pages with filters, facets and sorts, browsing, suggestions, complete the look,
// shopper events, status listing, single-product writes) runs first at full speed to measure
// capacity, then open-loop at 80 % of it for BENCH_SOAK_MINUTES (30 for the record), with an import
// of 1,000 changed rows every minute beside it. Per minute: p99 per route and RSS per process. At
// the end: 5xx, lost or duplicated shopper events (answers, stored rows and daily counters),
// webhook events delivered against the change feed, and RSS of the last 10 minutes against the
// first 10.
if (skipWithoutShared('soak.bench')) process.exit(0);
if (!(await postgresAvailable())) {
  console.log('soak.bench: PostgreSQL not reachable, SKIPPED');
  process.exit(0);
}
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const LOAD_SHARE = 0.8;
const IMPORT_ROWS_PER_MINUTE = 1_000;
const IMPORT_BATCH = 100;

const rows = readStyles();
const products = rows.map((row) => {
  const { 'Image URL 1': _image, ...rest } = toProduct(row);
  return rest;
});
const codes = products.map((p) => p.product_code);
const queries = [...new Set(buildQueries(rows, 60, 5).map((q) => q.text))];
const departments = [...new Set(rows.map((r) => r.gender))];
const prefixes = [...new Set(queries.map((q) => q.slice(0, 3 + (q.length % 3))))];
const SORTS = ['relevance', 'price_asc', 'popular', 'trending'];
const FACETS = ['Category', 'Colour', 'Department'];

const { db, container, created, store } = await storeWithProducts('postgres', products);
const receiver = await startWebhookReceiver();
await container.close();

const ADMIN = 'soak-bench-admin';
const env = { VITRINE_RATE_LIMIT: '100000000', VITRINE_ALLOW_PRIVATE_FETCH: 'true', VITRINE_ADMIN_TOKEN: ADMIN };
// BENCH_PROFILE_DIR: the API processes and the worker write CPU profiles there when they stop.
// BENCH_SOAK_HEAP_MINUTES (e.g. "2,8"): the API processes write a heap snapshot to the working
// directory at the end of those minutes (diagnosis of RSS growth; each takes seconds and stalls the process).
const heapMinutes = new Set((process.env.BENCH_SOAK_HEAP_MINUTES ?? '').split(',').filter(Boolean).map(Number));
const heapFlags = heapMinutes.size > 0 ? ['--heapsnapshot-signal=SIGUSR2'] : [];
const served = await startServe(db.url, env, ['--processes', '2', '--no-worker'], undefined, [
  ...profilerFlags(),
  ...heapFlags,
]);
const worker = spawn(process.execPath, [...profilerFlags(), path.resolve('bin/vitrine.js'), 'worker'], {
  env: { ...process.env, DATABASE_URL: db.url, VITRINE_DATA_DIR: served.dataDir, LOG_LEVEL: 'warn', ...env },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const s = created.store_uuid;
const headers = { authorization: `Bearer ${created.api_token}`, 'content-type': 'application/json' };

// What the shopper events must add up to at the end.
const events = { sent: 0, ids: new Set<string>(), accepted: 0, duplicate: 0, rejected: 0, failedBatches: 0 };
const random = prng(45);
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
let eventCounter = 0;
let lastBatch: string | undefined;

function eventBatch(): MixRequest {
  // One batch in twenty is a client's retry of the previous one: each of its events counts once.
  const retry = lastBatch !== undefined && random() < 0.05;
  const batch: Array<Record<string, unknown>> = retry ? (JSON.parse(lastBatch!) as Array<Record<string, unknown>>) : [];
  if (!retry)
    for (let i = 0; i < 10; i++) {
      const shopper = `shopper-${Math.floor(random() * 20_000)}`;
      const base = { event_id: `soak-${++eventCounter}`, shopper_id: shopper, session_id: `${shopper}-s` };
      const kind = random();
      if (kind < 0.5) batch.push({ ...base, type: 'view', product_code: pick(codes) });
      else if (kind < 0.7)
        batch.push({ ...base, type: 'click', product_code: pick(codes), query: pick(queries), position: 1 + (i % 20) });
      else if (kind < 0.85)
        batch.push({ ...base, type: 'search', query: pick(queries), hits: Math.floor(random() * 500) });
      else if (kind < 0.95) batch.push({ ...base, type: 'add_to_cart', product_code: pick(codes), quantity: 1 });
      else batch.push({ ...base, type: 'purchase', product_code: pick(codes), quantity: 1, price: 20 });
    }
  const body = JSON.stringify(batch);
  lastBatch = body;
  events.sent += batch.length;
  for (const event of batch) events.ids.add(event.event_id as string);
  return {
    route: 'events',
    method: 'POST',
    path: `/v1/events?store_uuid=${s}`,
    body,
    onAnswer: (status, text) => {
      if (status !== 200) {
        events.failedBatches++;
        return;
      }
      const answer = JSON.parse(text) as { data: { accepted: number; duplicate: number; rejected: number } };
      events.accepted += answer.data.accepted;
      events.duplicate += answer.data.duplicate;
      events.rejected += answer.data.rejected;
    },
  };
}

let mixCounter = 0;
function nextRequest(): MixRequest {
  const i = ++mixCounter;
  const r = random();
  if (r < 0.3)
    return {
      route: 'search',
      method: 'GET',
      path: `/v1/search?store_uuid=${s}&query=${encodeURIComponent(pick(queries))}`,
    };
  if (r < 0.48) {
    const body = {
      query: pick(queries),
      filters: { Department: pick(departments) },
      facets: FACETS,
      sort: pick(SORTS),
      limit: 20,
    };
    return { route: 'listing', method: 'POST', path: `/v1/search/query?store_uuid=${s}`, body: JSON.stringify(body) };
  }
  if (r < 0.58) {
    const body = {
      facets: FACETS,
      sort: 'newest',
      offset: (i % 25) * 20,
      limit: 20,
      filters: { Department: pick(departments) },
    };
    return { route: 'browse', method: 'POST', path: `/v1/search/query?store_uuid=${s}`, body: JSON.stringify(body) };
  }
  if (r < 0.63)
    return {
      route: 'suggest',
      method: 'GET',
      path: `/v1/search/suggest?store_uuid=${s}&prefix=${encodeURIComponent(pick(prefixes))}`,
    };
  if (r < 0.7)
    return {
      route: 'complete the look',
      method: 'GET',
      path: `/v1/complementary?store_uuid=${s}&product_code=${pick(codes)}`,
    };
  if (r < 0.88) return eventBatch();
  if (r < 0.94)
    return {
      route: 'status listing',
      method: 'GET',
      path: `/v1/products/status?store_uuid=${s}&limit=100&after=${pick(codes)}`,
    };
  const body = [{ product_code: pick(codes), 'Selling Price': (10 + random() * 190).toFixed(2) }];
  return { route: 'product write', method: 'PUT', path: `/v1/products?store_uuid=${s}`, body: JSON.stringify(body) };
}

let importOffset = 0;
function importBatch(): MixRequest {
  const batch = codes
    .slice(importOffset, importOffset + IMPORT_BATCH)
    .map((code) => ({ product_code: code, Stock: String(Math.floor(random() * 50)) }));
  importOffset = (importOffset + IMPORT_BATCH) % (codes.length - IMPORT_BATCH);
  return { route: 'import batch', method: 'PUT', path: `/v1/products?store_uuid=${s}`, body: JSON.stringify(batch) };
}

const rssByRole = () => {
  const rowsNow = [
    ...processRss(served.process.pid!),
    ...processRss(worker.pid!).map((p) => ({ ...p, role: 'worker' })),
  ];
  return Object.fromEntries(rowsNow.map((p) => [p.role, p.mb])) as Record<string, number>;
};
/** What the API processes' heaps and in-memory indexes hold, summed over the processes (/metrics), MB. */
async function heapAndIndexes(): Promise<Record<string, number>> {
  const metrics = await (await fetch(`${served.url}/metrics`)).text();
  const mb = (value: string) => Math.round(Number(value) / 1024 / 1024);
  const figures: Record<string, number> = {};
  for (const [, name, value] of metrics.matchAll(
    /^vitrine_nodejs_(heap_size_used_bytes|heap_size_total_bytes|external_memory_bytes) (\S+)/gm,
  ))
    figures[
      name === 'heap_size_used_bytes' ? 'heap used' : name === 'heap_size_total_bytes' ? 'heap total' : 'external'
    ] = mb(value);
  for (const [, index, value] of metrics.matchAll(
    /^vitrine_index_memory_bytes\{index="([^"]+)",measure="bytes"\} (\S+)/gm,
  ))
    figures[index] = mb(value);
  return figures;
}

/**
 * Each process's RSS sampled every 5 s over `seconds`, averaged: a single reading catches the garbage
 * collector's high or low tide (±25 % within a minute here).
 */
async function meanRss(seconds: number): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  let samples = 0;
  for (const end = performance.now() + seconds * 1000; performance.now() < end - 2_500;) {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    for (const [role, mb] of Object.entries(rssByRole())) sums[role] = (sums[role] ?? 0) + mb;
    samples++;
  }
  return Object.fromEntries(Object.entries(sums).map(([role, sum]) => [role, sum / samples]));
}

/**
 * This machine's PostgreSQL runs with autovacuum off; a store's tables then never get vacuumed or
 * analyzed under a day of writes (the counters' dead rows pile up, the planner believes the events
 * tables empty) and capacity erodes for a reason no deployment has. Where it is off, the bench does
 * what autovacuum would: VACUUM (ANALYZE) of the store's tables once a minute (its default naptime).
 */
async function emulateAutovacuum(): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query<{ autovacuum: string }>('show autovacuum');
  if (rows[0].autovacuum === 'on') {
    await client.end();
    return async () => {};
  }
  console.log('autovacuum is off on this PostgreSQL: VACUUM (ANALYZE) of the tables once a minute instead');
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, 60_000));
      if (stopped) break;
      const tables = await client.query<{ name: string }>(
        'select quote_ident(tablename) as name from pg_tables where schemaname = current_schema()',
      );
      await client.query(`vacuum (analyze) ${tables.rows.map((t) => t.name).join(', ')}`);
    }
  })();
  return async () => {
    stopped = true;
    await loop.catch(() => {});
    await client.end();
  };
}

const minute = (rate: number, seconds: number) =>
  Promise.all([
    runLoad({ base: served.url, headers, next: nextRequest, seconds, rate }),
    runLoad({
      base: served.url,
      headers,
      next: importBatch,
      seconds,
      rate: IMPORT_ROWS_PER_MINUTE / IMPORT_BATCH / 60,
    }),
    meanRss(seconds),
  ]);

try {
  await waitForBackground(served.url);
  const subscribed = await fetch(`${served.url}/admin/v1/stores/${s}/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url }),
  });
  if (subscribed.status !== 201)
    throw new Error(`webhook subscription: ${subscribed.status} ${await subscribed.text()}`);
  const startSeq = (
    (await (await fetch(`${served.url}/v1/changes?store_uuid=${s}&limit=1`, { headers })).json()) as {
      data: { latest_sequence: number };
    }
  ).data.latest_sequence;
  const stopVacuum = await emulateAutovacuum();
  await runLoad({ base: served.url, headers, next: nextRequest, seconds: 20, connections: 32 }); // warm
  const full = await runLoad({ base: served.url, headers, next: nextRequest, seconds: 30, connections: 32 });
  const capacity = full.completed / full.seconds;
  const rate = Math.round(capacity * LOAD_SHARE);
  console.log(`capacity ${fmt(capacity)} req/s; soak at ${fmt(rate)} req/s for ${MINUTES} min`);
  await minute(rate, 60); // warm-up at the soak's rate
  const minutes: Array<{
    mix: LoadWindow;
    imports: LoadWindow;
    rss: Record<string, number>;
    heap: Record<string, number>;
  }> = [];
  for (let m = 1; m <= MINUTES; m++) {
    const [mix, imports, rss] = await minute(rate, 60);
    minutes.push({ mix, imports, rss, heap: await heapAndIndexes() });
    if (heapMinutes.has(m))
      for (const api of processRss(served.process.pid!).filter((p) => p.role.startsWith('api')))
        process.kill(api.pid, 'SIGUSR2');
    const rounded = (figures: Record<string, number>) =>
      JSON.stringify(figures, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v));
    console.log(
      `minute ${m}: ${fmt(mix.completed / 60)} req/s, 5xx ${mix.serverErrors + imports.serverErrors}, shed ${mix.shed}, RSS ${rounded(minutes[m - 1].rss)}, API heaps and indexes (MB) ${rounded(minutes[m - 1].heap)}`,
    );
  }

  await stopVacuum();

  // Webhooks: every event of the change feed since the subscription, delivered once.
  const expected = new Set<string>();
  for (let after = startSeq; ;) {
    const page = (
      (await (
        await fetch(`${served.url}/v1/changes?store_uuid=${s}&after=${after}&limit=1000`, { headers })
      ).json()) as { data: { changes: Array<{ id: string }>; next_after: number; has_more: boolean } }
    ).data;
    for (const change of page.changes) expected.add(change.id);
    after = page.next_after;
    if (!page.has_more) break;
  }
  const deliveryStarted = performance.now();
  while ([...expected].some((id) => !receiver.arrivals.has(id)) && performance.now() - deliveryStarted < 300_000)
    await new Promise((resolve) => setTimeout(resolve, 1000));
  const undelivered = [...expected].filter((id) => !receiver.arrivals.has(id)).length;
  const deliveryTail = (performance.now() - deliveryStarted) / 1000;

  // Shopper events: stored once each, and the daily counters add up to the events that counted.
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const stored = Number(
    (await client.query('select count(*) as n from shopper_events where store_id = $1', [store.id])).rows[0].n,
  );
  const counted = Object.fromEntries(
    (
      await client.query(
        'select type, count(*) as n from shopper_events where store_id = $1 and counted = 1 group by type',
        [store.id],
      )
    ).rows.map((row: { type: string; n: string }) => [row.type, Number(row.n)]),
  );
  const sums = (
    await client.query(
      'select sum(views) as view, sum(clicks) as click, sum(carts) as add_to_cart, sum(purchases) as purchase from product_event_days where store_id = $1',
      [store.id],
    )
  ).rows[0] as Record<string, string>;
  await client.end();
  const counterMismatch = ['view', 'click', 'add_to_cart', 'purchase'].filter(
    (t) => Number(sums[t] ?? 0) !== (counted[t] ?? 0),
  );
  const lostEvents = events.ids.size - stored;
  const duplicatedEvents = events.accepted - events.ids.size;

  const serverErrors = minutes.reduce(
    (sum, m) => sum + m.mix.serverErrors + m.imports.serverErrors + m.mix.failures + m.imports.failures,
    0,
  );
  const roles = Object.keys(minutes[0].rss);
  const tenth = Math.max(1, Math.min(10, Math.floor(minutes.length / 3)));
  const mean = (list: typeof minutes, role: string) =>
    list.reduce((sum, m) => sum + (m.rss[role] ?? 0), 0) / list.length;
  const drift = Object.fromEntries(
    roles.map((role) => [role, mean(minutes.slice(-tenth), role) / mean(minutes.slice(0, tenth), role) - 1]),
  );
  const routes = [...new Set(minutes.flatMap((m) => [...m.mix.routes.keys(), ...m.imports.routes.keys()]))];
  const figuresOf = (m: (typeof minutes)[number], route: string) =>
    m.mix.routes.get(route) ?? m.imports.routes.get(route);
  const flat = Object.values(drift).every((d) => Math.abs(d) <= 0.1);
  const pass =
    serverErrors === 0 &&
    lostEvents === 0 &&
    duplicatedEvents === 0 &&
    counterMismatch.length === 0 &&
    undelivered === 0 &&
    receiver.stats().duplicates === 0 &&
    flat;
  const unexpected = [...new Set(minutes.flatMap((m) => [...m.mix.examples, ...m.imports.examples]))].slice(0, 5);
  const table = [
    `PostgreSQL, the 44k catalog, \`vitrine serve --processes 2 --no-worker\` and one \`vitrine worker\`, one webhook subscription to every event (a local receiver). Mix: 30 % text search, 18 % listing pages (a query, a Department filter, 3 facets, one of ${SORTS.length} sorts), 10 % browsing (facets, newest, pages 1–25), 5 % suggestions, 7 % complete the look, 18 % shopper-event batches (10 events of 20,000 shoppers; one batch in 20 a retry), 6 % status listing (pages of 100 by keyset, \`after\`, as a sync client walks them), 6 % single-product price writes; beside it an import of ${fmt(IMPORT_ROWS_PER_MINUTE)} changed rows a minute (batches of ${IMPORT_BATCH}). Capacity at full speed (32 callers): **${fmt(capacity)} req/s**; soak open-loop at ${LOAD_SHARE * 100} % of it (**${fmt(rate)} req/s**) for ${MINUTES} minutes after a minute of warm-up. Latency is the client's (queueing included), ms.`,
    '',
    `| minute | req/s | shed | 5xx | ${routes.map((r) => `${r} p99`).join(' | ')} | ${roles.map((r) => `RSS ${r} MB (mean)`).join(' | ')} |`,
    `|---:|---:|---:|---:|${routes.map(() => '---:').join('|')}|${roles.map(() => '---:').join('|')}|`,
    ...minutes.map(
      (m, i) =>
        `| ${i + 1} | ${fmt(m.mix.completed / 60)} | ${m.mix.shed} | ${m.mix.serverErrors + m.imports.serverErrors + m.mix.failures + m.imports.failures} | ${routes.map((r) => fmt(figuresOf(m, r)?.p99 ?? 0, 1)).join(' | ')} | ${roles.map((r) => fmt(m.rss[r] ?? 0)).join(' | ')} |`,
    ),
    '',
    `At the end: **${fmt(serverErrors)}** 5xx or failed requests; shopper events: ${fmt(events.sent)} sent (${fmt(events.ids.size)} distinct, the rest retries), ${fmt(events.accepted)} accepted, ${fmt(events.duplicate)} answered duplicate, ${fmt(events.rejected)} rejected, ${fmt(events.failedBatches)} batches not answered 200, ${fmt(stored)} stored: **${fmt(lostEvents)} lost, ${fmt(duplicatedEvents)} duplicated**; daily counters ${counterMismatch.length === 0 ? 'equal to the events that counted, per type' : `differ for ${counterMismatch.join(', ')}`}. Webhooks: ${fmt(expected.size)} events in the change feed since the subscription, **${fmt(undelivered)} undelivered**, ${fmt(receiver.stats().duplicates)} delivered twice, the last within ${fmt(deliveryTail, 1)} s of the load's end. RSS, mean of the last ${tenth} minutes against the first ${tenth}: ${roles.map((r) => `${r} ${drift[r] >= 0 ? '+' : ''}${fmt(drift[r] * 100, 1)} %`).join(', ')} (target within 10 %). Verdict: **${pass ? 'pass' : 'FAIL'}**. ${machineLine()}.`,
    ...(unexpected.length ? ['', 'Answers other than 2xx (the first few):', ...unexpected.map((e) => `- ${e}`)] : []),
  ].join('\n');
  console.log(table);
  recordSection('Soak: a day of load, compressed', table);
} finally {
  worker.kill('SIGTERM');
  await served.stop();
  await receiver.close();
  await db.drop();
}
