import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '../helpers/write-lock-child.js');

describe('the cluster write lock', () => {
  it('hands back a lock granted after the process stopped waiting, so no writer waits forever', async () => {
    // This test plays the primary: it takes the lock request and grants it only after the wait ended.
    const child = fork(CHILD, { stdio: 'ignore' });
    const messages: Array<{ type: string; id?: number; error?: string }> = [];
    const next = (type: string) =>
      new Promise<{ type: string; id?: number; error?: string }>((resolve, reject) => {
        const found = messages.find((m) => m.type === type);
        if (found) return resolve(found);
        const timer = setTimeout(() => reject(new Error(`no ${type} message`)), 5000);
        const onMessage = (message: { type: string }) => {
          if (message.type !== type) return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve(message);
        };
        child.on('message', onMessage);
      });
    child.on('message', (message: { type: string }) => messages.push(message));
    try {
      const request = await next('vitrine:write-lock');
      const result = await next('test:result');
      assert.equal(result.error, 'the primary process did not answer');
      child.send({ type: 'vitrine:write-lock', id: request.id });
      await next('vitrine:write-unlock');
    } finally {
      child.kill();
    }
  });
});
