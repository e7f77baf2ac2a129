import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { POSTGRES_SKIP, POSTGRES_URL } from '../helpers/backends.js';
import { startServe, type ServedVitrine } from '../helpers/serve.js';

/** A CLI command that does not block this process (writes keep flowing while it runs). */
function runCliAsync(databaseUrl: string, args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.resolve('bin/vitrine.js'), ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A command that hangs is killed, so the test fails with what it printed instead of waiting.
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * Posts batches of 100 products until stopped (and at least 5). A write that fails ends the loop and
 * fails whoever waits on it, so a failed write cannot leave the test waiting for batches forever.
 */
function keepWriting(url: string, headers: Record<string, string>, item: (batch: number, i: number) => object) {
  let batches = 0;
  let writing = true;
  const done = (async () => {
    while (writing || batches < 5) {
      const items = Array.from({ length: 100 }, (_, i) => item(batches, i));
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(items) });
      assert.equal(res.status, 200, `batch ${batches}: ${await res.text()}`);
      batches++;
    }
  })();
  let failed: Error | undefined;
  done.catch((error: unknown) => (failed = error instanceof Error ? error : new Error(String(error))));
  return {
    batches: () => batches,
    /** Resolves once `count` batches are stored; rejects with the write's error if one failed. */
    async reach(count: number) {
      const deadline = Date.now() + 60_000;
      while (batches < count) {
        if (failed) throw failed;
        if (Date.now() > deadline) throw new Error(`only ${batches} of ${count} batches written in 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop() {
      writing = false;
      return done;
    },
  };
}

describe('vitrine backup / restore (SQLite)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-backup-'));
  const live = `sqlite:${path.join(dir, 'live.db')}`;
  let served: ServedVitrine | undefined;
  after(async () => {
    await served?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('copies a consistent catalog while writes go on, and restores it', async () => {
    assert.equal(runCli(live, ['migrate']).status, 0);
    const store = jsonOf(runCli(live, ['store', 'create', '--workspace-name', 'B', '--name', 'Shop', '--json']));
    served = await startServe(live, {}, ['--processes', '1']);
    const url = `${served.url}/v1/products?store_uuid=${store.store_uuid}`;
    const headers = { authorization: `Bearer ${store.api_token}`, 'content-type': 'application/json' };
    const writer = keepWriting(url, headers, (batch, i) => ({
      product_code: `b${batch}-${i}`,
      'Product Name': `Shirt ${batch}-${i}`,
      Category: 'Shirts',
      'Selling Price': '10',
    }));
    await writer.reach(3);
    const file = path.join(dir, 'copy.db');
    const backup = await runCliAsync(live, ['backup', file, '--json']);
    await writer.stop();
    const summary = jsonOf(backup);
    assert.ok(summary.products > 0 && summary.products % 100 === 0, `whole batches only: ${summary.products}`);
    assert.ok(summary.bytes > 0);
    assert.ok(writer.batches() * 100 >= summary.products);

    const restoredUrl = `sqlite:${path.join(dir, 'restored', 'vitrine.db')}`;
    const restored = jsonOf(runCli(restoredUrl, ['restore', file, '--json']));
    assert.equal(restored.products, summary.products);
    const db = new SqliteDatabase(restoredUrl.slice('sqlite:'.length), { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const seq = db.prepare('SELECT change_seq FROM stores').get() as { change_seq: number };
      const logged = db.prepare('SELECT max(seq) AS m, count(*) AS n FROM change_log').get() as {
        m: number;
        n: number;
      };
      assert.equal(logged.m, seq.change_seq, 'the change log and its counter agree');
      assert.equal(logged.n, summary.products, 'one change per product written');
    } finally {
      db.close();
    }
    // The restored database serves.
    const list = runCli(restoredUrl, ['store', 'list', '--json']);
    assert.equal(jsonOf(list).stores[0].store_uuid, store.store_uuid);
  });

  it('refuses what it cannot do, in one line', () => {
    const notSqlite = path.join(dir, 'not.db');
    fs.writeFileSync(notSqlite, 'hello');
    const bad = runCli(`sqlite:${path.join(dir, 'other.db')}`, ['restore', notSqlite]);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /not a SQLite database/);
    const existing = runCli(live, ['backup', path.join(dir, 'copy.db')]);
    assert.notEqual(existing.status, 0);
    assert.match(existing.stderr, /exists/);
    const postgres = runCli('postgres://postgres@127.0.0.1:1/none', ['backup', path.join(dir, 'pg.db')]);
    assert.notEqual(postgres.status, 0);
    assert.match(postgres.stderr, /pg_dump/);
  });
});

describe('vitrine backup / restore (PostgreSQL)', { skip: POSTGRES_SKIP }, () => {
  const source = cliDatabase('postgres');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-pg-backup-'));
  const databases: string[] = [];
  const served: ServedVitrine[] = [];
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      return await client.query(statement);
    } finally {
      await client.end();
    }
  };
  /** A fresh database with the source's schema name in its URL (pg_restore recreates the schema). */
  const freshTarget = async () => {
    const name = `vitrine_restore_${randomBytes(5).toString('hex')}`;
    await admin(`CREATE DATABASE ${name}`);
    databases.push(name);
    const url = new URL(source());
    url.pathname = `/${name}`;
    return url.toString();
  };
  /** Every row of every table of a database's schema, in a stable order. */
  const rowsOf = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const schema = /search_path=([A-Za-z0-9_]+)/.exec(new URL(url).searchParams.get('options') ?? '')![1];
      const tables = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY 1`,
        [schema],
      );
      const out: Record<string, string[]> = {};
      for (const { table_name: table } of tables.rows) {
        const { rows } = await client.query(`SELECT * FROM "${schema}"."${table}"`);
        out[table] = rows.map((row) => JSON.stringify(row)).sort();
      }
      return out;
    } finally {
      await client.end();
    }
  };
  after(async () => {
    for (const s of served) await s.stop();
    for (const name of databases) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('restores a database that works in public into a new database, as the README says (createdb, then restore)', async () => {
    // A database of its own, in its `public` schema (what an operator has; the suite's databases
    // work in schemas of their own), and another made by createdb: it has a `public` schema already.
    const fresh = async () => {
      const name = `vitrine_public_${randomBytes(5).toString('hex')}`;
      await admin(`CREATE DATABASE ${name}`);
      databases.push(name);
      const url = new URL(POSTGRES_URL);
      url.pathname = `/${name}`;
      url.search = '';
      return url.toString();
    };
    const original = await fresh();
    assert.equal(runCli(original, ['migrate']).status, 0);
    const store = jsonOf(runCli(original, ['store', 'create', '--workspace-name', 'P', '--name', 'Public', '--json']));
    const file = path.join(dir, 'public.dump');
    jsonOf(runCli(original, ['backup', file, '--json']));
    const target = await fresh();
    const restored = runCli(target, ['restore', file, '--json']);
    assert.equal(restored.status, 0, restored.stderr);
    assert.equal(runCli(target, ['migrate']).status, 0);
    const count = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<{ id: string }>('SELECT id FROM public.stores')).rows.map((row) => row.id);
      } finally {
        await client.end();
      }
    };
    assert.deepEqual(await count(target), await count(original));
    assert.ok(store.store_uuid);
  });

  it('dumps one snapshot while writes go on, restores it into an empty database, row for row and answer for answer', async (t) => {
    assert.equal(runCli(source(), ['migrate']).status, 0);
    const store = jsonOf(runCli(source(), ['store', 'create', '--workspace-name', 'B', '--name', 'Shop', '--json']));
    const live = await startServe(source(), {}, ['--processes', '1']);
    served.push(live);
    const url = `${live.url}/v1/products?store_uuid=${store.store_uuid}`;
    const headers = { authorization: `Bearer ${store.api_token}`, 'content-type': 'application/json' };
    const writer = keepWriting(url, headers, (batch, i) => ({
      product_code: `p${batch}-${i}`,
      'Product Name': `${i % 2 ? 'Red' : 'Blue'} Shirt ${batch}-${i}`,
      Category: 'Shirts',
      'Selling Price': '10',
      'Image URL 1': `https://images.example/${batch}-${i}.jpg`,
    }));
    await writer.reach(3);
    // 1. While writes go on: one consistent snapshot.
    const during = path.join(dir, 'during.dump');
    const backup = await runCliAsync(source(), ['backup', during, '--json']);
    await writer.stop();
    jsonOf(backup);
    const first = await freshTarget();
    const restored = jsonOf(runCli(first, ['restore', during, '--json']));
    assert.ok(restored.products > 0 && restored.products % 100 === 0, `whole batches only: ${restored.products}`);
    const consistent = await rowsOf(first);
    const seq = JSON.parse(consistent.stores[0]).change_seq as number;
    assert.equal(consistent.change_log.length, Number(seq), 'the change log and its counter agree');
    assert.equal(consistent.products.length, restored.products);
    t.diagnostic(`snapshot taken while writing: ${restored.products} of ${writer.batches() * 100} products`);
    // Restoring over a catalog is refused.
    const again = runCli(first, ['restore', during]);
    assert.notEqual(again.status, 0);
    assert.match(again.stderr, /already holds a catalog/);
    // 2. Writes stopped: the copy is the source, row for row, and answers as it does. The server stops
    // first: its image pipeline would otherwise go on updating image rows (fetch failures, retries)
    // between the backup and the comparison.
    await live.stop();
    const after = path.join(dir, 'after.dump');
    jsonOf(runCli(source(), ['backup', after, '--json']));
    const second = await freshTarget();
    jsonOf(runCli(second, ['restore', after, '--json']));
    assert.deepEqual(await rowsOf(second), await rowsOf(source()));
    const copy = await startServe(second, {}, ['--processes', '1']);
    served.push(copy);
    const original = await startServe(source(), {}, ['--processes', '1']);
    served.push(original);
    for (const query of ['red shirt', 'blue', 'shirt 4-1']) {
      const ask = async (base: string) => {
        const res = await fetch(`${base}/v1/search?store_uuid=${store.store_uuid}&query=${encodeURIComponent(query)}`, {
          headers,
        });
        return (await res.json()) as { data: unknown };
      };
      assert.deepEqual((await ask(copy.url)).data, (await ask(original.url)).data, query);
    }
  });
});
