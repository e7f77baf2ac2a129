import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';

// The status listing's physical limit: the same service call in a loop on one core, no HTTP.
const container = createContainer(loadConfig(process.env, { logLevel: 'silent' }));
const store = await container.stores.getStore(process.env.BENCH_STORE!);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const page = { offset: 0, limit: 100 };
for (let i = 0; i < 200; i++) await container.productQueries.statusListing(store, page);
let calls = 0;
const started = process.hrtime.bigint();
const deadline = started + BigInt(seconds * 1e9);
while (process.hrtime.bigint() < deadline) {
  // Each request comes in a turn of the event loop of its own (what is read once per turn, such as
  // SQLite's committed version, is read once per call here too).
  await new Promise((resolve) => setImmediate(resolve));
  // The same work the route does per request: resolve the store, then list.
  await container.tokens.authenticateForStore(process.env.BENCH_TOKEN!, store.id);
  await container.productQueries.statusListing(store, page);
  calls++;
}
const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(`RESULT ${calls / elapsed}\n`);
await container.close();
