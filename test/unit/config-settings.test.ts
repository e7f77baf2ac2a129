import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadConfig, SETTINGS, settingsTable } from '../../src/config.js';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../README.md');

describe('settings: one table', () => {
  it("README › Running it lists exactly the table's settings (npm run settings writes it)", () => {
    const readme = fs.readFileSync(README, 'utf8');
    const start = readme.indexOf('<!-- settings:start');
    const end = readme.indexOf('<!-- settings:end -->');
    assert.ok(start >= 0 && end > start, 'README has the settings markers');
    const section = readme.slice(readme.indexOf('\n', start) + 1, end).trim();
    assert.equal(section, settingsTable(), 'README settings table is stale: run npm run settings');
  });

  it('every variable is read, documented and unique', () => {
    const names = SETTINGS.map((s) => s.variable);
    assert.equal(new Set(names).size, names.length);
    for (const setting of SETTINGS) assert.ok(setting.meaning.length > 10 && setting.default !== '', setting.variable);
  });

  it('defaults need no environment, and a bad value stops start-up naming its variable', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.databaseUrl, 'sqlite:./var/vitrine.db');
    assert.equal(config.visualIndexBytes, 1024 * 1024 * 1024);
    assert.equal(config.webhooks.batchSize, 100);
    assert.equal('redisUrl' in config, false);
    for (const [env, message] of [
      [{ PORT: '70000' }, /PORT must be a port number/],
      [{ PORT: 'eighty' }, /PORT must be a whole number/],
      [{ VITRINE_WEBHOOK_BATCH: '0' }, /VITRINE_WEBHOOK_BATCH must be from 1 to 1000/],
      [
        { VITRINE_WEBHOOK_RETRY_MS: '5000', VITRINE_WEBHOOK_RETRY_MAX_MS: '10' },
        /VITRINE_WEBHOOK_RETRY_MAX_MS must be at least/,
      ],
      [{ VITRINE_VISUAL_INDEX_MB: '0' }, /VITRINE_VISUAL_INDEX_MB must be at least 1/],
      [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
      [{ VITRINE_ALLOW_PRIVATE_FETCH: 'maybe' }, /VITRINE_ALLOW_PRIVATE_FETCH must be true or false/],
      [{ VITRINE_MEDIA_S3_BUCKET: 'b' }, /needs AWS_ACCESS_KEY_ID/],
    ] as const)
      assert.throws(() => loadConfig(env), message, JSON.stringify(env));
    // Overrides (tests, CLI flags) are checked like the environment.
    assert.throws(() => loadConfig({}, { processes: 0 }), /VITRINE_PROCESSES must be from 1 to 256/);
  });
});
