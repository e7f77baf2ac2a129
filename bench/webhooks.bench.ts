import { createContainer } from '../src/container.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import {
  fmt,
  freshDatabase,
  ingestBatches,
  machineLine,
  postgresAvailable,
  readStyles,
  recordSection,
  skipWithoutShared,
  startServerProcess,
  toProduct,
} from './lib/harness.js';
import { startWebhookReceiver } from './lib/webhook-receiver.js';

// Webhooks: the real 44k catalog imported through POST /v1/products (batches of 100, 4 clients) into a
// store with one webhook subscription to every event; a local receiver (this process) answers 200 and
// notes when each event arrives. Throughput = distinct events delivered / time from the first write
// to the last delivery; lag = arrival time - the event's commit time.
if (skipWithoutShared('webhooks.bench')) process.exit(0);

const products = readStyles().map(toProduct);
const batches: Array<Record<string, string>[]> = [];
for (let i = 0; i < products.length; i += 100) batches.push(products.slice(i, i + 100));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function runEngine(engine: 'sqlite' | 'postgres') {
  const db = await freshDatabase(engine);
  const r = await startWebhookReceiver();
  const setup = createContainer(
    loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', VITRINE_ALLOW_PRIVATE_FETCH: 'true' }),
  );
  await migrateToLatest(setup.storage);
  const store = await setup.stores.createStore({ workspaceName: 'Bench', name: 'Bench Store' });
  await setup.webhooks.create(store.store_uuid, { url: r.url });
  await setup.close();
  const server = await startServerProcess('vitrine', {
    DATABASE_URL: db.url,
    VITRINE_RATE_LIMIT: '100000000',
    VITRINE_ALLOW_PRIVATE_FETCH: 'true',
  });
  const headers = { authorization: `Bearer ${store.api_token}`, 'content-type': 'application/json' };
  try {
    const started = Date.now();
    await ingestBatches(`http://127.0.0.1:${server.port}`, store.store_uuid, headers, batches);
    const importSeconds = (Date.now() - started) / 1000;
    const deadline = Date.now() + 300_000;
    while (r.arrivals.size < products.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    if (r.arrivals.size < products.length)
      throw new Error(`only ${r.arrivals.size} of ${products.length} events delivered`);
    const last = Math.max(...r.arrivals.values());
    const lags = [...r.lags].sort((a, b) => a - b);
    return {
      engine,
      importSeconds,
      events: r.arrivals.size,
      deliverySeconds: (last - started) / 1000,
      eventsPerSecond: r.arrivals.size / ((last - started) / 1000),
      lagP50: pct(lags, 0.5),
      lagP99: pct(lags, 0.99),
      ...r.stats(),
    };
  } finally {
    await server.stop();
    await r.close();
    await db.drop();
  }
}

const results = [await runEngine('sqlite')];
if (await postgresAvailable()) results.push(await runEngine('postgres'));
else console.log('webhooks.bench: PostgreSQL not reachable, its half SKIPPED');

const table = [
  `The ${fmt(products.length)}-product catalog imported through \`POST /v1/products\` (100 per batch, 4 clients) into a store with one webhook subscription to every event type; a local receiver answers 200 at once. Default settings: up to 100 events per POST, delivery worker polling every 200 ms.`,
  '',
  '| engine | import s | events delivered | POSTs | duplicates | last delivery after s | **events/s delivered** | **lag p50 / p99 ms** |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.engine} | ${fmt(r.importSeconds, 1)} | ${fmt(r.events)} | ${fmt(r.posts)} | ${fmt(r.duplicates)} | ${fmt(r.deliverySeconds, 1)} | **${fmt(r.eventsPerSecond)}** | **${fmt(r.lagP50)} / ${fmt(r.lagP99)}** |`,
  ),
  '',
  `Lag: the receiver's arrival time minus the event's commit time (\`time\`). The sender commits its cursor and delivery log once per 10 successful POSTs (or per second), not per POST: with one commit per POST it waited behind the import's writes for the writer and trailed by seconds (lag p50 8.0 s on SQLite, 5.5 s on PostgreSQL in the same setting). On PostgreSQL the import and the delivery share the two cores with the database, so delivery trails the import by a few seconds and catches up within about a second of its end. ${machineLine()}.`,
].join('\n');
console.log(table);
recordSection('Webhooks: delivery during a 44k import', table);
