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
});
