import type { StorageHandle } from '../../storage/database.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import {
  HOUSEKEEPING_FIRST_RUN_MS,
  PollingWorker,
  SILENT_JOB_LOG,
  type JobLog,
  type WorkerErrorLog,
} from '../../jobs/workers.js';
import { GoneError, InvalidInputError } from '../../errors.js';
import type { Store } from '../stores/store.js';
import { PUBLIC_ENTITIES, isPublic, toEvent, type ChangeEvent } from './change-events.js';

export interface ChangesPage {
  changes: ChangeEvent[];
  next_after: number;
  latest_sequence: number;
  oldest_sequence: number;
  has_more: boolean;
}

export interface ChangesOptions {
  /** How long the log keeps a change (VITRINE_CHANGE_RETENTION_HOURS). */
  retentionHours: number;
  /** The internal followers (feed_cursors consumers): nothing they have not read is pruned. */
  internalConsumers: readonly string[];
  pruneIntervalMs?: number;
  onError?: WorkerErrorLog;
  log?: JobLog;
}

/** The store's change log as a public, pull-based feed (`GET /v1/changes`), and its retention. */
export class ChangesService {
  /** Prunes every store's log past the retention (worker `changes.prune`). */
  readonly pruner: PollingWorker;

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly options: ChangesOptions,
  ) {
    this.pruner = new PollingWorker(
      'changes.prune',
      options.pruneIntervalMs ?? 10 * 60_000,
      () => this.pruneAll(),
      options.onError,
      { firstRunAfterMs: HOUSEKEEPING_FIRST_RUN_MS },
    );
  }

  /** The oldest sequence a reader can still get: the one after the last pruned. */
  async oldestSequence(storeId: string): Promise<number> {
    return (await this.changes.floor(storeId)) + 1;
  }

  async page(store: Store, after: number, limit: number): Promise<ChangesPage> {
    // Read first: every sequence up to it is committed, so a short page means nothing was skipped.
    const { latest, floor } = await this.changes.bounds(store.id);
    if (after < floor)
      throw new GoneError(
        `changes after sequence ${after} are no longer retained (retention ${this.options.retentionHours} h); the oldest available is ${floor + 1}: resume with after=${floor}`,
        'after',
        { oldest_sequence: floor + 1 },
      );
    if (after > latest)
      throw new InvalidInputError(
        `query parameter 'after' is ${after}, beyond the store's latest sequence ${latest}`,
        'after',
      );
    const rows = await this.changes.read(store.id, after, { limit, entities: [...PUBLIC_ENTITIES] });
    const last = rows.length > 0 ? rows[rows.length - 1].seq : after;
    // A short page read everything public up to `latest`: internal entries in between are passed over.
    const nextAfter = rows.length < limit ? Math.max(last, latest) : last;
    return {
      changes: rows.filter(isPublic).map((change) => toEvent(store.id, change)),
      next_after: nextAfter,
      latest_sequence: Math.max(latest, last),
      oldest_sequence: floor + 1,
      has_more: nextAfter < latest,
    };
  }

  /** Drops changes older than the retention from every store's log; returns how many stores moved. */
  async pruneAll(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.options.retentionHours * 3_600_000).toISOString();
    const stores = await this.storage.db.selectFrom('stores').select(['id', 'change_floor']).execute();
    let moved = 0;
    for (const store of stores) {
      const keepAfter = await this.#slowestInternalCursor(store.id);
      const floor = await this.changes.prune(store.id, before, keepAfter);
      if (floor > Number(store.change_floor)) {
        moved++;
        (this.options.log ?? SILENT_JOB_LOG).info(
          { job: 'changes.prune', store_id: store.id, floor },
          'pruned the change log past its retention',
        );
      }
    }
    return moved;
  }

  /** Changes written but not yet applied, per internal follower, all stores (the /metrics gauge). */
  followerLag(): Promise<Record<string, number>> {
    return this.changes.lagByConsumer(this.options.internalConsumers);
  }

  /** The lowest cursor of the internal followers for a store (0 when one has not started on it). */
  async #slowestInternalCursor(storeId: string): Promise<number> {
    const rows = await this.storage.db
      .selectFrom('feed_cursors')
      .select(['consumer', 'seq'])
      .where('store_id', '=', storeId)
      .where('consumer', 'in', [...this.options.internalConsumers])
      .execute();
    if (rows.length < this.options.internalConsumers.length) return 0;
    return Math.min(...rows.map((row) => Number(row.seq)));
  }
}
