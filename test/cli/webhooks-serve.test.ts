import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { DIALECTS, POSTGRES_SKIP } from '../helpers/backends.js';
import { startServe, type ServedVitrine } from '../helpers/serve.js';
import { startReceiver, until, type Receiver } from '../helpers/receiver.js';
import { verifySignature } from '../../src/modules/webhooks/webhook-signature.js';
import { product as shirt } from '../factories/products.js';

// Faults against a real `vitrine serve`: killed with -9 in the middle of delivery, and a receiver
// that is down for 30 s (a minute with TEST_WEBHOOK_DOWN_MS=60000). The two engines run side by side to keep the suite's time.
const ENV = {
  VITRINE_ALLOW_PRIVATE_FETCH: 'true',
  VITRINE_WEBHOOK_RETRY_MS: '500',
  VITRINE_WEBHOOK_RETRY_MAX_MS: '5000',
  VITRINE_WEBHOOK_BATCH: '20',
};
/** How long the receiver is down: 30 s in npm test (its time budget); TEST_WEBHOOK_DOWN_MS=60000 for a minute. */
const DOWN_MS = Number(process.env.TEST_WEBHOOK_DOWN_MS ?? 30_000);

const product = (code: string, price: number) =>
  shirt(code, {
    'Product Name': `Coat ${code}`,
    Category: 'Coats',
    Department: 'Women',
    'Selling Price': String(price),
    Currency: undefined,
  });

async function writeProducts(served: ServedVitrine, store: { store_uuid: string; api_token: string }, items: object[]) {
  for (let i = 0; i < items.length; i += 100) {
    const res = await fetch(`${served.url}/v1/products?store_uuid=${store.store_uuid}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.api_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(items.slice(i, i + 100)),
    });
    assert.equal(res.status, 200, await res.text());
  }
}

/** Every product's events arrived at least once, and each product's first arrivals are in sequence order. */
function assertNothingLostInOrder(received: Array<Record<string, any>>, expected: Map<string, string[]>) {
  const firstArrival = new Map<string, Array<{ type: string; sequence: number }>>();
  const seen = new Set<string>();
  for (const event of received) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const list = firstArrival.get(event.code) ?? [];
    list.push({ type: event.type, sequence: event.sequence });
    firstArrival.set(event.code, list);
  }
  for (const [code, types] of expected) {
    const got = firstArrival.get(code) ?? [];
    assert.deepEqual(
      got.map((e) => e.type),
      types,
      `events of ${code}`,
    );
    const sequences = got.map((e) => e.sequence);
    assert.deepEqual(
      sequences,
      [...sequences].sort((a, b) => a - b),
      `order of ${code}`,
    );
  }
}

describe('webhooks through vitrine serve', { concurrency: 2 }, () => {
  for (const dialect of DIALECTS) {
    // Its own tests one after the other (a suite inherits its parent's concurrency otherwise).
    describe(`[${dialect}]`, { skip: dialect === 'postgres' && POSTGRES_SKIP, concurrency: 1 }, () => {
      let served: ServedVitrine | undefined;
      let receiver: Receiver;
      after(async () => {
        await served?.stop();
        await receiver?.close();
      });
      const database = cliDatabase(dialect);
      let store: { store_uuid: string; api_token: string };
      let webhook: { id: string; secret: string };
      const cli = (args: string[]) => runCli(database(), args);

      before(async () => {
        receiver = await startReceiver();
        assert.equal(cli(['migrate']).status, 0);
        store = jsonOf(cli(['store', 'create', '--workspace-name', `Wh ${dialect}`, '--name', 'Shop', '--json']));
        process.env.VITRINE_ALLOW_PRIVATE_FETCH = 'true';
        webhook = jsonOf(cli(['webhook', 'add', '--store', store.store_uuid, '--url', receiver.url, '--json']));
      });

      it('delivers every event at least once, in order per product, across a kill -9 in the middle of delivery', async (t) => {
        // A slow receiver, so that the kill lands while batches are being sent.
        receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 60));
        served = await startServe(database(), ENV, ['--processes', '1']);
        const codes = Array.from({ length: 200 }, (_, i) => `k${i}`);
        await writeProducts(
          served,
          store,
          codes.map((code) => product(code, 10)),
        );
        await writeProducts(
          served,
          store,
          codes.map((code) => product(code, 12)),
        );
        await until(() => receiver.posts.length >= 3, 'the first deliveries');
        const before = receiver.events().length;
        served.process.kill('SIGKILL');
        await new Promise((resolve) => served!.process.once('exit', resolve));
        assert.ok(before < 400, `the kill landed mid-delivery (${before} of 400 events received)`);

        served = await startServe(database(), ENV, ['--processes', '1']);
        await until(
          () => new Set(receiver.events().map((e) => e.id)).size >= 400,
          'all 400 events after the restart',
          60_000,
        );
        assertNothingLostInOrder(
          receiver.events(),
          new Map(codes.map((code) => [code, ['product.created', 'product.updated']])),
        );
        t.diagnostic(
          `${dialect}: ${before} of 400 events received before kill -9; ${receiver.events().length - 400} delivered twice after the restart`,
        );
        for (const post of receiver.posts)
          assert.ok(verifySignature(webhook.secret, post.body, post.headers['x-vitrine-signature'] as string));
      });

      it(
        'loses nothing while the receiver is down (30 s, retrying), then catches up',
        { timeout: DOWN_MS + 90_000 },
        async () => {
          receiver.answer = () => 200;
          const received = receiver.events().length;
          await receiver.down();
          const codes = Array.from({ length: 100 }, (_, i) => `k${i}`);
          await writeProducts(
            served!,
            store,
            codes.map((code) => product(code, 15)),
          );
          await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
          const failing = jsonOf(cli(['webhook', 'list', '--store', store.store_uuid, '--json'])).webhooks[0];
          assert.equal(failing.state, 'active');
          assert.ok(failing.attempts >= 3, `retried while down (${failing.attempts} attempts)`);
          assert.match(failing.last_error, /cannot connect/);
          await receiver.up();
          // Every code's update by its own arrival: a count of arrivals also counts the late duplicates
          // of the kill -9 test before (60 in one CI run), and passed before the last updates came.
          const arrived = () =>
            new Set(
              receiver
                .events()
                .slice(received)
                .map((e) => `${e.code}:${e.type}`),
            );
          await until(
            () => codes.every((code) => arrived().has(`${code}:product.updated`)),
            'the events written while down',
            30_000,
          );
          assertNothingLostInOrder(
            receiver.events().slice(received),
            new Map(codes.map((code) => [code, ['product.updated']])),
          );
          const healthy = jsonOf(cli(['webhook', 'list', '--store', store.store_uuid, '--json'])).webhooks[0];
          assert.equal(healthy.attempts, 0);
          const log = jsonOf(cli(['webhook', 'deliveries', webhook.id, '--limit', '500', '--json'])).deliveries;
          assert.ok(log.some((d: { outcome: string }) => d.outcome === 'failed'));
          assert.equal(log[0].outcome, 'delivered');
        },
      );

      it('replays, enables and removes from the CLI; a wrong id fails with one line', async () => {
        const before = receiver.posts.length;
        const replaying = jsonOf(cli(['webhook', 'replay', webhook.id, '--from', '1', '--to', '5', '--json']));
        assert.deepEqual(replaying.replay, { after: 0, upto: 5 });
        await until(() => receiver.posts.slice(before).some((post) => post.json.replay), 'the replayed events');
        const replayed = receiver.posts
          .slice(before)
          .filter((post) => post.json.replay)
          .flatMap((post) => post.json.events);
        assert.deepEqual(
          replayed.map((e) => e.sequence),
          [1, 2, 3, 4, 5],
        );
        assert.equal(jsonOf(cli(['webhook', 'enable', webhook.id, '--json'])).state, 'active');
        const outside = cli(['webhook', 'replay', webhook.id, '--from', '1', '--to', '999999']);
        assert.notEqual(outside.status, 0);
        assert.match(outside.stderr, /'to' must be/);
        assert.deepEqual(jsonOf(cli(['webhook', 'remove', webhook.id, '--json'])), { id: webhook.id, removed: true });
        assert.deepEqual(jsonOf(cli(['webhook', 'list', '--store', store.store_uuid, '--json'])).webhooks, []);
        const unknown = cli(['webhook', 'remove', webhook.id]);
        assert.notEqual(unknown.status, 0);
        assert.equal(unknown.stderr.trim().split('\n').length, 1);
        assert.match(unknown.stderr, /not found/);
        const bad = cli([
          'webhook',
          'add',
          '--store',
          store.store_uuid,
          '--url',
          receiver.url,
          '--event',
          'product.moved',
        ]);
        assert.notEqual(bad.status, 0);
        assert.match(bad.stderr, /product\.moved/);
      });
    });
  }
});
