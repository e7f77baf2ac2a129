import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LiveStoreIndex, type LiveIndex } from '../../src/storage/live-store-index.js';

interface CountIndex extends LiveIndex {
  values: number[];
}

/** A live index over a fake change log: `log[storeId]` is the list of changes; each change is a value. */
function harness(options: { budgetBytes?: number; retainedFrom?: number } = {}) {
  const log = new Map<string, number[]>();
  const calls = { builds: 0, follows: 0, dropped: [] as string[] };
  let gate: Promise<void> = Promise.resolve();
  const index = new LiveStoreIndex<CountIndex>({
    name: 'test.index',
    budgetBytes: options.budgetBytes ?? 1_000_000,
    sizeOf: (i) => 100 + i.values.length * 10,
    onDrop: (storeId) => calls.dropped.push(storeId),
    build: async (storeId, target) => {
      calls.builds++;
      await gate;
      const values = [...(log.get(storeId) ?? [])];
      return { seq: values.length, key: target.key, values };
    },
    follow: async (storeId, i, target) => {
      calls.follows++;
      await gate;
      // A pruned range cannot be followed: the index is rebuilt.
      if (i.seq < (options.retainedFrom ?? 0)) return false;
      const all = log.get(storeId) ?? [];
      i.values.push(...all.slice(i.seq, Math.max(target.seq, all.length)));
      i.seq = all.length;
      return true;
    },
  });
  return {
    index,
    calls,
    append: (storeId: string, ...values: number[]) => log.set(storeId, [...(log.get(storeId) ?? []), ...values]),
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        release();
        gate = Promise.resolve();
      };
    },
  };
}

describe('LiveStoreIndex', () => {
  it('builds on first use, then follows the log instead of rebuilding', async () => {
    const h = harness();
    h.append('s', 1, 2);
    assert.deepEqual((await h.index.current('s', { seq: 2, key: 'k' })).values, [1, 2]);
    h.append('s', 3);
    assert.deepEqual((await h.index.current('s', { seq: 3, key: 'k' })).values, [1, 2, 3]);
    // Already current: neither built nor followed.
    await h.index.current('s', { seq: 2, key: 'k' });
    assert.deepEqual(h.calls, { builds: 1, follows: 1, dropped: [] });
  });

  it('rebuilds when the key changes or the range cannot be followed', async () => {
    const h = harness({ retainedFrom: 5 });
    h.append('s', 1);
    await h.index.current('s', { seq: 1, key: 'model-a' });
    await h.index.current('s', { seq: 1, key: 'model-b' });
    assert.equal(h.calls.builds, 2);
    h.append('s', 2);
    const rebuilt = await h.index.current('s', { seq: 2, key: 'model-b' });
    assert.deepEqual(rebuilt.values, [1, 2]);
    assert.deepEqual([h.calls.builds, h.calls.follows], [3, 1]);
  });

  it('shares one build among concurrent requests, and a later target waits for it then catches up', async () => {
    const h = harness();
    h.append('s', 1);
    const release = h.hold();
    const first = h.index.current('s', { seq: 1, key: 'k' });
    const second = h.index.current('s', { seq: 1, key: 'k' });
    assert.ok(h.index.inFlight('s'));
    h.append('s', 2);
    const later = h.index.current('s', { seq: 2, key: 'k' });
    release();
    const [a, b, c] = await Promise.all([first, second, later]);
    assert.equal(a, b);
    assert.ok(c.seq >= 2);
    assert.equal(h.calls.builds, 1);
    assert.equal(h.index.inFlight('s'), undefined);
  });

  it('a failed build is not cached: the next request builds again', async () => {
    const h = harness();
    let fail = true;
    const flaky = new LiveStoreIndex<CountIndex>({
      name: 'flaky',
      budgetBytes: 1000,
      sizeOf: () => 1,
      build: async (_s, target) => {
        if (fail) throw new Error('database away');
        return { seq: target.seq, key: target.key, values: [] };
      },
      follow: async () => true,
    });
    await assert.rejects(flaky.current('s', { seq: 0, key: 'k' }), /database away/);
    fail = false;
    assert.equal((await flaky.current('s', { seq: 0, key: 'k' })).seq, 0);
    assert.equal(h.calls.builds, 0);
  });

  it('stays within its memory budget, dropping the least recently used store', async () => {
    const h = harness({ budgetBytes: 250 });
    for (const store of ['a', 'b', 'c']) {
      h.append(store, 1);
      await h.index.current(store, { seq: 1, key: 'k' });
    }
    assert.deepEqual(h.calls.dropped, ['a']);
    assert.equal(h.index.peek('a'), undefined);
    assert.ok(h.index.stats().bytes <= 250);
    h.index.invalidate('b');
    assert.deepEqual(h.calls.dropped, ['a', 'b']);
    h.index.close();
    assert.deepEqual(h.calls.dropped, ['a', 'b', 'c']);
  });

  it('counts a read through `used` as a use, and one through `peek` not', async () => {
    const h = harness({ budgetBytes: 250 });
    for (const store of ['a', 'b']) {
      h.append(store, 1);
      await h.index.current(store, { seq: 1, key: 'k' });
    }
    assert.ok(h.index.peek('a'));
    h.append('c', 1);
    await h.index.current('c', { seq: 1, key: 'k' });
    assert.deepEqual(h.calls.dropped, ['a']);
    assert.ok(h.index.used('b'));
    h.append('d', 1);
    await h.index.current('d', { seq: 1, key: 'k' });
    assert.deepEqual(h.calls.dropped, ['a', 'c']);
  });
});
