import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommittedReadCache } from '../../src/storage/committed-cache.js';
import type { StorageHandle } from '../../src/storage/database.js';

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
