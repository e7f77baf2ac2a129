import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { openTestStorage } from '../helpers/test-app.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { compileShopperSerializers, SHOPPER_ROUTES } from '../../src/http/lazy-serializers.js';

/** A container over a migrated SQLite database in memory, closed (with its data folder) after `work`. */
async function withContainer(work: (container: Container) => Promise<void>) {
  const storage = await openTestStorage('sqlite');
  await migrateToLatest(storage);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-schemas-'));
  const container = createContainer(loadConfig({}, { logLevel: 'silent', dataDir, databaseUrl: 'sqlite::memory:' }), {
    storage,
  });
  try {
    await work(container);
  } finally {
    await container.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// Response serializers are compiled when a route first answers (src/http/lazy-serializers.ts), so a
// response schema fast-json-stringify cannot compile would only fail at that answer. Compiled all at
// once here: every route's every response schema compiles.
describe('response schemas', () => {
  it('every response schema of every route compiles', () =>
    withContainer(async (container) => {
      const app = await buildApp(container, { logger: false, eagerSerializers: true });
      await app.ready();
      assert.ok(app.printRoutes().length > 0);
      await app.close();
    }));

  it("compiles the shopper routes' answers ahead, and each route it names exists", () =>
    withContainer(async (container) => {
      const app = await buildApp(container, { logger: false });
      await app.ready();
      const compiled = await compileShopperSerializers(app);
      for (const url of SHOPPER_ROUTES)
        assert.ok(
          compiled.some((route) => route.split(' ')[1] === url),
          `${url}: no 2xx answer compiled (${compiled.join(', ')})`,
        );
      assert.ok(compiled.every((route) => / 2\d\d$/.test(route)));
      // Built with every serializer at start, there is nothing left to compile ahead.
      const eager = await buildApp(container, { logger: false, eagerSerializers: true });
      assert.deepEqual(await compileShopperSerializers(eager), []);
      await eager.close();
      await app.close();
    }));
});
