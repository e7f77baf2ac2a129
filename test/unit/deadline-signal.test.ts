import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { deadlineSignal } from '../../src/net/safe-fetch.js';

/** A full collection, without running the tests with --expose-gc. */
function collectGarbage() {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

describe('deadlineSignal', () => {
  it('fires after its time even when nothing else holds it and the heap is collected meanwhile', async () => {
    // AbortSignal.any over AbortSignal.timeout did not fire at all here (Node 20, nodejs/node#57736).
    const outer = new AbortController();
    const ends = Array.from({ length: 20 }, () => aborted(deadlineSignal(150, outer.signal).signal));
    for (let i = 0; i < 4; i++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const reasons = await Promise.race([
      Promise.all(ends),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3000)),
    ]);
    assert.ok(Array.isArray(reasons), 'every deadline fired');
    for (const reason of reasons) assert.equal((reason as Error).name, 'TimeoutError');
  });

  it('aborts with the outer signal, and lets go of it once cleared', async () => {
    const outer = new AbortController();
    const first = deadlineSignal(60_000, outer.signal);
    const second = deadlineSignal(60_000, outer.signal);
    second.clear();
    outer.abort();
    assert.equal(first.signal.aborted, true);
    assert.equal((first.signal.reason as Error).name, 'AbortError');
    assert.equal(second.signal.aborted, false, 'a cleared deadline no longer follows the outer signal');
    first.clear();
    const already = deadlineSignal(60_000, outer.signal);
    assert.equal(already.signal.aborted, true, 'an outer signal aborted beforehand ends it at once');
    already.clear();
  });
});
