import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { CommittedReadCache } from '../../src/storage/committed-cache.js';
import type { StorageHandle } from '../../src/storage/database.js';
import { openSqlite } from '../../src/storage/sqlite.js';

/** A storage whose commit counter the test moves by hand. */
function storageAt(version: { value: number } | undefined) {
  return { committedVersion: version && (() => version.value) } as unknown as StorageHandle;
}

describe('CommittedReadCache', () => {
  it('answers from memory until anything is committed, then loads again', async () => {
    const version = { value: 1 };
    const cache = new CommittedReadCache<string>(storageAt(version));
    let loads = 0;
    const load = async () => `value ${++loads}`;
    assert.equal(await cache.get('k', load), 'value 1');
    assert.equal(await cache.get('k', load), 'value 1');
    version.value = 2;
    assert.equal(await cache.get('k', load), 'value 2');
    assert.equal(await cache.get('other', load), 'value 3');
    assert.equal(loads, 3);
  });

  it('does not keep what was loaded while a commit happened', async () => {
    const version = { value: 1 };
    const cache = new CommittedReadCache<string>(storageAt(version));
    let loads = 0;
    await cache.get('k', async () => {
      version.value = 2; // committed by someone else during the lookup
      return `value ${++loads}`;
    });
    assert.equal(await cache.get('k', async () => `value ${++loads}`), 'value 2');
  });

  it('keeps no answer for nothing found, and every answer where commits cannot be seen', async () => {
    const version = { value: 1 };
    const cache = new CommittedReadCache<string | undefined>(storageAt(version));
    let loads = 0;
    await cache.get('missing', async () => (loads++, undefined));
    await cache.get('missing', async () => (loads++, undefined));
    assert.equal(loads, 2);
    const uncached = new CommittedReadCache<number>(storageAt(undefined));
    let counter = 0;
    await uncached.get('k', async () => ++counter);
    assert.equal(await uncached.get('k', async () => ++counter), 2);
  });

  it('stays within its size', async () => {
    const cache = new CommittedReadCache<number>(storageAt({ value: 1 }), 2);
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => 1);
    let reloaded = false;
    await cache.get('a', async () => ((reloaded = true), 1));
    assert.equal(reloaded, true);
  });
});

describe('SQLite committed version', () => {
  it("is read once per turn of the event loop, and again at once after this process's own write", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-version-'));
    const file = path.join(dir, 'db.sqlite');
    const storage = openSqlite(`sqlite:${file}`);
    const other = new SqliteDatabase(file); // another process's connection
    try {
      await sql`create table t (x integer)`.execute(storage.db);
      const version = storage.committedVersion!;
      const before = version();
      // This process's write is seen by the very next read, in the same turn.
      await sql`insert into t values (1)`.execute(storage.db);
      const afterOwnWrite = version();
      assert.notEqual(afterOwnWrite, before);
      // Another connection's commit counts from the next turn: the requests of this turn arrived before it.
      other.prepare('insert into t values (2)').run();
      assert.equal(version(), afterOwnWrite);
      await new Promise((resolve) => setImmediate(resolve));
      assert.notEqual(version(), afterOwnWrite);
    } finally {
      other.close();
      await storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
