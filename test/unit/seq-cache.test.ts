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

  it("drops a store's entries of an older sequence when the sequence moves, and keeps no older one", async () => {
    const cache = new SeqCache();
    const other = { id: 'store-2', changeSeq: 1 };
    for (const key of ['a', 'b', 'c']) await cache.get(store(1), key, async () => key);
    await cache.get(other, 'a', async () => 'other');
    assert.equal(cache.size, 4);
    // store-1 moves to 2: its three entries can answer nothing any more; store-2's stays
    assert.equal(await cache.get(store(2), 'a', async () => 'a2'), 'a2');
    assert.equal(cache.size, 2);
    // a request that read store-1 before that write computes, and keeps nothing
    assert.equal(await cache.get(store(1), 'b', async () => 'b1'), 'b1');
    assert.equal(cache.size, 2);
    assert.equal(await cache.get(store(2), 'a', async () => 'again'), 'a2');
    assert.equal(await cache.get(other, 'a', async () => 'again'), 'other');
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
    const cache = new SeqCache('pages', 2_000);
    let computed = 0;
    const page = (key: string) =>
      cache.get(
        store(1),
        key,
        async () => ++computed,
        () => 600,
      );
    await page('a');
    await page('b');
    await page('a'); // a hit, and now the most recently used
    assert.equal(computed, 2);
    await page('c'); // a, b and c weigh more than 2,000 bytes (each about 900 with its key and entry): b goes
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
