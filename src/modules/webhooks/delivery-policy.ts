/**
 * What a webhook subscription does after a POST that did not succeed: pure rules, no I/O, so every
 * branch is unit-tested (test/unit/webhook-delivery-policy.test.ts). The dispatcher applies them.
 */

export interface FailedAttempt {
  statusCode: number | null;
  /** The network error, when there was no answer. */
  error: string | null;
  retryAfterMs: number | null;
}

export interface RetryPolicy {
  retryBaseMs: number;
  retryMaxMs: number;
  giveUpHours: number;
}

export type FailureDecision =
  /** 410 Gone: the receiver asks to be forgotten. */
  | { action: 'disable'; error: string; reason: string }
  /** A 4xx other than 408 and 429: these events are refused; logged, passed over, not retried. */
  | { action: 'pass-over'; error: string }
  /** Failing for longer than the give-up period. */
  | { action: 'give-up'; error: string; reason: string; failingSince: string }
  /** Try again after `delayMs`. */
  | { action: 'retry'; error: string; delayMs: number; failingSince: string };

/** Exponential backoff with jitter: base × 2^(attempt − 1), capped, then a random point in its upper half. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export function decideAfterFailure(
  result: FailedAttempt,
  state: { attempt: number; failingSince: string | null; now: Date },
  policy: RetryPolicy,
  random: () => number = Math.random,
): FailureDecision {
  const status = result.statusCode;
  if (status === 410) return { action: 'disable', error: 'HTTP 410', reason: 'the receiver answered 410 Gone' };
  if (status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429)
    return { action: 'pass-over', error: `HTTP ${status}: not retried (4xx other than 408 and 429)` };
  const error =
    result.error ??
    (status !== null && status >= 300 && status < 400
      ? `HTTP ${status}: redirects are not followed`
      : `HTTP ${status}`);
  const failingSince = state.failingSince ?? state.now.toISOString();
  if (state.now.getTime() - Date.parse(failingSince) >= policy.giveUpHours * 3_600_000)
    return { action: 'give-up', error, failingSince, reason: `failing for ${policy.giveUpHours} h (last: ${error})` };
  const delayMs = Math.max(backoffMs(state.attempt, policy, random), result.retryAfterMs ?? 0);
  return { action: 'retry', error, delayMs, failingSince };
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds (capped at a day). */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 86_400_000) : null;
}
