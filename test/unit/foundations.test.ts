import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { chunked } from '../../src/storage/chunks.js';
import { sqliteDialect } from '../../src/storage/sqlite.js';
import { postgresDialect } from '../../src/storage/postgres.js';
import { BoundedCache } from '../../src/storage/bounded-cache.js';
import { priceOf, isValidPrice } from '../../src/catalog/price.js';
import { firstImageUrl, TEXT_FIELDS, CANONICAL_FIELDS } from '../../src/catalog/product-fields.js';
import { parseEncoding, parseFormat } from '../../src/catalog/import-formats.js';
import { PollingWorker, WorkerRegistry } from '../../src/jobs/workers.js';
import { hashApiToken, secretsEqual } from '../../src/modules/stores/api-tokens.js';

describe('chunked', () => {
  it('never binds more parameters than the dialect allows, and honours a cap of its own', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => i);
    for (const dialect of [sqliteDialect, postgresDialect]) {
      const chunks = chunked(dialect, items, { paramsPerItem: 12 });
      assert.ok(
        chunks.every((c) => c.length * 12 + 16 <= dialect.maxParameters),
        dialect.name,
      );
      assert.deepEqual(chunks.flat(), items);
    }
    assert.ok(chunked({ dialect: sqliteDialect }, items, { maxItems: 500 }).every((c) => c.length <= 500));
    assert.deepEqual(chunked(sqliteDialect, []), []);
  });
});

describe('BoundedCache', () => {
  it('evicts the least recently used entries beyond its byte budget and tells the owner', () => {
    const evicted: string[] = [];
    const cache = new BoundedCache<{ size: number }>(
      'test',
      100,
      (v) => v.size,
      (key) => evicted.push(key),
    );
    cache.set('a', { size: 40 });
    cache.set('b', { size: 40 });
    assert.ok(cache.get('a')); // a is now the most recently used
    cache.set('c', { size: 40 });
    assert.equal(cache.get('b'), undefined);
    assert.deepEqual(evicted, ['b']);
    assert.equal(cache.stats().evictions, 1);
    // An entry that grew is re-weighed when set again.
    const a = cache.get('a')!;
    a.size = 90;
    cache.set('a', a);
    assert.equal(cache.get('c'), undefined);
    // One entry larger than the whole budget is still kept (the store being served needs it).
    cache.set('huge', { size: 1000 });
    assert.ok(cache.get('huge'));
    cache.close();
  });
});

describe('catalog rules', () => {
  it('prices: only what the quality check accepts is a price anywhere', () => {
    assert.equal(priceOf('49.90'), 49.9);
    assert.equal(priceOf(' 49 '), 49);
    assert.equal(priceOf('49.12345'), null);
    assert.equal(priceOf('1e5'), null);
    assert.equal(priceOf('-3'), null);
    assert.equal(priceOf(''), null);
    assert.equal(priceOf(12.5), 12.5);
    assert.equal(priceOf(Number.NaN), null);
    assert.equal(isValidPrice('49.1234'), true);
  });

  it('fields, formats and encodings have one definition', () => {
    assert.equal(firstImageUrl({ 'Image URL 2': ' https://x/2.jpg ', 'Image URL 1': '' }), 'https://x/2.jpg');
    assert.ok(TEXT_FIELDS.has('Colour') && !TEXT_FIELDS.has('Status'));
    assert.ok(CANONICAL_FIELDS.includes('Sub Category'));
    assert.equal(parseEncoding('ISO-8859-1'), 'latin1');
    assert.equal(parseEncoding(undefined), undefined);
    assert.throws(() => parseEncoding('ebcdic'), /encoding must be one of/);
    assert.equal(parseFormat(undefined, 'x.jsonl'), 'ndjson');
    assert.throws(() => parseFormat('xml', 'x.csv'), /format must be one of/);
  });
});

describe('background workers', () => {
  it('a wake during a run makes exactly one more run; stop waits for the run in progress', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const worker = new PollingWorker('test.work', 60_000, async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
    });
    const registry = new WorkerRegistry();
    assert.throws(() => registry.register(worker), /not in the role table/);
    registry.register(worker, { module: 'test', roles: ['api'] });
    assert.throws(() => registry.register(worker, { module: 'test', roles: ['api'] }), /registered twice/);
    await registry.start('worker');
    assert.equal(runs, 0, 'not a worker-role job');
    await registry.start('api');
    assert.equal(runs, 1);
    registry.wake('test.work');
    registry.wake('test.work');
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(runs, 2);
    release();
    await registry.stop();
    assert.equal(registry.status()[0].running, false);
    assert.equal(registry.status()[0].runs, 2);
  });

  it('waits firstRunAfterMs before its first run (housekeeping after a start), and a stop cancels it', async () => {
    let runs = 0;
    const later = new PollingWorker('test.later', 60_000, async () => void runs++, undefined, { firstRunAfterMs: 30 });
    later.start();
    assert.equal(runs, 0, 'not at start');
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(runs, 1, 'after the delay');
    await later.stop();
    const stopped = new PollingWorker('test.stopped', 60_000, async () => void runs++, undefined, {
      firstRunAfterMs: 30,
    });
    stopped.start();
    await stopped.stop();
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(runs, 1, 'a stopped worker never runs');
  });

  it('records a failed run and keeps working', async () => {
    const errors: string[] = [];
    let fail = true;
    const worker = new PollingWorker(
      'test.flaky',
      60_000,
      async () => {
        if (fail) throw new Error('boom');
      },
      (name, error) => errors.push(`${name}: ${(error as Error).message}`),
    );
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 10));
    fail = false;
    worker.wake();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await worker.stop();
    assert.deepEqual(errors, ['test.flaky: boom']);
    assert.equal(worker.status().failures, 1);
    assert.equal(worker.status().lastError, 'boom');
  });
});

describe('API token hashing', () => {
  it('stores SHA-256 in hex, so the hashes stored by earlier versions still match', () => {
    assert.equal(hashApiToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // UTF-8 bytes, as before: SHA-256 of U+00E9 (C3 A9).
    assert.equal(hashApiToken('é'), '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('compares secrets of any length', () => {
    assert.equal(secretsEqual('admin-secret', 'admin-secret'), true);
    assert.equal(secretsEqual('admin-secret', 'admin-secreT'), false);
    assert.equal(secretsEqual('short', 'a much longer secret'), false);
  });
});

describe('background work: one role table', () => {
  it('every worker a process registers is in the table, declared by its module, and the table holds no other', async () => {
    const { createContainer } = await import('../../src/container.js');
    const { loadConfig } = await import('../../src/config.js');
    const { WORKER_PLACEMENT } = await import('../../src/jobs/worker-roles.js');
    const container = createContainer(loadConfig({}, { databaseUrl: 'sqlite::memory:', logLevel: 'silent' }));
    try {
      assert.deepEqual(container.workers.names().sort(), Object.keys(WORKER_PLACEMENT).sort());
      const src = new URL('../../../src/modules/', import.meta.url);
      for (const [name, placement] of Object.entries(WORKER_PLACEMENT)) {
        const jobs = fs.readFileSync(new URL(`${placement.module}/${placement.module}.jobs.ts`, src), 'utf8');
        assert.match(
          jobs,
          new RegExp(`\`${name.replace('.', '\\.')}\``),
          `${name} is described in its module's jobs file`,
        );
      }
      assert.deepEqual(container.workers.names('api-replica'), ['complements.warm']);
      assert.ok(!container.workers.names('api', { offload: true }).includes('visual.embed'));
      assert.ok(container.workers.names('worker').includes('visual.embed'));
    } finally {
      await container.close();
    }
  });
});
