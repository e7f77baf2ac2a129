import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { CreatedStore } from '../../src/modules/stores/stores.service.js';
import { POSTGRES_SKIP, POSTGRES_URL } from '../helpers/backends.js';
import { until } from '../helpers/receiver.js';

// The database refuses (issue 45): every answer is a 502 in the envelope while it lasts, never a 500,
// and the next request after it ends is served, without a restart. Real conditions, not mocks.

interface Served {
  app: FastifyInstance;
  container: Container;
  store: CreatedStore;
}

async function serve(url: string, options = {}): Promise<Served> {
  const storage = openDatabase(url, options);
  await migrateToLatest(storage);
  const container = createContainer(loadConfig({}, { logLevel: 'silent', databaseUrl: url }), { storage });
  const app = await buildApp(container, { logger: false });
  const store = await container.stores.createStore({ workspaceName: 'Refused', name: 'Shop' });
  return { app, container, store };
}

const read = ({ app, store }: Served) =>
  app.inject({
    method: 'GET',
    url: `/v1/stores?store_uuid=${store.store_uuid}`,
    headers: { authorization: `Bearer ${store.api_token}` },
  });

let serial = 0;
const write = ({ app, store }: Served) =>
  app.inject({
    method: 'POST',
    url: `/v1/products?store_uuid=${store.store_uuid}`,
    headers: { authorization: `Bearer ${store.api_token}` },
    payload: [{ product_code: `R${++serial}`, 'Product Name': 'Refused tee', 'Selling Price': '10' }],
  });

function assertUnavailable(res: { statusCode: number; body: string }, what: string) {
  assert.equal(res.statusCode, 502, `${what}: ${res.body}`);
  const body = JSON.parse(res.body) as { status: { code: number; message: string } };
  assert.equal(body.status.code, -1, what);
  assert.match(body.status.message, /unavailable/, what);
}

/** Waits for the first answer after the fault that is not a 502; it must come within 2 s. */
async function recovers(served: Served, request = read) {
  const started = performance.now();
  await until(async () => (await request(served)).statusCode === 200, 'recovery', 2_000);
  return performance.now() - started;
}

describe('PostgreSQL refuses', { skip: POSTGRES_SKIP }, () => {
  // A role of its own, not a superuser: PostgreSQL exempts superusers from connection limits.
  const database = `vitrine_refuse_${randomBytes(5).toString('hex')}`;
  const role = database;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  url.username = role;
  let served: Served;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const terminateBackends = () =>
    admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`,
    );

  before(async () => {
    await admin(`CREATE ROLE ${role} LOGIN`);
    await admin(`CREATE DATABASE ${database} OWNER ${role}`);
    served = await serve(url.toString(), { poolSize: 2 });
  });
  after(async () => {
    await served.app.close();
    await served.container.close();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin(`DROP ROLE IF EXISTS ${role}`);
  });

  it('a database not accepting connections, its backends terminated: 502, then served again within 2 s', async (t) => {
    assert.equal((await read(served)).statusCode, 200);
    await admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    try {
      await terminateBackends();
      for (let i = 0; i < 4; i++) assertUnavailable(await read(served), `read ${i}`);
      assertUnavailable(await write(served), 'write');
    } finally {
      await admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    }
    t.diagnostic(`served again ${Math.round(await recovers(served))} ms after connections were allowed`);
  });

  it('too many connections (a limit of 1, held by another client): 502, then served again', async (t) => {
    await admin(`ALTER DATABASE ${database} CONNECTION LIMIT 1`);
    const holder = new pg.Client({ connectionString: url.toString() });
    try {
      await terminateBackends();
      await holder.connect();
      assertUnavailable(await write(served), 'write');
    } finally {
      await holder.end();
      await admin(`ALTER DATABASE ${database} CONNECTION LIMIT -1`);
    }
    t.diagnostic(`served again ${Math.round(await recovers(served))} ms after the slot was free`);
  });

  it('a read-only database (a replica promoted or demoted): writes are 502, reads go on', async (t) => {
    await admin(`ALTER DATABASE ${database} SET default_transaction_read_only = on`);
    try {
      await terminateBackends();
      await until(async () => (await read(served)).statusCode === 200, 'reads on the read-only database', 2_000);
      assertUnavailable(await write(served), 'write');
    } finally {
      await admin(`ALTER DATABASE ${database} RESET default_transaction_read_only`);
      await terminateBackends();
    }
    t.diagnostic(`writes served again ${Math.round(await recovers(served, write))} ms after`);
  });
});

describe('SQLite refuses', () => {
  let served: Served;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-refuse-'));
    served = await serve(`sqlite:${path.join(dir, 'full.db')}`);
  });
  after(async () => {
    await served.app.close();
    await served.container.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a full disk (the file capped at its size): writes are 502, reads go on, and writes resume once there is room', async () => {
    assert.equal((await write(served)).statusCode, 200);
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(served.container.storage.db);
    await sql.raw(`PRAGMA max_page_count = ${rows[0].page_count}`).execute(served.container.storage.db);
    try {
      let full = false;
      for (let i = 0; i < 50 && !full; i++) {
        const res = await write(served);
        if (res.statusCode !== 200) {
          assertUnavailable(res, 'write on a full disk');
          full = true;
        }
      }
      assert.ok(full, 'the capped file filled up');
      assert.equal((await read(served)).statusCode, 200);
    } finally {
      await sql.raw('PRAGMA max_page_count = 1073741823').execute(served.container.storage.db);
    }
    assert.equal((await write(served)).statusCode, 200);
  });
});
