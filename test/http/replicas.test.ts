import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { walPosition, type ReplicaProbe } from '../../src/storage/replicas.js';
import type { PostgresOptions } from '../../src/storage/postgres.js';
import { POSTGRES_SKIP, POSTGRES_URL } from '../helpers/backends.js';
import { until } from '../helpers/receiver.js';
import { startReplica, type Replica } from '../helpers/replica.js';
import { product } from '../factories/products.js';

interface Served {
  app: FastifyInstance;
  container: Container;
  storeUuid: string;
  /** Two full tokens of the store's workspace: a write by one says nothing about the other's reads. */
  writer: string;
  other: string;
  close(): Promise<void>;
}

async function serveWithReplicas(readUrl: string, options: PostgresOptions): Promise<Served> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const storage = openDatabase(POSTGRES_URL, { schema, poolSize: 4, readUrls: [readUrl], ...options });
  await migrateToLatest(storage);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-data-'));
  const config = loadConfig(
    {},
    {
      logLevel: 'silent',
      dataDir,
      databaseUrl: POSTGRES_URL,
      rateLimitPerMinute: 100_000,
      replicaMaxLagMs: options.replicaMaxLagMs,
    },
  );
  const container = createContainer(config, { storage });
  const app = await buildApp(container, { logger: false });
  await app.ready();
  const store = await container.stores.createStore({ workspaceName: `ws-${schema}`, name: 'Replica Store' });
  const other = await container.tokens.createToken(store.workspace_id);
  return {
    app,
    container,
    storeUuid: store.store_uuid,
    writer: store.api_token,
    other: other.api_token,
    async close() {
      await app.close();
      await container.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

/** Statements of read requests by the server that answered them, from /metrics. */
async function routed(app: FastifyInstance): Promise<Record<string, number>> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^vitrine_routed_statements\{server="([^"]+)"\} (\d+)/gm))
    counts[match[1]] = Number(match[2]);
  return counts;
}

/** Runs `read` and says which servers answered its statements. */
async function servedBy(app: FastifyInstance, read: () => Promise<unknown>): Promise<string[]> {
  const before = await routed(app);
  await read();
  const after = await routed(app);
  return Object.keys(after).filter((server) => after[server] > (before[server] ?? 0));
}

const readyz = async (app: FastifyInstance) => (await app.inject({ method: 'GET', url: '/readyz' })).json();

function client(served: Served) {
  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    served.app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${token}` } });
  const products = `/v1/products?store_uuid=${served.storeUuid}`;
  return {
    write: (token: string, items: unknown[]) => call(token, 'POST', products, items),
    list: (token: string) => call(token, 'GET', `${products}&limit=100`),
    names: async (token: string) =>
      (await call(token, 'GET', `${products}&limit=100`))
        .json()
        .data.products.map((p: any) => p['Product Name']) as string[],
  };
}

describe('Read replicas with injected lag (DATABASE_READ_URLS)', { skip: POSTGRES_SKIP }, () => {
  // The "replica" is the primary itself, so every answer is current; what a real replica would have
  // replayed is injected through the probe, and the routing is read from /metrics.
  let served: Served;
  let replayed: 'live' | bigint = 'live';
  let down = false;
  const probe = async (pool: pg.Pool): Promise<ReplicaProbe> => {
    if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5499');
    if (replayed !== 'live') return { inRecovery: true, replayed };
    const { rows } = await pool.query<{ p: string }>('SELECT pg_current_wal_lsn()::text AS p');
    return { inRecovery: true, replayed: walPosition(rows[0].p) };
  };
  before(async () => {
    served = await serveWithReplicas(POSTGRES_URL, { replicaMaxLagMs: 400, replicaProbe: probe });
  });
  after(() => served?.close());

  it('sends reads to a replica that has the caller’s writes, and a caller’s read after its own write to the primary', async () => {
    const api = client(served);
    const write = await api.write(served.writer, [product('A1', { 'Product Name': 'First dress' })]);
    assert.equal(write.statusCode, 200, write.body);
    await until(async () => (await readyz(served.app)).replicas?.[0].state === 'ok', 'the replica is looked at');
    // Caught up: the writer's reads go to the replica.
    await served.container.storage.replicas!.poll();
    assert.deepEqual(await servedBy(served.app, () => api.list(served.writer)), ['replica-1']);

    // The replica stops replaying here; the writer writes again.
    const primary = new pg.Client({ connectionString: POSTGRES_URL });
    await primary.connect();
    const { rows } = await primary.query<{ p: string }>('SELECT pg_current_wal_lsn()::text AS p');
    await primary.end();
    replayed = walPosition(rows[0].p)!;
    await served.container.storage.replicas!.poll();
    const second = await api.write(served.writer, [product('A2', { 'Product Name': 'Second dress' })]);
    assert.equal(second.statusCode, 200, second.body);
    // The writer's next read cannot use a replica that misses its write: the primary answers, with it.
    const writerServers = await servedBy(served.app, async () =>
      assert.deepEqual((await api.names(served.writer)).sort(), ['First dress', 'Second dress']),
    );
    assert.deepEqual(writerServers, ['primary']);
    // Another token wrote nothing: its reads still go to the replica (within the lag limit).
    assert.deepEqual(await servedBy(served.app, () => api.list(served.other)), ['replica-1']);
  });

  it('skips a replica that lags beyond VITRINE_REPLICA_MAX_LAG_MS or does not answer, names it in /readyz, and uses it again once back', async () => {
    const api = client(served);
    replayed = 1n; // replays nothing from now on
    await served.container.storage.replicas!.poll();
    await api.write(served.writer, [product('A3')]);
    await until(async () => (await readyz(served.app)).replicas[0].state === 'lagging', 'the replica lags', 5_000);
    const lagging = await readyz(served.app);
    assert.equal(lagging.status, 'degraded');
    assert.match(lagging.replicas[0].reason, /ms behind the primary \(VITRINE_REPLICA_MAX_LAG_MS 400\)/);
    assert.deepEqual(await servedBy(served.app, () => api.list(served.other)), ['primary']);
    const metrics = (await served.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /vitrine_replica_usable\{replica="replica-1"\} 0/);

    down = true;
    await served.container.storage.replicas!.poll();
    const unreachable = await readyz(served.app);
    assert.equal(unreachable.replicas[0].state, 'down');
    assert.match(unreachable.replicas[0].reason, /ECONNREFUSED/);
    assert.deepEqual(await servedBy(served.app, () => api.list(served.other)), ['primary']);

    down = false;
    replayed = 'live';
    await until(async () => (await readyz(served.app)).status === 'ok', 'the replica is back', 5_000);
    assert.deepEqual(await servedBy(served.app, () => api.list(served.other)), ['replica-1']);
  });

  it('keeps writes, transactions and requests without a token on the primary', async () => {
    const api = client(served);
    assert.deepEqual(await servedBy(served.app, () => api.write(served.other, [product('B1')])), []);
    assert.deepEqual(
      await servedBy(served.app, () => served.app.inject({ method: 'GET', url: '/readyz' })),
      [],
      'unrouted: no token',
    );
  });
});

describe('Read replicas: a real streaming standby (pg_basebackup -R)', { skip: POSTGRES_SKIP }, () => {
  let replica: Replica | string = 'not started';
  let served: Served | undefined;
  before(async () => {
    replica = await startReplica();
    if (typeof replica === 'string') return;
    served = await serveWithReplicas(replica.url, { replicaMaxLagMs: 1_000 });
  });
  after(async () => {
    await served?.close();
    if (typeof replica !== 'string') await replica.stop();
  });

  it('reads from the standby, reads the writer’s own writes at once while replay is paused, skips it once it lags, and uses it again', async (t) => {
    if (typeof replica === 'string' || !served) return t.skip(typeof replica === 'string' ? replica : 'no app');
    const standby = replica;
    const api = client(served);
    assert.equal((await api.write(served.writer, [product('R1', { 'Product Name': 'Linen shirt' })])).statusCode, 200);
    await until(async () => (await readyz(served!.app)).status === 'ok', 'the standby replays the store');
    // Past the writer's mark (the lag limit and one look), any token reads from the standby.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    let names: string[] = [];
    const servers = await servedBy(served.app, async () => (names = await api.names(served!.writer)));
    assert.deepEqual(names, ['Linen shirt']);
    assert.deepEqual(servers, ['replica-1']);
    t.diagnostic(`standby caught up: ${JSON.stringify((await readyz(served.app)).replicas)}`);

    await standby.query('SELECT pg_wal_replay_pause()');
    await served.container.storage.replicas!.poll();
    assert.equal((await api.write(served.writer, [product('R2', { 'Product Name': 'Wool coat' })])).statusCode, 200);
    // The writer at once: the paused standby misses its write, so the primary answers, with it.
    let writerNames: string[] = [];
    const writerServers = await servedBy(served.app, async () => (writerNames = await api.names(served!.writer)));
    assert.deepEqual(writerNames.sort(), ['Linen shirt', 'Wool coat']);
    assert.deepEqual(writerServers, ['primary']);
    // Another token within the lag limit reads the standby as it stands: without the new coat.
    let otherNames: string[] = [];
    const otherServers = await servedBy(served.app, async () => (otherNames = await api.names(served!.other)));
    t.diagnostic(
      `paused standby: the writer read ${writerNames.length} products from ${writerServers.join(', ')}, another token ${otherNames.length} from ${otherServers.join(', ')}`,
    );
    if (otherServers.includes('replica-1')) assert.deepEqual(otherNames, ['Linen shirt']);

    await until(
      async () => (await readyz(served!.app)).replicas[0].state === 'lagging',
      'the paused standby lags',
      10_000,
    );
    const lagging = await readyz(served.app);
    t.diagnostic(`lagging standby: ${JSON.stringify(lagging.replicas)}`);
    assert.equal(lagging.status, 'degraded');
    assert.deepEqual(await servedBy(served.app, () => api.list(served!.other)), ['primary']);

    await standby.query('SELECT pg_wal_replay_resume()');
    const resumed = Date.now();
    await until(async () => (await readyz(served!.app)).status === 'ok', 'the standby catches up', 5_000);
    t.diagnostic(`standby usable again ${Date.now() - resumed} ms after replay resumed`);
    assert.deepEqual((await api.names(served.other)).sort(), ['Linen shirt', 'Wool coat']);
  });
});
