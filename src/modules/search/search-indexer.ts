import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeFeed } from '../../changes/change-feed.js';
import type { TextIndex } from '../../search/text-index.js';
import { VISIBLE_STATUSES } from '../products/quality-checks.js';
import { documentFor } from './search-documents.js';

const BATCH = 2000;

/**
 * Keeps the text index in step with the catalog by following each store's change log from a cursor
 * stored beside the index (search_state.indexed_seq), moved in the same transaction as the index
 * writes: a crash or restart resumes exactly where it stopped, and re-applying a change is harmless
 * (documents are replaced by product_code). The cursor row is locked while indexing, so several
 * processes never index the same changes at once.
 */
export class SearchIndexer {
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(private readonly storage: StorageHandle, private readonly changes: ChangeFeed, private readonly index: TextIndex) {}

  async #lockCursor(trx: Parameters<TextIndex['write']>[0], storeId: string): Promise<number> {
    await trx.insertInto('search_state').values({ store_id: storeId, indexed_seq: 0 }).onConflict((oc) => oc.column('store_id').doNothing()).execute();
    const row = await this.storage.dialect.lockRows(trx.selectFrom('search_state').select('indexed_seq').where('store_id', '=', storeId)).executeTakeFirstOrThrow();
    return Number(row.indexed_seq);
  }

  /** Changes not yet indexed for a store. */
  async lag(storeId: string): Promise<number> {
    const [latest, state] = await Promise.all([
      this.changes.latest(this.storage.db, storeId),
      this.storage.db.selectFrom('search_state').select('indexed_seq').where('store_id', '=', storeId).executeTakeFirst(),
    ]);
    return latest - Number(state?.indexed_seq ?? 0);
  }

  /** Indexes pending changes of one store, in batches; returns how many changes were applied. */
  async catchUp(storeId: string): Promise<number> {
    let applied = 0;
    for (;;) {
      const done = await inTransaction(this.storage, async (trx) => {
        const from = await this.#lockCursor(trx, storeId);
        const changes = await trx.selectFrom('change_log').select(['seq', 'entity', 'entity_key'])
          .where('store_id', '=', storeId).where('seq', '>', from).orderBy('seq').limit(BATCH).execute();
        if (changes.length === 0) return 0;
        const codes = [...new Set(changes.filter((c) => c.entity === 'product').map((c) => c.entity_key))];
        await this.#reindexCodes(trx, storeId, codes, Number(changes[changes.length - 1].seq));
        await trx.updateTable('search_state').set({ indexed_seq: Number(changes[changes.length - 1].seq) }).where('store_id', '=', storeId).execute();
        return changes.length;
      });
      applied += done;
      if (done < BATCH) return applied;
    }
  }

  async #reindexCodes(trx: Parameters<TextIndex['write']>[0], storeId: string, codes: string[], seq: number) {
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
      await this.#lockCursor(trx, storeId);
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
      await trx.updateTable('search_state').set({ indexed_seq: Number(store.change_seq) }).where('store_id', '=', storeId).execute();
      return count;
    });
    return { indexed, seconds: (performance.now() - started) / 1000 };
  }

  /** Every `intervalMs`, indexes the stores whose change log moved past their cursor. */
  start(intervalMs = 200, onError: (error: unknown) => void = () => {}) {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#running) return;
      this.#running = true;
      this.#tick().catch(onError).finally(() => { this.#running = false; });
    }, intervalMs);
    this.#timer.unref();
  }

  async #tick() {
    const behind = await this.storage.db.selectFrom('stores').leftJoin('search_state', 'search_state.store_id', 'stores.id')
      .select('stores.id').where((eb) => eb('stores.change_seq', '>', eb.fn.coalesce('search_state.indexed_seq', eb.lit(0)))).execute();
    for (const { id } of behind) await this.catchUp(id);
  }

  async stop() {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    while (this.#running) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
