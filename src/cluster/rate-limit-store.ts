import { ask, type RateLimitAnswer, type RateLimitCheck } from './messages.js';

type RateLimitCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

// The checks asked for since the last message: one message (two writes to the IPC channel) per turn
// of the event loop instead of one per request, which under load halved the throughput.
let rateLimitBatch: Array<{ check: RateLimitCheck; callback: RateLimitCallback }> = [];

function sendRateLimitBatch() {
  const batch = rateLimitBatch;
  rateLimitBatch = [];
  ask<RateLimitAnswer>({ type: 'vitrine:rate-limit', checks: batch.map((entry) => entry.check) }).then(
    (answer) =>
      batch.forEach(({ callback }, i) => {
        const result = answer.results?.[i];
        if (!result || 'error' in result) callback(new Error(answer.error ?? result?.error ?? 'no answer'));
        else callback(null, result);
      }),
    (error: Error) => batch.forEach(({ callback }) => callback(error)),
  );
}

/**
 * A @fastify/rate-limit store whose counts live in the primary, so that a token's budget is one
 * budget across the API processes when there is no Redis to share it.
 */
export class ClusterRateLimitStore {
  incr(key: string, callback: RateLimitCallback, timeWindow: number, max: number) {
    rateLimitBatch.push({ check: { key, timeWindow, max }, callback });
    if (rateLimitBatch.length === 1) setImmediate(sendRateLimitBatch);
  }

  child() {
    return this;
  }
}
