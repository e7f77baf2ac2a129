import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { buildTestApp, describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { startReceiver, until, type Receiver } from '../helpers/receiver.js';
import { verifySignature } from '../../src/modules/webhooks/webhook-signature.js';
import { ADMIN_TOKEN } from '../factories/admin.js';
import { product as shirt } from '../factories/products.js';

const ADMIN = ADMIN_TOKEN;
const OVERRIDES = {
  adminToken: ADMIN,
  allowPrivateFetch: true,
  webhooks: { timeoutMs: 2000, retryBaseMs: 100, retryMaxMs: 400, giveUpHours: 24, batchSize: 50 },
};

const product = (code: string, extra: Record<string, unknown> = {}) =>
  shirt(code, { 'Selling Price': '20', Currency: undefined, ...extra });

const admin = (t: TestApp, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) =>
  t.request({
    method,
    url: `/admin/v1/stores/${t.store.store_uuid}/webhooks${path}`,
    token: ADMIN,
    ...(payload && { payload }),
  });

async function subscribe(t: TestApp, url: string, eventTypes?: string[]) {
  const res = await admin(t, 'POST', '', { url, ...(eventTypes && { event_types: eventTypes }) });
  assert.equal(res.statusCode, 201, res.body);
  return json(res).data as { id: string; secret: string };
}

const write = (t: TestApp, method: 'POST' | 'PUT', items: object[]) =>
  t.request({ method, url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: items });

const deliveries = async (t: TestApp, id: string) =>
  json(await admin(t, 'GET', `/${id}/deliveries`)).data as Array<Record<string, any>>;

describeEachDialect(
  'webhooks',
  (ctx) => {
    const receivers: Receiver[] = [];
    const receiver = async () => {
      const r = await startReceiver();
      receivers.push(r);
      return r;
    };
    before(() => ctx().container.webhookDispatcher.start());
    after(async () => {
      await ctx().container.webhookDispatcher.stop();
      for (const r of receivers) await r.close();
    });

    it('subscribes (secret shown once) and delivers signed events in order, at least once', async () => {
      const t = ctx();
      const r = await receiver();
      const created = await subscribe(t, r.url);
      assert.match(created.secret, /^whsec_/);
      const listed = json(await admin(t, 'GET', '')).data;
      assert.equal(listed.length, 1);
      assert.equal(listed[0].secret, undefined, 'the secret is not shown again');
      assert.equal(listed[0].state, 'active');

      await write(t, 'POST', [product('s1'), product('s2')]);
      await write(t, 'PUT', [{ product_code: 's1', 'Selling Price': '25' }]);
      await write(t, 'PUT', [{ product_code: 's2', Status: 'inactive' }]);
      await until(() => r.events().length >= 4, 'four events');
      const events = r.events();
      assert.deepEqual(
        events.map((e) => `${e.type} ${e.code}`),
        ['product.created s1', 'product.created s2', 'product.updated s1', 'product.status_changed s2'],
      );
      assert.deepEqual(events[2].fields, ['Selling Price']);
      for (const post of r.posts) {
        const signature = post.headers['x-vitrine-signature'] as string;
        assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
        assert.ok(verifySignature(created.secret, post.body, signature), 'the signature verifies');
        assert.ok(!verifySignature(created.secret, `${post.body} `, signature), 'and fails on another body');
        assert.equal(post.json.store_uuid, t.store.store_uuid);
        assert.equal(post.json.replay, false);
      }
      await until(
        async () => (await deliveries(t, created.id)).reduce((n, d) => n + d.events, 0) >= 4,
        'the deliveries in the log',
      );
      const log = await deliveries(t, created.id);
      assert.ok(log.every((d) => d.outcome === 'delivered' && d.status_code === 200));
      const sub = json(await admin(t, 'GET', `/${created.id}`)).data;
      assert.equal(sub.cursor_sequence, events[3].sequence);
      assert.ok(sub.last_success_at);
      await admin(t, 'DELETE', `/${created.id}`);
    });

    it('delivers only the event types asked for, and refuses unknown ones naming them', async () => {
      const t = ctx();
      const bad = await admin(t, 'POST', '', {
        url: 'http://127.0.0.1:9/x',
        event_types: ['product.deleted', 'product.exploded'],
      });
      assert.equal(bad.statusCode, 422);
      assert.match(json(bad).detail, /product\.exploded/);
      const r = await receiver();
      const created = await subscribe(t, r.url, ['product.deleted']);
      await write(t, 'POST', [product('d1')]);
      await t.request({ method: 'DELETE', url: `/v1/products?store_uuid=${t.store.store_uuid}&sku_codes=d1` });
      await until(() => r.events().length >= 1, 'the delete event');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        r.events().map((e) => e.type),
        ['product.deleted'],
      );
      await admin(t, 'DELETE', `/${created.id}`);
    });

    it('retries a receiver that answers 500 then 200 (nothing lost), and one that hangs without holding up others', async () => {
      const t = ctx();
      const flaky = await receiver();
      flaky.answer = (_post, call) => (call < 2 ? 500 : 200);
      const hanging = await receiver();
      hanging.answer = () => 'hang';
      const healthy = await receiver();
      const subs = [await subscribe(t, flaky.url), await subscribe(t, hanging.url), await subscribe(t, healthy.url)];
      const started = Date.now();
      await write(t, 'POST', [product('f1'), product('f2')]);
      await until(() => healthy.events().length >= 2, 'the healthy receiver');
      assert.ok(
        Date.now() - started < 1500,
        `the healthy receiver waited ${Date.now() - started} ms (the hanging one: 2 s)`,
      );
      await until(() => flaky.events().length >= 2, 'the flaky receiver, after retries');
      assert.deepEqual(
        flaky.events().map((e) => e.code),
        ['f1', 'f2'],
      );
      // The receiver has the events before the sender commits its log entry: wait for that too.
      await until(
        async () => (await deliveries(t, subs[0].id)).some((d) => d.outcome === 'delivered'),
        'the delivered entry in the log',
      );
      const flakyLog = await deliveries(t, subs[0].id);
      assert.deepEqual(flakyLog.map((d) => d.outcome).reverse(), ['failed', 'failed', 'delivered']);
      // The hanging receiver's attempt is logged once its 2 s timeout ends (that timeout once never
      // fired when the heap was collected meanwhile: see test/unit/deadline-signal.test.ts).
      await until(async () => (await deliveries(t, subs[1].id)).length > 0, 'a timed-out attempt');
      const hung = await deliveries(t, subs[1].id);
      assert.equal(hung[0].outcome, 'failed');
      assert.match(hung[0].error, /no answer within/);
      const state = json(await admin(t, 'GET', `/${subs[1].id}`)).data;
      assert.ok(state.attempts >= 1 && state.failing_since, 'it is failing and will be retried');
      for (const sub of subs) await admin(t, 'DELETE', `/${sub.id}`);
    });

    it('disables a subscription on 410, does not follow redirects, does not retry other 4xx; the operator re-enables', async () => {
      const t = ctx();
      const gone = await receiver();
      gone.answer = (_post, call) => (call === 0 ? 410 : 200);
      const redirecting = await receiver();
      const target = await receiver();
      redirecting.answer = () => ({ status: 302, headers: { location: target.url } });
      const refusing = await receiver();
      refusing.answer = (_post, call) => (call === 0 ? 400 : 200);
      const subs = [
        await subscribe(t, gone.url),
        await subscribe(t, redirecting.url),
        await subscribe(t, refusing.url),
      ];
      await write(t, 'POST', [product('g1')]);

      await until(async () => json(await admin(t, 'GET', `/${subs[0].id}`)).data.state === 'disabled', 'disabled');
      const disabled = json(await admin(t, 'GET', `/${subs[0].id}`)).data;
      assert.match(disabled.disabled_reason, /410/);
      await until(async () => (await deliveries(t, subs[1].id)).length > 0, 'a redirect answer');
      const redirected = await deliveries(t, subs[1].id);
      assert.equal(redirected[0].outcome, 'failed');
      assert.equal(redirected[0].status_code, 302);
      assert.match(redirected[0].error, /redirects are not followed/);
      assert.equal(target.calls, 0, 'the redirect target was never called');
      await until(async () => (await deliveries(t, subs[2].id)).length > 0, 'the 400 answer');
      await write(t, 'POST', [product('g2')]);
      await until(() => refusing.events().length >= 1, 'the next event after the rejected one');
      assert.deepEqual(
        refusing.events().map((e) => e.code),
        ['g2'],
        'the rejected event is not sent again',
      );
      assert.equal((await deliveries(t, subs[2].id)).at(-1)!.outcome, 'rejected');

      // Re-enabled by the operator: it resumes from its cursor (the event it answered 410 to).
      const enabled = await admin(t, 'POST', `/${subs[0].id}/enable`);
      assert.equal(json(enabled).data.state, 'active');
      await until(() => gone.events().length >= 2, 'delivery after re-enabling');
      assert.deepEqual(
        gone.events().map((e) => e.code),
        ['g1', 'g2'],
      );
      for (const sub of subs) await admin(t, 'DELETE', `/${sub.id}`);
    });

    it('replays a retained range (flagged), and refuses one outside the retention or the log', async () => {
      const t = ctx();
      const r = await receiver();
      const sub = await subscribe(t, r.url, ['product.created']);
      await write(t, 'POST', [product('p1'), product('p2'), product('p3')]);
      await until(() => r.events().length >= 3, 'three events');
      const [, second, third] = r.events();
      const res = await admin(t, 'POST', `/${sub.id}/replay`, { from: second.sequence, to: third.sequence });
      assert.equal(res.statusCode, 200, res.body);
      await until(() => r.events().length >= 5, 'the replayed events');
      const replayed = r.posts.filter((post) => post.json.replay).flatMap((post) => post.json.events);
      assert.deepEqual(
        replayed.map((e) => e.id),
        [second.id, third.id],
        'the same event ids: receivers de-duplicate on them',
      );
      const latest = json(await t.request({ method: 'GET', url: `/v1/changes?store_uuid=${t.store.store_uuid}` })).data
        .latest_sequence as number;
      const beyond = await admin(t, 'POST', `/${sub.id}/replay`, { from: 1, to: latest + 10 });
      assert.equal(beyond.statusCode, 422);
      assert.match(json(beyond).detail, /'to'/);

      await t.container.searchIndexer.follower.catchUp(t.store.store_uuid);
      await t.container.collections.follower.catchUp(t.store.store_uuid);
      await t.container.imageCatalog.follower.catchUp(t.store.store_uuid);
      await t.container.changes.pruneAll(new Date(Date.now() + 1000 * 3_600_000));
      const pruned = await admin(t, 'POST', `/${sub.id}/replay`, { from: second.sequence });
      assert.equal(pruned.statusCode, 422);
      assert.match(json(pruned).detail, /no longer retained.*oldest available is \d+/);
      await admin(t, 'DELETE', `/${sub.id}`);
    });

    it('honours Retry-After on 429, and disables a subscription failing for the give-up period', async () => {
      const t = ctx();
      const limited = await receiver();
      limited.answer = () => ({ status: 429, headers: { 'retry-after': '3' } });
      const sub = await subscribe(t, limited.url);
      await write(t, 'POST', [product('l1')]);
      await until(async () => (await deliveries(t, sub.id)).length > 0, 'the 429 answer');
      const waiting = json(await admin(t, 'GET', `/${sub.id}`)).data;
      const wait = Date.parse(waiting.next_attempt_at) - Date.now();
      assert.ok(wait > 2000, `the retry waits for Retry-After (3 s), not the 400 ms backoff: ${wait} ms`);
      assert.equal((await deliveries(t, sub.id))[0].status_code, 429);

      // 24 h of failures: the next failed attempt disables it.
      limited.answer = () => 500;
      await t.container.storage.db
        .updateTable('webhook_subscriptions')
        .set({
          failing_since: new Date(Date.now() - 25 * 3_600_000).toISOString(),
          next_attempt_at: new Date().toISOString(),
        })
        .where('id', '=', sub.id)
        .execute();
      await until(async () => json(await admin(t, 'GET', `/${sub.id}`)).data.state === 'disabled', 'disabled');
      assert.match(json(await admin(t, 'GET', `/${sub.id}`)).data.disabled_reason, /failing for 24 h/);
      await admin(t, 'DELETE', `/${sub.id}`);
    });

    it('never sends one batch from two senders at once (leases), on either engine', async () => {
      const t = ctx();
      const r = await receiver();
      r.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 5));
      const sub = await subscribe(t, r.url);
      const { WebhookDispatcher } = await import('../../src/modules/webhooks/webhook-dispatcher.js');
      const second = new WebhookDispatcher(t.container.storage, t.container.changeLog, {
        ...OVERRIDES.webhooks,
        allowPrivateFetch: true,
      });
      second.start();
      try {
        for (let i = 0; i < 4; i++)
          await write(
            t,
            'POST',
            Array.from({ length: 50 }, (_, j) => product(`two${i}-${j}`)),
          );
        await until(() => r.events().length >= 200, 'two hundred events', 20_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const ids = r.events().map((e) => e.id);
        assert.equal(new Set(ids).size, ids.length, 'no event delivered twice');
        const sequences = r.events().map((e) => e.sequence);
        assert.deepEqual(
          sequences,
          [...sequences].sort((a, b) => a - b),
          'in sequence order',
        );
      } finally {
        await second.stop();
      }
      await admin(t, 'DELETE', `/${sub.id}`);
    });

    it("refuses loopback and private URLs unless private fetch is allowed, and other stores' subscriptions", async () => {
      const t = ctx();
      const strict = await buildTestApp(t.dialect, { adminToken: ADMIN, allowPrivateFetch: false });
      try {
        for (const url of [
          'http://127.0.0.1:8080/hook',
          'http://10.0.0.7/hook',
          'http://169.254.169.254/latest',
          'http://localhost/hook',
        ]) {
          const res = await strict.request({
            method: 'POST',
            url: `/admin/v1/stores/${strict.store.store_uuid}/webhooks`,
            token: ADMIN,
            payload: { url },
          });
          assert.equal(res.statusCode, 422, url);
          assert.match(json(res).detail, /private, loopback|refused/, url);
        }
        const scheme = await strict.request({
          method: 'POST',
          url: `/admin/v1/stores/${strict.store.store_uuid}/webhooks`,
          token: ADMIN,
          payload: { url: 'ftp://example.com/x' },
        });
        assert.equal(scheme.statusCode, 422);
      } finally {
        await strict.close();
      }
      const r = await receiver();
      const sub = await subscribe(t, r.url);
      const other = await t.container.stores.createStore({ workspaceName: `wh-other-${Date.now()}`, name: 'Other' });
      const foreign = await t.request({
        method: 'GET',
        url: `/admin/v1/stores/${other.store_uuid}/webhooks/${sub.id}`,
        token: ADMIN,
      });
      assert.equal(foreign.statusCode, 404);
      assert.equal((await admin(t, 'GET', '', undefined)).statusCode, 200);
      const tenant = await t.request({ method: 'GET', url: `/admin/v1/stores/${t.store.store_uuid}/webhooks` });
      assert.equal(tenant.statusCode, 401, 'a store token is not the admin token');
      await admin(t, 'DELETE', `/${sub.id}`);
    });
  },
  OVERRIDES,
);
