import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

// A body over the limit (issue 45): the client that keeps sending it reads the 413 envelope, with
// Connection: close, instead of a reset (EPIPE / ECONNRESET) — over a real socket, as clients send.

/** Sends `bytes` of a JSON array in 64 KB writes and resolves with the answer, or the socket error. */
function sendLarge(port: number, path: string, bytes: number, token: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string } | { error: string }>(
    (resolve) => {
      const request = http.request({
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(bytes),
          authorization: `Bearer ${token}`,
        },
      });
      request.on('response', (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      });
      request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < bytes) {
          const size = Math.min(chunk.length, bytes - sent);
          sent += size;
          if (!request.write(size === chunk.length ? chunk : chunk.subarray(0, size)))
            return void request.once('drain', pump);
        }
        request.end();
      };
      request.write('[');
      sent = 1;
      pump();
    },
  );
}

describe('bodies over the limit over a real socket', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await t.close();
  });

  it('answers a 12 MB product batch with the 413 envelope and Connection: close, every time, never a reset', async () => {
    for (let i = 0; i < 10; i++) {
      const answer = await sendLarge(
        port,
        `/v1/products?store_uuid=${t.store.store_uuid}`,
        12 * 1024 * 1024,
        t.store.api_token,
      );
      assert.ok(!('error' in answer), `attempt ${i}: ${'error' in answer ? answer.error : ''}`);
      assert.equal(answer.status, 413, answer.body);
      assert.equal(answer.headers.connection, 'close');
      assert.match(answer.body, /larger than/);
    }
  });
});
