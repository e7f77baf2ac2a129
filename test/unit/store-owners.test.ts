import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreOwners } from '../../src/cluster/store-owners.js';

/** Process 0 of 2; `sizes` are the stores' product counts; records every count asked for. */
function ownersOf(sizes: Record<string, number>, options: { largeStoreProducts?: number; fail?: boolean } = {}) {
  const counted: string[] = [];
  const handedBack: string[] = [];
  const owners = new StoreOwners(0, 2, options.largeStoreProducts ?? 100, {
    productsUpTo: async (storeId, limit) => {
      counted.push(storeId);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (options.fail) throw new Error('database down');
      return Math.min(limit, sizes[storeId] ?? 0);
    },
    onHandedBack: (storeId) => handedBack.push(storeId),
  });
  return { owners, counted, handedBack };
}

/** Store ids whose owner is process 1 (of 2), and ones whose owner is process 0. */
function storesOwnedBy(owners: StoreOwners, index: number, count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) if (owners.ownerOf(`store-${i}`) === index) ids.push(`store-${i}`);
  return ids;
}

describe('StoreOwners', () => {
  it('spreads stores over the processes by id, the same way in every process', () => {
    const { owners } = ownersOf({});
    const other = new StoreOwners(1, 2, 1, { productsUpTo: async () => 0 });
    const ids = Array.from({ length: 1000 }, (_, i) => `${i.toString(16)}-4f1e-9a3c-${i * 7919}`);
    const first = ids.filter((id) => owners.ownerOf(id) === 0).length;
    assert.ok(first > 400 && first < 600, `${first} of 1000 stores on process 0`);
    for (const id of ids) assert.equal(owners.ownerOf(id), other.ownerOf(id));
  });

  it("forwards a large store's calls to its process, and serves small stores, its own and those of a process that is down", async () => {
    const { owners } = ownersOf({});
    const [theirs, smallTheirs] = storesOwnedBy(owners, 1, 2);
    const [mine] = storesOwnedBy(owners, 0, 1);
    const sized = ownersOf({ [theirs]: 500, [mine]: 500, [smallTheirs]: 3 });
    assert.equal(await sized.owners.peerPortFor(theirs), undefined, 'no port known yet: process 1 is not up');
    sized.owners.setPorts({ 0: 4100, 1: 4101 });
    assert.equal(await sized.owners.peerPortFor(theirs), 4101);
    assert.equal(await sized.owners.peerPortFor(mine), undefined);
    assert.equal(await sized.owners.peerPortFor(smallTheirs), undefined, 'a small store: served here');
    assert.equal(sized.owners.forwarded, 1);
    sized.owners.setPorts({ 0: 4100 });
    assert.equal(await sized.owners.peerPortFor(theirs), undefined, 'process 1 restarting: served here');
  });

  it('counts a store once for the calls that arrive together, and again after a failed count', async () => {
    const probe = ownersOf({});
    const [theirs] = storesOwnedBy(probe.owners, 1, 1);
    const { owners, counted } = ownersOf({ [theirs]: 500 });
    owners.setPorts({ 0: 4100, 1: 4101 });
    const ports = await Promise.all(Array.from({ length: 5 }, () => owners.peerPortFor(theirs)));
    assert.deepEqual(ports, Array(5).fill(4101), 'none is served here while the store is being counted');
    assert.equal(counted.length, 1);

    const failing = ownersOf({ [theirs]: 500 }, { fail: true });
    failing.owners.setPorts({ 0: 4100, 1: 4101 });
    await assert.rejects(failing.owners.peerPortFor(theirs), /database down/);
    await assert.rejects(failing.owners.peerPortFor(theirs), /database down/);
    assert.equal(failing.counted.length, 2, 'a failed count is not remembered');
  });

  it('is off with one process or a threshold of 0', async () => {
    const single = new StoreOwners(0, 1, 1, { productsUpTo: async () => 9 });
    const off = new StoreOwners(0, 2, 0, { productsUpTo: async () => 9 });
    assert.equal(single.enabled, false);
    assert.equal(off.enabled, false);
    off.setPorts({ 0: 1, 1: 2 });
    for (let i = 0; i < 8; i++) assert.equal(await off.peerPortFor(`store-${i}`), undefined);
  });

  it("drops what it built for another process's large store once that process is back", async () => {
    const probe = ownersOf({});
    const [theirs] = storesOwnedBy(probe.owners, 1, 1);
    const [mine] = storesOwnedBy(probe.owners, 0, 1);
    const { owners, handedBack } = ownersOf({ [theirs]: 500, [mine]: 500 });
    owners.setPorts({ 0: 4100, 1: 4101 });
    await owners.peerPortFor(theirs);
    await owners.peerPortFor(mine);
    owners.setPorts({ 0: 4100 });
    assert.deepEqual(handedBack, []);
    owners.setPorts({ 0: 4100, 1: 4102 });
    assert.deepEqual(handedBack, [theirs]);
  });
});
