import type { Executor, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import { ChangeFollower } from '../../changes/change-follower.js';
import type { ChangeFeed } from '../../changes/change-feed.js';
import type { TextIndex } from '../../search/text-index.js';
import { VISIBLE_STATUSES } from '../products/quality-checks.js';
import { documentFor } from './search-documents.js';

/**
 * Keeps the text index in step with the catalog by following each store's change log (see
 * ChangeFollower): documents are replaced by product_code, so re-applying a change is harmless.
 */
export class SearchIndexer {
  readonly #follower: ChangeFollower;

  constructor(private readonly storage: StorageHandle, changes: ChangeFeed, private readonly index: TextIndex) {
    this.#follower = new ChangeFollower(storage, changes, 'search', async (trx, storeId, batch) => {
      const codes = [...new Set(batch.filter((c) => c.entity === 'product').map((c) => c.key))];
      await this.#reindexCodes(trx, storeId, codes, batch[batch.length - 1].seq);
    });
  }

  lag(storeId: string) { return this.#follower.lag(storeId); }
  catchUp(storeId: string) { return this.#follower.catchUp(storeId); }
  start(intervalMs = 200, onError?: (error: unknown) => void) { this.#follower.start(intervalMs, onError); }
  stop() { return this.#follower.stop(); }

  async #reindexCodes(trx: Executor, storeId: string, codes: string[], seq: number) {
    if (codes.length === 0) return;
    const visible = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < codes.length; i += 500) {
      const rows = await trx.selectFrom('products').select(['product_code', 'status', 'attributes'])
        .where('store_id', '=', storeId).where('product_code', 'in', codes.slice(i, i + 500)).execute();
      for (const row of rows) if ((VISIBLE_STATUSES as readonly string[]).includes(row.status)) visible.set(row.product_code, JSON.parse(row.attributes));
    }
    const docs = [...visible].map(([code, attributes]) => documentFor(code, attributes));
    await this.index.write(trx, storeId, docs, codes.filter((code) => !visible.has(code)));
    // Words as stemmed and as written ("clutch" and "clutches"), so a typo of either form is one edit away.
    const frequency = new Map<string, number>();
    for (const doc of docs) {
      for (const term of new Set([...`${doc.titleTerms} ${doc.category} ${doc.other}`.split(' '), ...doc.surfaceTerms])) if (term) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    }
    const terms = [...frequency];
    for (let i = 0; i < terms.length; i += 1000) {
      await trx.insertInto('search_vocab').values(terms.slice(i, i + 1000).map(([term, df]) => ({ store_id: storeId, term, df, seq })))
        .onConflict((oc) => oc.columns(['store_id', 'term']).doUpdateSet((eb) => ({ df: eb('search_vocab.df', '+', eb.ref('excluded.df')), seq: eb.ref('excluded.seq') })))
        .execute();
    }
  }

  /** Rebuilds a store's index from its products (`vitrine reindex`). Writers of the store wait meanwhile. */
  async rebuild(storeId: string): Promise<{ indexed: number; seconds: number }> {
    const started = performance.now();
    const indexed = await inTransaction(this.storage, async (trx) => {
      // Locking the store row holds product writers back, so the rebuilt index matches one sequence number.
      const store = await this.storage.dialect.lockRows(trx.selectFrom('stores').select('change_seq').where('id', '=', storeId)).executeTakeFirstOrThrow();
      await this.#follower.lockCursor(trx, storeId);
      await this.index.clearStore(trx, storeId);
      await trx.deleteFrom('search_vocab').where('store_id', '=', storeId).execute();
      let count = 0;
      let after = '';
      for (;;) {
        const rows = await trx.selectFrom('products').select('product_code').where('store_id', '=', storeId)
          .where('status', 'in', [...VISIBLE_STATUSES]).where('product_code', '>', after).orderBy('product_code').limit(1000).execute();
        if (rows.length === 0) break;
        await this.#reindexCodes(trx, storeId, rows.map((r) => r.product_code), Number(store.change_seq));
        count += rows.length;
        after = rows[rows.length - 1].product_code;
      }
      await this.#follower.moveCursor(trx, storeId, Number(store.change_seq));
      return count;
    });
    return { indexed, seconds: (performance.now() - started) / 1000 };
  }
}
