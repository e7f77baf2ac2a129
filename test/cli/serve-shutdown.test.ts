import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { startServe, type ServedVitrine } from '../helpers/serve.js';
import { until } from '../helpers/receiver.js';

// SIGTERM while background work waits on the network: an image URL and a webhook receiver that
// accept the connection and never answer. The server stops at once instead of running out their
// timeouts, and the work is handed back, not recorded as failed.
describe('vitrine serve stops promptly while fetches and deliveries hang', () => {
  const database = cliDatabase('sqlite');
  const sockets = new Set<Socket>();
  let requests = 0;
  const hanging = http.createServer(() => {
    requests++; // never answered
  });
  hanging.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  let base = '';
  let served: ServedVitrine | undefined;
  before(async () => {
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });
  after(async () => {
    await served?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it('exits within 3 s of SIGTERM and leaves the images pending', async () => {
    const cli = (args: string[]) => runCli(database(), args);
    assert.equal(cli(['migrate']).status, 0);
    const store = jsonOf(cli(['store', 'create', '--workspace-name', 'Stop', '--name', 'Shop', '--json']));
    process.env.VITRINE_ALLOW_PRIVATE_FETCH = 'true';
    jsonOf(cli(['webhook', 'add', '--store', store.store_uuid, '--url', `${base}/hook`, '--json']));
    served = await startServe(database(), { VITRINE_ALLOW_PRIVATE_FETCH: 'true' }, ['--processes', '1']);
    const res = await fetch(`${served.url}/v1/products?store_uuid=${store.store_uuid}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.api_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        Array.from({ length: 4 }, (_, i) => ({
          product_code: `h${i}`,
          'Product Name': `Hat ${i}`,
          Category: 'Caps',
          'Image URL 1': `${base}/img/${i}.jpg`,
        })),
      ),
    });
    assert.equal(res.status, 200);
    // Both the image fetches and the webhook POST are in flight, waiting.
    await until(() => requests >= 5, 'the image fetches and the webhook POST to hang', 10_000);

    const exited = new Promise((resolve) => served!.process.once('exit', resolve));
    const started = Date.now();
    served.process.kill('SIGTERM');
    await exited;
    const ms = Date.now() - started;
    assert.ok(ms < 3000, `stopped in ${ms} ms`);

    const status = jsonOf(cli(['images', 'status', '--store', store.store_uuid, '--json']));
    assert.equal(status.failed, 0, 'a stopped fetch is not a failure');
    assert.equal(status.pending, 4);
    const [webhook] = jsonOf(cli(['webhook', 'list', '--store', store.store_uuid, '--json'])).webhooks;
    assert.equal(webhook.attempts, 0, 'a stopped delivery is not a failed attempt');
    assert.equal(webhook.cursor_sequence, 0, 'and it is sent again later');
  });
});
