import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeqCache } from '../../src/storage/seq-cache.js';

const store = (changeSeq: number) => ({ id: 'store-1', changeSeq });

describe('SeqCache', () => {
  it('computes once per sequence, and again when the sequence moves', async () => {
    const cache = new SeqCache();
    let computed = 0;
    const compute = async () => ++computed;
    assert.equal(await cache.get(store(1), 'k', compute), 1);
    assert.equal(await cache.get(store(1), 'k', compute), 1);
    assert.equal(await cache.get(store(2), 'k', compute), 2);
    assert.equal(await cache.get(store(2), 'other', compute), 3);
  });

  it('shares one computation between requests that miss together', async () => {
    const cache = new SeqCache();
    let computed = 0;
    let finish!: (n: number) => void;
    const compute = () => {
      computed++;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const waiting = [cache.get(store(1), 'k', compute), cache.get(store(1), 'k', compute)];
    finish(42);
    assert.deepEqual(await Promise.all(waiting), [42, 42]);
    assert.equal(computed, 1);
  });

  it('forgets a computation that failed', async () => {
    const cache = new SeqCache();
    await assert.rejects(cache.get(store(1), 'k', () => Promise.reject(new Error('database gone'))));
    assert.equal(await cache.get(store(1), 'k', async () => 7), 7);
  });
});

describe('SeqCache memory budget', () => {
  it('evicts the least recently used values once their estimated sizes pass the budget', async () => {
    const cache = new SeqCache('pages', 1_000);
    let computed = 0;
    const page = (key: string) =>
      cache.get(
        store(1),
        key,
        async () => ++computed,
        () => 400,
      );
    await page('a');
    await page('b');
    await page('a'); // a hit, and now the most recently used
    assert.equal(computed, 2);
    await page('c'); // a, b and c weigh more than 1,000 bytes: b goes
    await page('a');
    assert.equal(computed, 3);
    await page('b');
    assert.equal(computed, 4);
  });

  it('computes every time with a budget of 0', async () => {
    const cache = new SeqCache('off', 0);
    let computed = 0;
    await cache.get(store(1), 'k', async () => ++computed);
    await cache.get(store(1), 'k', async () => ++computed);
    assert.equal(computed, 2);
  });
});
