import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import type { StorageHandle } from '../../storage/database.js';
import type { ChangeFeed } from '../../jobs/change-feed.js';
import { PollingWorker, SILENT_JOB_LOG, type JobLog, type WorkerErrorLog } from '../../jobs/workers.js';
import { guardedPostAgent, postGuarded } from '../../net/safe-fetch.js';
import { VERSION } from '../../version.js';
import { PUBLIC_ENTITIES, isPublic, toEvent, type ChangeEvent } from '../changes/change-events.js';
import { signatureHeader } from './webhook-signature.js';
import * as repo from './webhooks.repository.js';

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

/** Subscriptions served at once by one process; each has its own lease, so a slow receiver holds up only itself. */
const CONCURRENCY = 16;
/** Delivery log entries kept per subscription. */
const KEEP_DELIVERIES = 1000;

interface Attempt {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
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
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly #inFlight = new Map<string, Promise<void>>();
  #agent: Agent | undefined;
  #stopping = false;
  #staleChecked = false;

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
    super.start();
  }

  override async stop() {
    this.#stopping = true;
    await super.stop();
    await Promise.allSettled(this.#inFlight.values());
    await this.#agent?.close();
    this.#agent = undefined;
  }

  async #tick() {
    if (!this.#staleChecked) {
      this.#staleChecked = true;
      await this.#releaseLeasesOfDeadLocalProcesses();
    }
    const now = new Date();
    const free = CONCURRENCY - this.#inFlight.size;
    if (free <= 0) return;
    const due = await repo.dueSubscriptions(this.storage.db, now.toISOString(), free + this.#inFlight.size);
    for (const { id } of due) {
      if (this.#inFlight.size >= CONCURRENCY || this.#inFlight.has(id)) continue;
      const until = new Date(now.getTime() + this.#leaseMs).toISOString();
      if (!(await repo.claimLease(this.storage.db, id, this.owner, now.toISOString(), until))) continue;
      const run = (async () => {
        try {
          await this.#serve(id);
        } catch (error) {
          this.options.onError?.(this.name, error);
        } finally {
          await repo
            .updateLeased(this.storage.db, id, this.owner, { lease_owner: null, lease_until: null })
            .catch(() => {});
          this.#inFlight.delete(id);
        }
      })();
      this.#inFlight.set(id, run);
    }
  }

  /**
   * A process killed with -9 keeps its leases until they expire; a process of the same host that
   * starts after it takes back those of owners that are no longer running, so delivery resumes at once.
   */
  async #releaseLeasesOfDeadLocalProcesses() {
    const host = `${os.hostname()}:`;
    const leased = await this.storage.db
      .selectFrom('webhook_subscriptions')
      .select(['id', 'lease_owner'])
      .where('lease_owner', 'like', `${host}%`)
      .execute();
    for (const row of leased) {
      const pid = Number(row.lease_owner!.slice(host.length).split(':')[0]);
      if (pid === process.pid || isRunning(pid)) continue;
      await repo.updateLeased(this.storage.db, row.id, row.lease_owner!, { lease_owner: null, lease_until: null });
    }
  }

  /** Sends what a leased subscription has to send, until it is caught up, fails, or the process stops. */
  async #serve(id: string) {
    const db = this.storage.db;
    while (!this.#stopping) {
      const sub = await repo.findSubscription(db, id);
      if (!sub || sub.lease_owner !== this.owner || sub.state !== 'active') return;
      const replay = sub.replay_upto !== null;
      const after = replay ? Number(sub.replay_after ?? 0) : Number(sub.cursor_seq);
      const moveTo = (seq: number, extra: Partial<repo.SubscriptionRow> = {}) =>
        repo.updateLeased(db, id, this.owner, {
          ...(replay
            ? seq >= Number(sub.replay_upto)
              ? { replay_after: null, replay_upto: null }
              : { replay_after: seq }
            : { cursor_seq: seq }),
          lease_until: new Date(Date.now() + this.#leaseMs).toISOString(),
          updated_at: new Date().toISOString(),
          ...extra,
        });

      const floor = await this.changes.floor(sub.store_id);
      if (after < floor) {
        // Pruned while the subscription was disabled or behind: say so in its log and go on from what is left.
        await this.#log(sub, after + 1, floor, 0, replay, 'skipped', null, 'no longer retained (change retention)', 0);
        if (!(await moveTo(floor))) return;
        continue;
      }
      // Read first: every sequence up to it is committed, so a short read saw everything up to it.
      const latest = await this.changes.latest(sub.store_id);
      const upto = replay ? Number(sub.replay_upto) : latest;
      const rows = await this.changes.read(sub.store_id, after, {
        limit: this.options.batchSize,
        uptoSeq: upto,
        entities: [...PUBLIC_ENTITIES],
      });
      const reachedEnd = rows.length < this.options.batchSize;
      const through = reachedEnd ? upto : rows[rows.length - 1].seq;
      const wanted = new Set(JSON.parse(sub.event_types) as string[]);
      const events = rows
        .filter(isPublic)
        .map((change) => toEvent(sub.store_id, change))
        .filter((event) => wanted.has(event.type));
      if (events.length === 0) {
        if (through > after || replay) {
          if (!(await moveTo(Math.max(through, after)))) return;
          continue;
        }
        return;
      }

      const attempt = sub.attempts + 1;
      const result = await this.#post(sub, events, replay);
      const first = events[0].sequence;
      const now = new Date();
      const status = result.statusCode;
      if (status !== null && status >= 200 && status < 300) {
        await this.#log(
          sub,
          first,
          through,
          events.length,
          replay,
          'delivered',
          status,
          null,
          result.durationMs,
          attempt,
        );
        if (
          !(await moveTo(through, {
            attempts: 0,
            failing_since: null,
            last_success_at: now.toISOString(),
            last_error: null,
          }))
        )
          return;
        continue;
      }
      if (status === 410) {
        await this.#log(
          sub,
          first,
          through,
          events.length,
          replay,
          'disabled',
          status,
          'the receiver answered 410 Gone',
          result.durationMs,
          attempt,
        );
        await repo.updateLeased(db, id, this.owner, {
          state: 'disabled',
          disabled_reason: 'the receiver answered 410 Gone',
          last_error: 'HTTP 410',
          updated_at: now.toISOString(),
        });
        this.#say(sub, 'webhook subscription disabled: the receiver answered 410');
        return;
      }
      if (status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429) {
        // The receiver refuses these events: not retried (replay them once it is fixed).
        const error = `HTTP ${status}: not retried (4xx other than 408 and 429)`;
        await this.#log(
          sub,
          first,
          through,
          events.length,
          replay,
          'rejected',
          status,
          error,
          result.durationMs,
          attempt,
        );
        if (!(await moveTo(through, { attempts: 0, failing_since: null, last_error: error }))) return;
        continue;
      }

      const error =
        result.error ??
        (status !== null && status >= 300 && status < 400
          ? `HTTP ${status}: redirects are not followed`
          : `HTTP ${status}`);
      const failingSince = sub.failing_since ?? now.toISOString();
      await this.#log(sub, first, through, events.length, replay, 'failed', status, error, result.durationMs, attempt);
      if (now.getTime() - Date.parse(failingSince) >= this.options.giveUpHours * 3_600_000) {
        await repo.updateLeased(db, id, this.owner, {
          state: 'disabled',
          disabled_reason: `failing for ${this.options.giveUpHours} h (last: ${error})`,
          attempts: attempt,
          failing_since: failingSince,
          last_error: error,
          updated_at: now.toISOString(),
        });
        this.#say(sub, `webhook subscription disabled after failing for ${this.options.giveUpHours} h`);
        return;
      }
      const delay = Math.max(this.#backoff(attempt), result.retryAfterMs ?? 0);
      await repo.updateLeased(db, id, this.owner, {
        attempts: attempt,
        failing_since: failingSince,
        next_attempt_at: new Date(now.getTime() + delay).toISOString(),
        last_error: error,
        updated_at: now.toISOString(),
      });
      return;
    }
  }

  /** Exponential backoff with jitter: base × 2^(attempt − 1), capped, then a random point in its upper half. */
  #backoff(attempt: number): number {
    const ceiling = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
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
        { timeoutMs: this.options.timeoutMs, agent: this.#agent, allowPrivate: this.options.allowPrivateFetch },
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

  async #log(
    sub: repo.SubscriptionRow,
    first: number,
    last: number,
    events: number,
    replay: boolean,
    outcome: DeliveryOutcome,
    statusCode: number | null,
    error: string | null,
    durationMs: number,
    attempt = 0,
  ) {
    await repo.insertDelivery(this.storage.db, {
      id: randomUUID(),
      subscription_id: sub.id,
      first_seq: first,
      last_seq: last,
      events,
      replay: replay ? 1 : 0,
      attempt,
      outcome,
      status_code: statusCode,
      error,
      duration_ms: durationMs,
      at: new Date().toISOString(),
    });
    // Trim now and then rather than on every POST.
    if (Math.random() < 0.02) await repo.trimDeliveries(this.storage.db, sub.id, KEEP_DELIVERIES);
  }

  #say(sub: repo.SubscriptionRow, message: string) {
    (this.options.log ?? SILENT_JOB_LOG).info(
      { job: this.name, subscription: sub.id, store_id: sub.store_id },
      message,
    );
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds (capped at a day). */
function retryAfterMs(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 86_400_000) : null;
}
