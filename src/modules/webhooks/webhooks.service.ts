import { randomUUID } from 'node:crypto';
import type { StorageHandle } from '../../storage/database.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { checkOutgoingUrl } from '../../net/safe-fetch.js';
import type { StoresService } from '../stores/stores.service.js';
import { EVENT_TYPES, type EventType } from '../changes/change-events.js';
import { generateWebhookSecret } from './webhook-signature.js';
import * as repo from './webhooks.repository.js';
import { MAX_SUBSCRIPTIONS_PER_STORE } from '../../catalog/limits.js';

export interface WebhookSubscription {
  id: string;
  store_uuid: string;
  url: string;
  event_types: EventType[];
  /** `active`, or `disabled` (by a 410 answer, after failing for the give-up period, or by the operator). */
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  /** The last sequence delivered (or given up on after a 4xx). */
  cursor_sequence: number;
  replay: { after: number; upto: number } | null;
  /** Failed attempts in a row, when the current failing spell began, and when the next attempt is due. */
  attempts: number;
  failing_since: string | null;
  next_attempt_at: string;
  last_success_at: string | null;
  last_error: string | null;
  created_at: string;
}

export interface WebhookDelivery {
  id: string;
  first_sequence: number;
  last_sequence: number;
  events: number;
  replay: boolean;
  attempt: number;
  outcome: 'delivered' | 'failed' | 'rejected' | 'skipped' | 'disabled';
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: string;
}

export interface WebhookInput {
  url: string;
  event_types?: string[];
}

/** Webhook subscriptions of a store: the operator API and the CLI (`vitrine webhook …`). */
export class WebhooksService {
  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly stores: StoresService,
    private readonly options: { allowPrivateFetch: boolean },
  ) {}

  /** Subscriptions of every store by health (active, failing, disabled). */
  countByHealth(): Promise<Record<string, number>> {
    return repo.countByHealth(this.storage.db);
  }

  /** Changes not yet delivered to active subscriptions, all stores. */
  backlog(): Promise<number> {
    return repo.backlog(this.storage.db);
  }

  /** Subscribes a URL to a store's events from now on; the secret is in this answer only. */
  async create(storeUuid: string, input: WebhookInput): Promise<WebhookSubscription & { secret: string }> {
    const store = await this.stores.getStore(storeUuid);
    const eventTypes = checkEventTypes(input.event_types);
    await checkOutgoingUrl(input.url, this.options.allowPrivateFetch, 'url');
    const existing = await repo.subscriptionsOfStore(this.storage.db, store.id);
    if (existing.length >= MAX_SUBSCRIPTIONS_PER_STORE)
      throw new InvalidInputError(`a store has at most ${MAX_SUBSCRIPTIONS_PER_STORE} webhook subscriptions`, 'url');
    const now = new Date().toISOString();
    const row: repo.SubscriptionRow = {
      id: `wh_${randomUUID().replaceAll('-', '')}`,
      store_id: store.id,
      url: input.url,
      event_types: JSON.stringify(eventTypes),
      secret: generateWebhookSecret(),
      state: 'active',
      disabled_reason: null,
      cursor_seq: await this.changes.latest(store.id),
      replay_after: null,
      replay_upto: null,
      attempts: 0,
      failing_since: null,
      next_attempt_at: now,
      lease_owner: null,
      lease_until: null,
      last_success_at: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    await repo.insertSubscription(this.storage.db, row);
    return { ...view(row), secret: row.secret };
  }

  async list(storeUuid: string): Promise<WebhookSubscription[]> {
    const store = await this.stores.getStore(storeUuid);
    return (await repo.subscriptionsOfStore(this.storage.db, store.id)).map(view);
  }

  async get(id: string, storeUuid?: string): Promise<WebhookSubscription> {
    return view(await this.#find(id, storeUuid));
  }

  async remove(id: string, storeUuid?: string): Promise<{ id: string; removed: true }> {
    await this.#find(id, storeUuid);
    await repo.deleteSubscription(this.storage.db, id);
    return { id, removed: true };
  }

  /** Turns a disabled subscription back on: it resumes from its cursor, at once. */
  async enable(id: string, storeUuid?: string): Promise<WebhookSubscription> {
    await this.#find(id, storeUuid);
    const now = new Date().toISOString();
    await repo.updateSubscription(this.storage.db, id, {
      state: 'active',
      disabled_reason: null,
      attempts: 0,
      failing_since: null,
      next_attempt_at: now,
      updated_at: now,
    });
    return this.get(id);
  }

  /**
   * Delivers the retained changes `from`…`to` again (default `to`: the latest), flagged as a replay,
   * before live changes resume. A range that starts before the retention is refused.
   */
  async replay(id: string, range: { from: number; to?: number }, storeUuid?: string): Promise<WebhookSubscription> {
    const row = await this.#find(id, storeUuid);
    const { latest, floor } = await this.changes.bounds(row.store_id);
    const oldest = floor + 1;
    const to = range.to ?? latest;
    if (!Number.isInteger(range.from) || range.from < 1)
      throw new InvalidInputError("'from' must be a sequence number of 1 or more", 'from');
    if (range.from < oldest)
      throw new InvalidInputError(
        `'from' is ${range.from}, but changes before sequence ${oldest} are no longer retained (the oldest available is ${oldest})`,
        'from',
      );
    if (!Number.isInteger(to) || to < range.from || to > latest)
      throw new InvalidInputError(
        `'to' must be from 'from' (${range.from}) to the latest sequence (${latest}), got ${to}`,
        'to',
      );
    await repo.updateSubscription(this.storage.db, id, {
      replay_after: range.from - 1,
      replay_upto: to,
      updated_at: new Date().toISOString(),
    });
    return this.get(id);
  }

  async deliveries(id: string, limit: number, storeUuid?: string): Promise<WebhookDelivery[]> {
    await this.#find(id, storeUuid);
    return (await repo.deliveriesOf(this.storage.db, id, limit)).map((row) => ({
      id: row.id,
      first_sequence: Number(row.first_seq),
      last_sequence: Number(row.last_seq),
      events: row.events,
      replay: row.replay === 1,
      attempt: row.attempt,
      outcome: row.outcome as WebhookDelivery['outcome'],
      status_code: row.status_code,
      error: row.error,
      duration_ms: row.duration_ms,
      at: row.at,
    }));
  }

  /** A subscription, of the given store when one is named (another store's id is the same 404). */
  async #find(id: string, storeUuid?: string): Promise<repo.SubscriptionRow> {
    if (storeUuid !== undefined) await this.stores.getStore(storeUuid);
    const row = await repo.findSubscription(this.storage.db, id);
    if (!row || (storeUuid !== undefined && row.store_id !== storeUuid))
      throw new NotFoundError(`webhook subscription ${id} not found`, 'webhook_id');
    return row;
  }
}

/** The event types asked for (all of them when none are named); an unknown one is named in the error. */
function checkEventTypes(given: string[] | undefined): EventType[] {
  if (given === undefined || given.length === 0) return [...EVENT_TYPES];
  const unknown = given.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new InvalidInputError(
      `unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => `'${t}'`).join(', ')} in 'event_types'; known: ${EVENT_TYPES.join(', ')}`,
      'event_types',
    );
  return [...new Set(given as EventType[])];
}

function view(row: repo.SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    store_uuid: row.store_id,
    url: row.url,
    event_types: JSON.parse(row.event_types) as EventType[],
    state: row.state as WebhookSubscription['state'],
    disabled_reason: row.disabled_reason,
    cursor_sequence: Number(row.cursor_seq),
    replay: row.replay_upto === null ? null : { after: Number(row.replay_after ?? 0), upto: Number(row.replay_upto) },
    attempts: row.attempts,
    failing_since: row.failing_since,
    next_attempt_at: row.next_attempt_at,
    last_success_at: row.last_success_at,
    last_error: row.last_error,
    created_at: row.created_at,
  };
}
