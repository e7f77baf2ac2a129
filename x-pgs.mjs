import pg from 'pg';
import { readStyles, toProduct, storeWithProducts, analyzeIfPostgres } from './dist/bench/lib/harness.js';
import { buildQueries } from './dist/bench/lib/search-queries.js';
const rows = readStyles();
const queries = [...new Set(buildQueries(rows, 200, 11).map((q) => q.text))];
const { db, container, store } = await storeWithProducts('postgres', rows.map(toProduct));
await container.searchIndexer.rebuild(store.id);
await analyzeIfPostgres(container);
for (const q of queries) await container.search.search(store, { query: q, offset: 0, limit: 20 });
const stats = new Map(); let on = false;
const orig = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, values, cb) {
  if (!on || typeof config !== 'object' && typeof config !== 'string') return orig.call(this, config, values, cb);
  const text = (typeof config === 'string' ? config : config.text).replace(/\s+/g, ' ').slice(0, 110);
  const t = performance.now();
  const r = orig.call(this, config, values, cb);
  if (r && typeof r.then === 'function') r.then(() => { const e = stats.get(text) ?? [0, 0]; e[0]++; e[1] += performance.now() - t; stats.set(text, e); }, () => {});
  return r;
};
on = true;
const times = [];
for (const q of queries) { const t = performance.now(); await container.search.search(store, { query: q, offset: 0, limit: 20 }); times.push(performance.now() - t); }
on = false;
times.sort((a, b) => a - b);
console.log('p50', times[Math.floor(times.length / 2)].toFixed(2), 'p99', times[Math.floor(times.length * 0.99)].toFixed(2), 'n', queries.length);
console.log([...stats.entries()].sort((a, b) => b[1][1] - a[1][1]).slice(0, 14).map(([k, [n, ms]]) => `${(ms / queries.length).toFixed(2)} ms/search ${(n / queries.length).toFixed(2)} calls ${(ms/n).toFixed(2)} ms/call | ${k}`).join('\n'));
await container.close(); await db.drop();
