import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { jsonOf, runCli } from '../helpers/cli.js';
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
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
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
    let batches = 0;
    let writing = true;
    const writes = (async () => {
      while (writing || batches < 5) {
        const items = Array.from({ length: 100 }, (_, i) => ({
          product_code: `b${batches}-${i}`,
          'Product Name': `Shirt ${batches}-${i}`,
          Category: 'Shirts',
          'Selling Price': '10',
        }));
        const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(items) });
        assert.equal(res.status, 200);
        batches++;
      }
    })();
    while (batches < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const file = path.join(dir, 'copy.db');
    const backup = await runCliAsync(live, ['backup', file, '--json']);
    writing = false;
    await writes;
    const summary = jsonOf(backup);
    assert.ok(summary.products > 0 && summary.products % 100 === 0, `whole batches only: ${summary.products}`);
    assert.ok(summary.bytes > 0);
    assert.ok(batches * 100 >= summary.products);

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
