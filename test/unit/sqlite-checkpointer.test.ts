import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { BackgroundCheckpointer } from '../../src/storage/sqlite-checkpointer.js';

const pause = () => new Promise((resolve) => setTimeout(resolve, 1));

/** A database file of its own in WAL mode, set up as the storage layer opens one, with a table `t`. */
function walDatabase() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-checkpoint-'));
  const file = path.join(dir, 'db.sqlite');
  const writer = new SqliteDatabase(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.exec('create table t (id integer primary key, v text not null)');
  return { dir, file, writer };
}

describe('BackgroundCheckpointer', () => {
  it('moves checkpoints to its thread once the log is large, starts the log over while holding the writer, and leaves no log behind', async () => {
    const { dir, file, writer } = walDatabase();
    let writerHeld = false;
    let restarts = 0;
    // 1. the writer is "held" as the storage layer holds it: the writes below wait for it.
    const checkpointer = new BackgroundCheckpointer(
      file,
      writer,
      async (work) => {
        writerHeld = true;
        restarts++;
        try {
          await work();
        } finally {
          writerHeld = false;
        }
      },
      256, // restart past 1 MB of log
    );
    const insert = writer.prepare('insert into t (v) values (?)');
    try {
      // 2. a small log: no thread
      for (let i = 0; i < 64; i++) {
        insert.run('x'.repeat(100));
        checkpointer.wrote();
      }
      assert.equal(checkpointer.running, false);
      // 3. 16 MB written, one 4 KB row a write, with pauses as a server's event loop has
      for (let i = 0; i < 4_000; i++) {
        while (writerHeld) await pause();
        insert.run('y'.repeat(4_000));
        checkpointer.wrote();
        if (i % 10 === 0) await pause();
      }
      assert.equal(checkpointer.running, true);
      assert.equal(writer.pragma('wal_autocheckpoint', { simple: true }), 16_384);
      // The log was started over (the writer's own checkpoint would have let it grow to 64 MB).
      // Started over: the log holds fewer frames than the 4,000 writes (a frame or more each) made.
      assert.ok(restarts > 0, 'a restart was asked for');
      const { log } = writer.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number };
      assert.ok(log < 3_000, `the log was started over (${log} frames)`);
      assert.equal((writer.prepare('select count(*) as n from t').get() as { n: number }).n, 4_064);
    } finally {
      await checkpointer.stop();
      assert.equal(checkpointer.running, false);
      writer.close();
    }
    // 4. the last connection to close copies the log in and removes it
    assert.equal(fs.existsSync(`${file}-wal`), false);
    const reopened = new SqliteDatabase(file, { readonly: true });
    assert.equal((reopened.prepare('select count(*) as n from t').get() as { n: number }).n, 4_064);
    reopened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds the writer only briefly, and seldom, while a long read keeps the log from being started over', async () => {
    const { dir, file, writer } = walDatabase();
    writer.prepare('insert into t (v) values (?)').run('first');
    // 1. a reader inside a transaction keeps its snapshot (an export streaming a catalog, say)
    const reader = new SqliteDatabase(file, { readonly: true });
    reader.exec('begin');
    reader.prepare('select count(*) from t').get();
    let holds = 0;
    let heldMs = 0;
    let heldSince: number | undefined;
    const checkpointer = new BackgroundCheckpointer(
      file,
      writer,
      async (work) => {
        holds++;
        heldSince = performance.now();
        await work();
        heldMs += performance.now() - heldSince;
        heldSince = undefined;
      },
      256,
    );
    const insert = writer.prepare('insert into t (v) values (?)');
    try {
      // 2. 2 s of writes, with pauses as a server's event loop has
      const until = performance.now() + 2_000;
      for (let i = 0; performance.now() < until; i++) {
        while (heldSince !== undefined && performance.now() < until) await pause();
        insert.run('z'.repeat(4_000));
        checkpointer.wrote();
        if (i % 10 === 0) await pause();
      }
      if (heldSince !== undefined) heldMs += performance.now() - heldSince;
      assert.equal(checkpointer.running, true);
      // The restart cannot finish while the reader stays: asked once, then not again for 5 s.
      assert.ok(holds >= 1 && holds <= 2, `restarts asked for: ${holds}`);
      assert.ok(heldMs < 600, `the writer was held ${heldMs.toFixed(0)} ms`);
    } finally {
      reader.exec('commit');
      reader.close();
      await checkpointer.stop();
      writer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
