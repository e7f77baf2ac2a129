import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Agent } from 'undici';
import type { Db, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import { PollingWorker, SILENT_JOB_LOG, type JobLog, type WorkerErrorLog } from '../../jobs/workers.js';
import { guardedPostAgent, postGuarded } from '../../net/safe-fetch.js';
import { VERSION } from '../../version.js';
import { PUBLIC_ENTITIES, isPublic, toEvent, type ChangeEvent } from '../changes/change-events.js';
import { signatureHeader } from './webhook-signature.js';
import { processOwnerId } from '../../jobs/process-owner.js';
import { claimLeases, releaseLease, type LeaseQueue } from '../../jobs/lease-queue.js';
import * as repo from './webhooks.repository.js';
import { decideAfterFailure, retryAfterMs, type FailedAttempt } from './delivery-policy.js';

export interface DispatcherOptions {
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  giveUpHours: number;
  batchSize: number;
  allowPrivateFetch: boolean;
  intervalMs?: number;
  onError?: WorkerErrorLog;
  log?: JobLog;
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'rejected' | 'disabled' | 'skipped';

/**
 * Webhook subscriptions as jobs of the shared lease queue: an active subscription is due when its
 * next attempt is due and it has something to send (its store's log moved past its cursor, or a replay).
 */
const WEBHOOK_QUEUE: LeaseQueue = {
  table: 'webhook_subscriptions',
  keys: ['id'],
  leaseColumns: { owner: 'lease_owner', until: 'lease_until' },
  ready: (now) => sql`state = 'active' AND next_attempt_at <= ${now}
    AND (replay_upto IS NOT NULL OR cursor_seq < (SELECT s.change_seq FROM stores s WHERE s.id = webhook_subscriptions.store_id))`,
  orderBy: 'next_attempt_at',
};

/** Subscriptions served at once by one process; each has its own lease, so a slow receiver holds up only itself. */
const CONCURRENCY = 16;
/** Delivery log entries kept per subscription. */
const KEEP_DELIVERIES = 1000;

/** Successful POSTs between two commits of the cursor, and the longest time between two commits. */
const FLUSH_POSTS = 10;
const FLUSH_MS = 1000;

interface LogEntry {
  first: number;
  last: number;
  events: number;
  replay: boolean;
  outcome: DeliveryOutcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attempt: number;
  /** When the answer came (the log's order). */
  at: string;
}

interface Attempt extends FailedAttempt {
  durationMs: number;
}

/**
 * The outbox sender (worker `webhooks.deliver`). Each subscription is a cursor on its store's change
 * log, so the outbox is the log itself: durable, in order, replayable. A process takes a
 * subscription's lease (one conditional update), sends the events after its cursor in POSTs of up to
 * `batchSize`, and moves the cursor only after a 2xx — at least once, in sequence order. Failures
 * are retried with exponential backoff and jitter until the give-up period, then the subscription
 * is disabled; a 410 disables it at once; other 4xx answers (but 408 and 429) are logged as
 * rejected and not retried.
 */
export class WebhookDispatcher extends PollingWorker {
  readonly owner = processOwnerId('webhooks');
  readonly #inFlight = new Map<string, Promise<void>>();
  #agent: Agent | undefined;
  #stopping = false;
  /** Aborted on stop: a POST in flight ends at once (it is sent again by whoever takes the lease). */
  #abort = new AbortController();

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly options: DispatcherOptions,
  ) {
    super('webhooks.deliver', options.intervalMs ?? 200, () => this.#tick(), options.onError);
  }

  get #leaseMs() {
    return Math.max(60_000, this.options.timeoutMs * 3);
  }

  override start() {
    this.#stopping = false;
    this.#abort = new AbortController();
    super.start();
  }

  override async stop() {
    this.#stopping = true;
    this.#abort.abort();
    await super.stop();
    await Promise.allSettled(this.#inFlight.values());
    await this.#agent?.close();
    this.#agent = undefined;
  }

  async #tick() {
    const free = CONCURRENCY - this.#inFlight.size;
    if (free <= 0) return;
    // The shared lease queue: due subscriptions, each claimed by one process (a dead local process's
    // leases are taken back first, so delivery resumes without waiting for them to lapse).
    const claimed = await claimLeases(this.storage, WEBHOOK_QUEUE, this.owner, free, this.#leaseMs);
    for (const row of claimed) {
      const id = row.id as string;
      const run = (async () => {
        try {
          await this.#serve(id);
        } catch (error) {
          this.options.onError?.(this.name, error);
        } finally {
          await releaseLease(this.storage, WEBHOOK_QUEUE, row, this.owner).catch(() => {});
          this.#inFlight.delete(id);
        }
      })();
      this.#inFlight.set(id, run);
    }
  }

  /**
   * Sends what a leased subscription has to send, until it is caught up, fails, or the process stops.
   * Successful POSTs are committed (their log entries and the cursor) every FLUSH_POSTS POSTs or
   * FLUSH_MS, not one by one: a backlog then costs one database write per ten POSTs, so delivery
   * outpaces a bulk import instead of queueing behind it for the writer. A crash re-sends at most
   * the POSTs since the last commit (at least once).
   */
  async #serve(id: string) {
    const db = this.storage.db;
    let sub = await repo.findSubscription(db, id);
    while (!this.#stopping && sub && sub.lease_owner === this.owner && sub.state === 'active') {
      const current: repo.SubscriptionRow = sub;
      const replay = current.replay_upto !== null;
      const start = replay ? Number(current.replay_after ?? 0) : Number(current.cursor_seq);
      const moveTo = (seq: number, extra: Partial<repo.SubscriptionRow> = {}, trx: Db = db) =>
        repo.updateLeased(trx, id, this.owner, {
          ...(replay
            ? seq >= Number(current.replay_upto)
              ? { replay_after: null, replay_upto: null }
              : { replay_after: seq }
            : { cursor_seq: seq }),
          lease_until: new Date(Date.now() + this.#leaseMs).toISOString(),
          updated_at: new Date().toISOString(),
          ...extra,
        });

      // Read first: every sequence up to `latest` is committed, so a short read saw everything up to it.
      const { latest, floor } = await this.changes.bounds(current.store_id);
      if (start < floor) {
        // Pruned while the subscription was disabled or behind: say so in its log, go on from what is left.
        await this.#log(db, current, {
          first: start + 1,
          last: floor,
          events: 0,
          replay,
          outcome: 'skipped',
          statusCode: null,
          error: 'no longer retained (change retention)',
          durationMs: 0,
          attempt: 0,
          at: new Date().toISOString(),
        });
        if (!(await moveTo(floor))) return;
        sub = await repo.findSubscription(db, id);
        continue;
      }
      const upto = replay ? Number(current.replay_upto) : latest;
      const wanted = new Set(JSON.parse(current.event_types) as string[]);

      const delivered: LogEntry[] = [];
      let through = start;
      let failed: { entry: LogEntry; result: Attempt; end: number } | undefined;
      const flushAt = Date.now() + FLUSH_MS;
      for (let posts = 0; posts < FLUSH_POSTS && Date.now() < flushAt && !this.#stopping;) {
        const rows = await this.changes.read(current.store_id, through, {
          limit: this.options.batchSize,
          uptoSeq: upto,
          entities: [...PUBLIC_ENTITIES],
        });
        const reachedEnd = rows.length < this.options.batchSize;
        const end = reachedEnd ? Math.max(upto, through) : rows[rows.length - 1].seq;
        const events = rows
          .filter(isPublic)
          .map((change) => toEvent(current.store_id, change))
          .filter((event) => wanted.has(event.type));
        if (events.length > 0) {
          posts++;
          const result = await this.#post(current, events, replay);
          const entry: LogEntry = {
            first: events[0].sequence,
            last: end,
            events: events.length,
            replay,
            outcome: 'delivered',
            statusCode: result.statusCode,
            error: null,
            durationMs: result.durationMs,
            attempt: current.attempts + 1,
            at: new Date().toISOString(),
          };
          // Stopping: an aborted POST is not the receiver's failure; what was delivered is still committed.
          if (this.#stopping && result.statusCode === null) break;
          if (result.statusCode === null || result.statusCode < 200 || result.statusCode >= 300) {
            failed = { entry, result, end };
            break;
          }
          delivered.push(entry);
        }
        through = end;
        if (reachedEnd) break;
      }

      const progressed = through > start || (replay && !failed);
      if (progressed || delivered.length > 0) {
        const moved = await inTransaction(this.storage, async (trx) => {
          for (const entry of delivered) await this.#log(trx, current, entry);
          const success =
            delivered.length > 0
              ? { attempts: 0, failing_since: null, last_success_at: new Date().toISOString(), last_error: null }
              : {};
          return moveTo(Math.max(through, start), success, trx);
        });
        if (!moved) return;
      }
      if (failed) {
        // Successes committed just now reset the failure count: this failure starts a new spell.
        const state = delivered.length > 0 ? { ...current, attempts: 0, failing_since: null } : current;
        const entry = { ...failed.entry, attempt: state.attempts + 1 };
        if (!(await this.#failed(state, entry, failed.result, failed.end, moveTo))) return;
      } else if (!progressed) return;
      sub = await repo.findSubscription(db, id);
    }
  }

  /**
   * What a failed POST does to its subscription. True when delivery goes on (a rejected batch is
   * passed over); false when it stops (retry later, or disabled).
   */
  async #failed(
    sub: repo.SubscriptionRow,
    entry: LogEntry,
    result: Attempt,
    end: number,
    moveTo: (seq: number, extra?: Partial<repo.SubscriptionRow>) => Promise<boolean>,
  ): Promise<boolean> {
    const db = this.storage.db;
    const now = new Date();
    const attempt = entry.attempt;
    const decision = decideAfterFailure(result, { attempt, failingSince: sub.failing_since, now }, this.options);
    switch (decision.action) {
      case 'disable':
        await this.#log(db, sub, { ...entry, outcome: 'disabled', error: decision.reason, attempt });
        await repo.updateLeased(db, sub.id, this.owner, {
          state: 'disabled',
          disabled_reason: decision.reason,
          last_error: decision.error,
          updated_at: now.toISOString(),
        });
        this.#say(sub, 'webhook subscription disabled: the receiver answered 410');
        return false;
      case 'pass-over':
        // The receiver refuses these events (replay them once it is fixed).
        await this.#log(db, sub, { ...entry, outcome: 'rejected', error: decision.error, attempt });
        return moveTo(end, { attempts: 0, failing_since: null, last_error: decision.error });
      case 'give-up':
        await this.#log(db, sub, { ...entry, outcome: 'failed', error: decision.error, attempt });
        await repo.updateLeased(db, sub.id, this.owner, {
          state: 'disabled',
          disabled_reason: decision.reason,
          attempts: attempt,
          failing_since: decision.failingSince,
          last_error: decision.error,
          updated_at: now.toISOString(),
        });
        this.#say(sub, `webhook subscription disabled after failing for ${this.options.giveUpHours} h`);
        return false;
      case 'retry':
        await this.#log(db, sub, { ...entry, outcome: 'failed', error: decision.error, attempt });
        await repo.updateLeased(db, sub.id, this.owner, {
          attempts: attempt,
          failing_since: decision.failingSince,
          next_attempt_at: new Date(now.getTime() + decision.delayMs).toISOString(),
          last_error: decision.error,
          updated_at: now.toISOString(),
        });
        return false;
    }
  }

  async #post(sub: repo.SubscriptionRow, events: ChangeEvent[], replay: boolean): Promise<Attempt> {
    const deliveryId = randomUUID();
    const body = JSON.stringify({ delivery_id: deliveryId, store_uuid: sub.store_id, replay, events });
    this.#agent ??= guardedPostAgent(this.options.allowPrivateFetch);
    const started = performance.now();
    try {
      const answer = await postGuarded(
        sub.url,
        body,
        {
          'content-type': 'application/json',
          'user-agent': `Vitrine-Webhooks/${VERSION}`,
          'x-vitrine-signature': signatureHeader(sub.secret, body),
          'x-vitrine-delivery': deliveryId,
          'x-vitrine-subscription': sub.id,
        },
        {
          timeoutMs: this.options.timeoutMs,
          agent: this.#agent,
          allowPrivate: this.options.allowPrivateFetch,
          signal: this.#abort.signal,
        },
      );
      return {
        statusCode: answer.statusCode,
        error: null,
        retryAfterMs: retryAfterMs(answer.headers['retry-after']),
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      return {
        statusCode: null,
        error: (error as Error).message,
        retryAfterMs: null,
        durationMs: Math.round(performance.now() - started),
      };
    }
  }

  async #log(db: Db, sub: repo.SubscriptionRow, entry: LogEntry) {
    await repo.insertDelivery(db, {
      id: randomUUID(),
      subscription_id: sub.id,
      first_seq: entry.first,
      last_seq: entry.last,
      events: entry.events,
      replay: entry.replay ? 1 : 0,
      attempt: entry.attempt,
      outcome: entry.outcome,
      status_code: entry.statusCode,
      error: entry.error,
      duration_ms: entry.durationMs,
      at: entry.at,
    });
    // Trim now and then rather than on every POST.
    if (Math.random() < 0.02) await repo.trimDeliveries(db, sub.id, KEEP_DELIVERIES);
  }

  #say(sub: repo.SubscriptionRow, message: string) {
    (this.options.log ?? SILENT_JOB_LOG).info(
      { job: this.name, subscription: sub.id, store_id: sub.store_id },
      message,
    );
  }
}
