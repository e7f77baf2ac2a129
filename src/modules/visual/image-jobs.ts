import { sql } from 'kysely';
import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import { claimLeases, releaseLeases, type LeaseQueue } from '../../jobs/lease-queue.js';
import * as repo from './visual.repository.js';

export interface ClaimedImage {
  storeId: string;
  url: string;
  attempts: number;
}
export type ImageOutcome =
  | { kind: 'indexed'; image: ClaimedImage; model: string; vector: Uint8Array; scale: number }
  | { kind: 'failed'; image: ClaimedImage; error: string; permanent: boolean };

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
}
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 5_000 };
/** Two minutes: far above the 10 s fetch limit plus embedding, so a live lease is never taken over. */
const LEASE_MS = 120_000;

/** The image job queue: `images` rows that are pending and due (see jobs/lease-queue.ts). */
const IMAGE_QUEUE: LeaseQueue = {
  table: 'images',
  keys: ['store_id', 'url'],
  columns: ['attempts'],
  ready: (now) => sql`state = 'pending' AND run_after <= ${now}`,
  orderBy: 'run_after',
  onClaim: () => sql`attempts = attempts + 1`,
};

/**
 * The durable image job queue: the `images` rows themselves, leased by workers through the shared
 * lease queue. A worker that dies leaves a lease that expires, and the image is claimed again.
 */
export class ImageJobs {
  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {}

  /** Images of every store by pipeline state (the vitrine_image_queue metric). */
  countByState(): Promise<Record<string, number>> {
    return repo.countByState(this.storage.db);
  }

  /** Images waiting to be embedded, per store that has any (one store's with `storeId`). */
  pendingByStore(storeId?: string): Promise<Map<string, number>> {
    return repo.pendingByStore(this.storage.db, storeId);
  }

  async claim(workerId: string, limit: number): Promise<ClaimedImage[]> {
    const rows = await claimLeases(this.storage, IMAGE_QUEUE, workerId, limit, LEASE_MS);
    return rows.map((row) => ({
      storeId: String(row.store_id),
      url: String(row.url),
      attempts: Number(row.attempts) + 1,
    }));
  }

  /** Records outcomes (only for rows this worker still holds) and announces them on each store's change log. */
  /** A stopping worker hands its claimed images back (they are claimed again at once). */
  async release(workerId: string) {
    await releaseLeases(this.storage, IMAGE_QUEUE, workerId);
  }

  async finish(workerId: string, outcomes: ImageOutcome[]) {
    const byStore = new Map<string, ImageOutcome[]>();
    for (const outcome of outcomes)
      byStore.set(outcome.image.storeId, [...(byStore.get(outcome.image.storeId) ?? []), outcome]);
    for (const [storeId, list] of byStore) {
      await inTransaction(this.storage, async (trx) => {
        const now = new Date();
        const announced: string[] = [];
        for (const outcome of list) {
          let written: boolean;
          if (outcome.kind === 'indexed') {
            written = await repo.updateHeldImage(trx, storeId, outcome.image.url, workerId, {
              state: 'indexed',
              model: outcome.model,
              vector: outcome.vector,
              scale: outcome.scale,
              error: null,
              claimed_by: null,
              claimed_until: null,
              updated_at: now.toISOString(),
            });
          } else {
            const last = outcome.permanent || outcome.image.attempts >= this.retry.maxAttempts;
            const delay = this.retry.baseDelayMs * 4 ** (outcome.image.attempts - 1);
            written = await repo.updateHeldImage(trx, storeId, outcome.image.url, workerId, {
              state: last ? 'failed' : 'pending',
              error: outcome.error,
              claimed_by: null,
              claimed_until: null,
              run_after: new Date(now.getTime() + (last ? 0 : delay)).toISOString(),
              updated_at: now.toISOString(),
            });
          }
          if (written && outcome.kind === 'indexed') announced.push(outcome.image.url);
        }
        await this.changes.append(
          trx,
          storeId,
          announced.map((url) => ({ entity: 'image', key: url, op: 'updated', status: 'indexed' })),
        );
      });
    }
  }

  /** Vectors of another model are re-embedded (a model change re-indexes every image). */
  requeueOtherModels(model: string): Promise<number> {
    return repo.requeueOtherModels(this.storage.db, model);
  }

  /** Failed images of a store are tried again from scratch. */
  retryFailed(storeId: string): Promise<number> {
    return repo.requeueFailed(this.storage.db, storeId);
  }

  async status(storeId: string, failuresLimit = 100) {
    const { counts, retrying, failures } = await repo.queueStatus(this.storage.db, storeId, failuresLimit);
    const count = (state: string) => Number(counts.find((c) => c.state === state)?.n ?? 0);
    return {
      images: count('pending') + count('indexed') + count('failed'),
      pending: count('pending'),
      indexed: count('indexed'),
      failed: count('failed'),
      retrying,
      failures: failures.map((f) => ({
        url: f.url,
        state: f.state,
        error: f.error,
        attempts: Number(f.attempts),
        updated_at: f.updated_at,
      })),
    };
  }
}
