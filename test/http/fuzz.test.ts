import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../helpers/test-app.js';
import { fuzzApi, inProcessTarget } from '../helpers/fuzz.js';
import { ADMIN_TOKEN } from '../factories/admin.js';

const ADMIN = ADMIN_TOKEN;

// A small seeded budget here; `npm run bench -- fuzz` runs 10,000 requests per engine.
describeEachDialect(
  'fuzz: every operation, hostile input',
  (ctx) => {
    it('answers every request below 500, in the interface shapes, with a request id', async () => {
      const seed = 20261124;
      const report = await fuzzApi(await inProcessTarget(ctx(), seed), ADMIN, {
        numRuns: Number(process.env.TEST_FUZZ_RUNS ?? 400),
        seed,
      });
      assert.ok(report.requests > 0);
      assert.deepEqual(report.serverErrors, [], 'no 5xx');
      assert.deepEqual(report.outsideEnvelope, [], 'every answer in the envelope');
    });
  },
  { adminToken: ADMIN },
);
