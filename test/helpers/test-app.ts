import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { openDatabase } from '../../src/storage/database.js';
import type { StorageHandle } from '../../src/storage/dialect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { conformanceFor, type OpenApiConformance } from './openapi-conformance.js';
import type { CreatedStore } from '../../src/modules/stores/stores.service.js';
import { DIALECTS, POSTGRES_SKIP, POSTGRES_URL } from './backends.js';

export type Dialect = 'sqlite' | 'postgres';

export interface TestApp {
  dialect: Dialect;
  app: FastifyInstance;
  container: Container;
  /** A store created through the service, with its workspace's token. */
  store: CreatedStore;
  /** inject() with the store's token unless `headers.authorization` is given. */
  request(options: InjectOptions & { token?: string | null }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A fresh, migrated database: SQLite in memory, or a PostgreSQL schema of its own. */
export async function openTestStorage(dialect: Dialect): Promise<StorageHandle> {
  if (dialect === 'sqlite') {
    // A file, as deployed: it exercises the read-only connection that per-request lookups use.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-test-'));
    const storage = openDatabase(`sqlite:${path.join(dir, 'test.db')}`);
    return {
      ...storage,
      async close() {
        await storage.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const storage = openDatabase(POSTGRES_URL, { schema, poolSize: 6 });
  return {
    ...storage,
    async close() {
      await storage.close();
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

export async function buildTestApp(dialect: Dialect, overrides: Partial<Config> = {}): Promise<TestApp> {
  const storage = await openTestStorage(dialect);
  await migrateToLatest(storage);
  // Uploaded media and import files go to a folder of the test's own, removed with it.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-data-'));
  const config = loadConfig(
    {},
    {
      logLevel: 'silent',
      dataDir,
      databaseUrl: dialect === 'sqlite' ? 'sqlite::memory:' : POSTGRES_URL,
      rateLimitPerMinute: 100_000,
      ...overrides,
    },
  );
  const container = createContainer(config, { storage });
  const app = await buildApp(container, { logger: false });
  await app.ready();
  let conformance: OpenApiConformance | undefined;
  const store = await container.stores.createStore({
    workspaceName: `ws-${randomBytes(4).toString('hex')}`,
    name: 'Test Store',
    channels: ['web', 'app'],
    countries: ['FR'],
  });
  return {
    dialect,
    app,
    container,
    store,
    async request({ token, ...options }) {
      const headers: Record<string, string> = { ...(options.headers as Record<string, string> | undefined) };
      if (token !== null && headers.authorization === undefined)
        headers.authorization = `Bearer ${token ?? store.api_token}`;
      const res = await app.inject({ ...options, headers });
      if (process.env.OPENAPI_CONFORMANCE === 'off') return res;
      conformance ??= conformanceFor(app.swagger());
      const url = typeof options.url === 'string' ? options.url : (options.path ?? '');
      const wrong = conformance.check(options.method ?? 'GET', typeof url === 'string' ? url : '', res);
      if (wrong) {
        if (process.env.OPENAPI_CONFORMANCE === 'report') console.log(`OPENAPI MISMATCH: ${wrong}`);
        else throw new Error(`the answer is not as /openapi.json documents it: ${wrong}`);
      }
      return res;
    },
    async close() {
      await app.close();
      await container.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Declares a suite once per engine (TEST_DIALECTS, default both). The PostgreSQL half is skipped,
 * and says so, when PostgreSQL is not reachable.
 */
export function describeEachDialect(
  name: string,
  body: (ctx: () => TestApp, dialect: Dialect) => void,
  overrides: Partial<Config> = {},
) {
  for (const dialect of DIALECTS) {
    describe(`${name} [${dialect}]`, { skip: dialect === 'postgres' ? POSTGRES_SKIP : false }, () => {
      let testApp: TestApp | undefined;
      before(async () => {
        testApp = await buildTestApp(dialect, overrides);
      });
      after(async () => {
        await testApp?.close();
      });
      body(() => testApp!, dialect);
    });
  }
}

export function json<T = any>(response: LightMyRequestResponse): T {
  return response.json<T>();
}
