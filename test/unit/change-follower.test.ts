import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeFeed } from '../../src/storage/change-feed.js';
import { ChangeFollower } from '../../src/jobs/change-follower.js';
import type { StorageHandle } from '../../src/storage/database.js';

/** A change feed whose positions the test sets, counting the queries a read makes. */
function feedAt(position: { latest: number; cursor: number }) {
  let queries = 0;
  const changes = {
    positionOf: async () => {
      queries++;
      return { ...position };
    },
  } as unknown as ChangeFeed;
  return { changes, queries: () => queries };
}

describe('ChangeFollower read-your-writes', () => {
  it('asks the database only while this process has not seen the store applied up to the request’s sequence', async () => {
    const position = { latest: 5, cursor: 5 };
    const feed = feedAt(position);
    const follower = new ChangeFollower({} as StorageHandle, feed.changes, 'test', async () => {}, { name: 'test' });
    assert.deepEqual(await follower.readYourWritesAt({ id: 's', changeSeq: 5 }), { lag: 0, cursor: 5 });
    assert.equal(feed.queries(), 1);
    // Seen applied up to 5: a request that read the store at 5 (or before) needs no query.
    assert.deepEqual(await follower.readYourWritesAt({ id: 's', changeSeq: 5 }), { lag: 0, cursor: 5 });
    assert.equal(await follower.readYourWrites({ id: 's', changeSeq: 4 }), 0);
    assert.equal(feed.queries(), 1);
    // Writes this process did not apply (another process's): the store now reads 1,000, so it asks,
    // and finds the backlog too large to apply inline (the read answers from the index as it stands).
    position.latest = 1_000;
    assert.equal(await follower.readYourWrites({ id: 's', changeSeq: 1_000 }), 995);
    assert.equal(await follower.readYourWrites({ id: 's', changeSeq: 1_000 }), 995, 'and asks again next time');
    assert.equal(feed.queries(), 3);
    // Another store, and a caller giving only the id, always ask.
    await follower.readYourWrites({ id: 'other', changeSeq: 1 });
    await follower.readYourWrites('s');
    assert.equal(feed.queries(), 5);
  });
});
