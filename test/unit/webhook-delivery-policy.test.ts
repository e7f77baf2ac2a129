import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, decideAfterFailure, retryAfterMs } from '../../src/modules/webhooks/delivery-policy.js';

const policy = { retryBaseMs: 1000, retryMaxMs: 60_000, giveUpHours: 24 };
const now = new Date('2026-11-26T12:00:00Z');
const answer = (statusCode: number | null, extra: { error?: string; retryAfterMs?: number } = {}) => ({
  statusCode,
  error: extra.error ?? null,
  retryAfterMs: extra.retryAfterMs ?? null,
});

describe('webhook delivery policy', () => {
  it('410 disables the subscription at once', () => {
    assert.deepEqual(decideAfterFailure(answer(410), { attempt: 1, failingSince: null, now }, policy), {
      action: 'disable',
      error: 'HTTP 410',
      reason: 'the receiver answered 410 Gone',
    });
  });
  it('a 4xx other than 408 and 429 passes the batch over; 408, 429, 5xx and no answer retry', () => {
    assert.equal(decideAfterFailure(answer(400), { attempt: 1, failingSince: null, now }, policy).action, 'pass-over');
    assert.equal(decideAfterFailure(answer(404), { attempt: 1, failingSince: null, now }, policy).action, 'pass-over');
    for (const status of [408, 429, 500, 503, 301, null])
      assert.equal(
        decideAfterFailure(
          answer(status, { error: status === null ? 'ECONNREFUSED' : undefined }),
          { attempt: 1, failingSince: null, now },
          policy,
        ).action,
        'retry',
        String(status),
      );
  });
  it('names redirects and network errors in the error', () => {
    const redirect = decideAfterFailure(answer(302), { attempt: 1, failingSince: null, now }, policy);
    assert.equal(redirect.error, 'HTTP 302: redirects are not followed');
    const refused = decideAfterFailure(
      answer(null, { error: 'connect ECONNREFUSED' }),
      { attempt: 1, failingSince: null, now },
      policy,
    );
    assert.equal(refused.error, 'connect ECONNREFUSED');
  });
  it('gives up after the give-up period, counted from the first failure', () => {
    const since = new Date(now.getTime() - 24 * 3_600_000).toISOString();
    const decision = decideAfterFailure(answer(500), { attempt: 9, failingSince: since, now }, policy);
    assert.equal(decision.action, 'give-up');
    const recent = decideAfterFailure(answer(500), { attempt: 9, failingSince: now.toISOString(), now }, policy);
    assert.ok(recent.action === 'retry' && recent.failingSince === now.toISOString());
  });
  it('backs off exponentially in the upper half of the step, capped, and honours a longer Retry-After', () => {
    assert.equal(
      backoffMs(1, policy, () => 0),
      500,
    );
    assert.equal(
      backoffMs(1, policy, () => 1),
      1000,
    );
    assert.equal(
      backoffMs(4, policy, () => 1),
      8000,
    );
    assert.equal(
      backoffMs(40, policy, () => 1),
      60_000,
    );
    const decision = decideAfterFailure(
      answer(429, { retryAfterMs: 120_000 }),
      { attempt: 1, failingSince: null, now },
      policy,
      () => 0,
    );
    assert.ok(decision.action === 'retry' && decision.delayMs === 120_000);
  });
  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    assert.equal(retryAfterMs('30'), 30_000);
    assert.equal(retryAfterMs(['5']), 5000);
    assert.equal(retryAfterMs(new Date(now.getTime() + 10_000).toUTCString(), now.getTime()), 10_000);
    assert.equal(retryAfterMs('999999'), 86_400_000);
    assert.equal(retryAfterMs('soon'), null);
    assert.equal(retryAfterMs(undefined), null);
    assert.equal(retryAfterMs('0'), null);
  });
});
