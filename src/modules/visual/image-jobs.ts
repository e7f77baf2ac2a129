import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeFeed } from '../../changes/change-feed.js';

export interface ClaimedImage { storeId: string; url: string; attempts: number }
export type ImageOutcome =
  | { kind: 'indexed'; image: ClaimedImage; model: string; vector: Uint8Array; scale: number }
  | { kind: 'failed'; image: ClaimedImage; error: string; permanent: boolean };

export interface RetryPolicy { maxAttempts: number; baseDelayMs: number }
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 5_000 };
const LEASE_MS = 120_000;

/**
 * The durable image job queue: the `images` rows themselves. A worker claims pending rows by
 * leasing them (`claimed_by`, `claimed_until`); on PostgreSQL the candidates are read FOR UPDATE
 * SKIP LOCKED so concurrent workers take disjoint rows without waiting. A worker that dies leaves a
 * lease that expires, and the image is claimed again: no work is lost, and a live lease (two
 * minutes, far above the 10 s fetch limit plus embedding) is never claimed twice.
 */
export class ImageJobs {
  constructor(private readonly storage: StorageHandle, private readonly changes: ChangeFeed, readonly retry: RetryPolicy = DEFAULT_RETRY) {}

  async claim(workerId: string, limit: number): Promise<ClaimedImage[]> {
    const now = new Date();
    const nowIso = now.toISOString();
    return inTransaction(this.storage, async (trx) => {
      const candidates = await this.storage.dialect.claimRows(
        trx.selectFrom('images').select(['store_id', 'url', 'attempts'])
          .where('state', '=', 'pending').where('run_after', '<=', nowIso)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', nowIso)]))
          .orderBy('run_after').limit(limit),
      ).execute();
      const claimed: ClaimedImage[] = [];
      const until = new Date(now.getTime() + LEASE_MS).toISOString();
      for (const row of candidates) {
        const result = await trx.updateTable('images')
          .set((eb) => ({ claimed_by: workerId, claimed_until: until, attempts: eb('attempts', '+', 1) }))
          .where('store_id', '=', row.store_id).where('url', '=', row.url).where('state', '=', 'pending')
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', nowIso)]))
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 1) claimed.push({ storeId: row.store_id, url: row.url, attempts: Number(row.attempts) + 1 });
      }
      return claimed;
    });
  }

  /** Records outcomes (only for rows this worker still holds) and announces them on each store's change log. */
  async finish(workerId: string, outcomes: ImageOutcome[]) {
    const byStore = new Map<string, ImageOutcome[]>();
    for (const outcome of outcomes) byStore.set(outcome.image.storeId, [...(byStore.get(outcome.image.storeId) ?? []), outcome]);
    for (const [storeId, list] of byStore) {
      await inTransaction(this.storage, async (trx) => {
        const now = new Date();
        const announced: string[] = [];
        for (const outcome of list) {
          const base = trx.updateTable('images').where('store_id', '=', storeId).where('url', '=', outcome.image.url).where('claimed_by', '=', workerId);
          let result;
          if (outcome.kind === 'indexed') {
            result = await base.set({
              state: 'indexed', model: outcome.model, vector: outcome.vector, scale: outcome.scale, error: null,
              claimed_by: null, claimed_until: null, updated_at: now.toISOString(),
            }).executeTakeFirst();
          } else {
            const last = outcome.permanent || outcome.image.attempts >= this.retry.maxAttempts;
            const delay = this.retry.baseDelayMs * 4 ** (outcome.image.attempts - 1);
            result = await base.set({
              state: last ? 'failed' : 'pending', error: outcome.error, claimed_by: null, claimed_until: null,
              run_after: new Date(now.getTime() + (last ? 0 : delay)).toISOString(), updated_at: now.toISOString(),
            }).executeTakeFirst();
          }
          if (Number(result.numUpdatedRows) === 1 && outcome.kind === 'indexed') announced.push(outcome.image.url);
        }
        await this.changes.append(trx, storeId, announced.map((url) => ({ entity: 'image', key: url, op: 'updated', status: 'indexed' })));
      });
    }
  }

  /** Vectors of another model are re-embedded (a model change re-indexes every image). */
  async requeueOtherModels(model: string): Promise<number> {
    const result = await this.storage.db.updateTable('images')
      .set({ state: 'pending', attempts: 0, run_after: new Date().toISOString() })
      .where('state', '=', 'indexed').where('model', '<>', model).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Failed images of a store are tried again from scratch. */
  async retryFailed(storeId: string): Promise<number> {
    const result = await this.storage.db.updateTable('images')
      .set({ state: 'pending', attempts: 0, error: null, run_after: new Date().toISOString() })
      .where('store_id', '=', storeId).where('state', '=', 'failed').executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async status(storeId: string, failuresLimit = 100) {
    const counts = await this.storage.db.selectFrom('images').select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('store_id', '=', storeId).groupBy('state').execute();
    const retrying = await this.storage.db.selectFrom('images').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('store_id', '=', storeId).where('state', '=', 'pending').where('error', 'is not', null).executeTakeFirstOrThrow();
    const failures = await this.storage.db.selectFrom('images').select(['url', 'state', 'error', 'attempts', 'updated_at'])
      .where('store_id', '=', storeId).where('error', 'is not', null).where('state', '<>', 'indexed')
      .orderBy('updated_at', 'desc').limit(failuresLimit).execute();
    const count = (state: string) => Number(counts.find((c) => c.state === state)?.n ?? 0);
    return {
      images: count('pending') + count('indexed') + count('failed'),
      pending: count('pending'), indexed: count('indexed'), failed: count('failed'), retrying: Number(retrying.n),
      failures: failures.map((f) => ({ url: f.url, state: f.state, error: f.error, attempts: Number(f.attempts), updated_at: f.updated_at })),
    };
  }
}
