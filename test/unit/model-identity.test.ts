import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VisionClient } from '../../src/vision/vision-client.js';
import { DEFAULT_MODEL_PATH } from '../../src/vision/embedder.js';
import { DEFAULT_HEAD_PATH } from '../../src/vision/embedding-head.js';

describe('the model identity', () => {
  it('is read from the model files without starting the vision thread, and is the one the thread reports', async () => {
    const vision = new VisionClient({ modelPath: DEFAULT_MODEL_PATH, headPath: DEFAULT_HEAD_PATH, threads: 1 });
    try {
      const identity = vision.modelIdentity();
      assert.match(identity, /^mobilenetv2-12-int8-embed@[0-9a-f]{12}\+fashion-head@[0-9a-f]{12}$/);
      assert.equal(vision.generation, 0, 'no thread started');
      assert.equal((await vision.info()).model, identity);
    } finally {
      await vision.close();
    }
  });

  it('ends the thread after its idle time and starts a new one (a new generation) on the next use', async () => {
    const vision = new VisionClient({ modelPath: DEFAULT_MODEL_PATH, headPath: DEFAULT_HEAD_PATH, threads: 1 }, 200);
    try {
      await vision.info();
      assert.equal(vision.generation, 1);
      // Each use starts the countdown again.
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 120));
        await vision.info();
      }
      assert.equal(vision.generation, 1, 'used within its idle time: the same thread');
      await new Promise((resolve) => setTimeout(resolve, 600));
      await vision.info();
      assert.equal(vision.generation, 2, 'idle: ended, and started again');
    } finally {
      await vision.close();
    }
  });
});
