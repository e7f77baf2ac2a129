import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ImageWorker } from '../../src/modules/visual/image-worker.js';
import type { ImageJobs } from '../../src/modules/visual/image-jobs.js';
import type { VisionClient } from '../../src/vision/vision-client.js';

/** A queue that is always empty and counts how often a lane looked at it. */
function countingQueue() {
  const queue = { claims: 0 };
  const jobs = {
    requeueOtherModels: async () => 0,
    claim: async () => {
      queue.claims++;
      return [];
    },
    release: async () => {},
  } as unknown as ImageJobs;
  const vision = { modelIdentity: () => 'test-model' } as unknown as VisionClient;
  return { queue, jobs, vision };
}

describe('image worker start', () => {
  it('looks at the queue only after firstRunAfterMs, or at once when images are queued here', async () => {
    const { queue, jobs, vision } = countingQueue();
    const worker = new ImageWorker(jobs, vision, { allowPrivateFetch: false, lanes: 1, firstRunAfterMs: 60_000 });
    await worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(queue.claims, 0, 'a backlog waits for the delay');
      worker.wake();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(queue.claims, 1, 'images queued here start at once');
    } finally {
      await worker.stop();
    }
  });

  it('stops at once while it waits out the delay', async () => {
    const { queue, jobs, vision } = countingQueue();
    const worker = new ImageWorker(jobs, vision, { allowPrivateFetch: false, lanes: 2, firstRunAfterMs: 60_000 });
    await worker.start();
    const started = Date.now();
    await worker.stop();
    assert.ok(Date.now() - started < 1_000, 'stop did not wait for the delay');
    assert.equal(queue.claims, 0);
  });
});
