import { buildTestApp } from '../test/helpers/test-app.js';
import { fuzzApi } from '../test/helpers/fuzz.js';
import { fmt, machineLine, postgresAvailable, recordSection } from './lib/harness.js';

// The fuzz suite of `npm test` (test/helpers/fuzz.ts) with a large budget: every operation of the
// OpenAPI document, hostile input, BENCH_FUZZ_RUNS requests per round (default 10,000), three rounds
// per engine, with the process's RSS after each round (does memory keep growing, or level off?).
const RUNS = Number(process.env.BENCH_FUZZ_RUNS ?? 10_000);
const ROUNDS = 3;
const ADMIN = 'fuzz-bench-admin';
const mb = () => process.memoryUsage().rss / 1024 / 1024;

async function runEngine(engine: 'sqlite' | 'postgres') {
  const t = await buildTestApp(engine, { adminToken: ADMIN });
  try {
    const rss = [mb()];
    let requests = 0;
    let serverErrors = 0;
    let outside = 0;
    const examples: string[] = [];
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) {
      const report = await fuzzApi(t, ADMIN, { numRuns: RUNS, seed: 1000 + round });
      requests += report.requests;
      serverErrors += report.serverErrors.length;
      outside += report.outsideEnvelope.length;
      examples.push(...report.serverErrors.slice(0, 3), ...report.outsideEnvelope.slice(0, 3));
      rss.push(mb());
    }
    return { engine, requests, serverErrors, outside, rss, seconds: (performance.now() - started) / 1000, examples };
  } finally {
    await t.close();
  }
}

const results = [await runEngine('sqlite')];
if (await postgresAvailable()) results.push(await runEngine('postgres'));
else console.log('fuzz.bench: PostgreSQL not reachable, its half SKIPPED');

const table = [
  `${ROUNDS} rounds of ${fmt(RUNS)} seeded requests per engine over every operation of the OpenAPI document (hostile path and query values, JSON of any shape and depth, wrong content types, malformed multipart, wrong credentials), in process (\`inject\`).`,
  '',
  '| engine | requests | 5xx | answers outside the envelope or without a request id | RSS MB: start → after each round | s |',
  '|---|---:|---:|---:|---|---:|',
  ...results.map(
    (r) =>
      `| ${r.engine} | ${fmt(r.requests)} | **${fmt(r.serverErrors)}** | **${fmt(r.outside)}** | ${r.rss.map((v) => fmt(v)).join(' → ')} | ${fmt(r.seconds, 1)} |`,
  ),
  '',
  ...(results.some((r) => r.examples.length)
    ? ['Examples:', ...results.flatMap((r) => r.examples.map((e) => `- ${e}`)), '']
    : []),
  `Node-level refusals (431, a malformed request line, 414, invalid percent-encoding) are tested on a real port in test/http/hostile-input.test.ts. ${machineLine()}.`,
].join('\n');
console.log(table);
recordSection('Fuzz: hostile input over every endpoint', table);
