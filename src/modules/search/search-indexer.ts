import type { Db, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import { ChangeFollower } from '../../jobs/change-follower.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';
import type { TextIndex } from '../../search/text-index.js';
import { isVisibleStatus } from '../../catalog/statuses.js';
import type { ProductRecord, ProductsReadPort } from '../products/products.read-port.js';
import type { StoresService } from '../stores/stores.service.js';
import { documentFor } from './search-documents.js';
import { conceptWords } from '../../catalog/vocabulary/search-words.js';
import { labelsOf, vocabularyForStore } from '../../catalog/vocabulary/store-vocabulary.js';
import { analyzerFor } from '../../search/analyzer.js';
import type { Store } from '../stores/store.js';
import * as repo from './search.repository.js';

/**
 * Keeps the text index in step with the catalog by following each store's change log (see
 * ChangeFollower): documents are replaced by product_code, so re-applying a change is harmless.
 */
export class SearchIndexer {
  readonly follower: ChangeFollower;
  #settling: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: StorageHandle,
    changes: ChangeFeed,
    private readonly index: TextIndex,
    private readonly products: ProductsReadPort,
    private readonly stores: StoresService,
    onError?: WorkerErrorLog,
  ) {
    this.follower = new ChangeFollower(
      storage,
      changes,
      'search',
      (trx, storeId, batch) => this.#reindex(trx, storeId, batch),
      {
        name: 'search.index',
        onError,
        grows: ['search_docs'],
      },
    );
    // Not awaited: the read or the background run that applied the changes goes on meanwhile.
    this.follower.onApplied(() => {
      this.#settling = (index.settle?.() ?? Promise.resolve()).catch((error: unknown) =>
        onError?.('search.index', error),
      );
    });
  }

  /** Resolves once the index has been tidied after the changes applied so far (see TextIndex.settle). */
  async settled() {
    await this.#settling;
  }

  async #reindex(trx: Db, storeId: string, batch: Array<{ seq: number; entity: string; key: string }>) {
    if (batch.some((c) => c.entity === 'store' && c.key === 'language')) {
      // A language switch: the whole index again, in this transaction, so the old one answers until it commits.
      await this.#rebuildIn(trx, await this.stores.getStore(storeId, trx), batch[batch.length - 1].seq);
      return;
    }
    const codes = [...new Set(batch.filter((c) => c.entity === 'product').map((c) => c.key))];
    if (codes.length === 0) return;
    const visible = (await this.products.attributesByCodes(storeId, codes, trx)).filter((p) =>
      isVisibleStatus(p.status),
    );
    const visibleCodes = new Set(visible.map((p) => p.code));
    await this.#write(
      trx,
      storeId,
      visible,
      codes.filter((code) => !visibleCodes.has(code)),
      batch[batch.length - 1].seq,
    );
  }

  async #write(trx: Db, storeId: string, products: ProductRecord[], removed: string[], seq: number, store?: Store) {
    // Written in the language the index holds; a rebuild passes the store with its new language.
    const current = store ?? (await this.stores.getStore(storeId, trx));
    const language = store ? store.language : current.indexLanguage;
    const vocabulary = vocabularyForStore({ ...current, language });
    const analyzer = analyzerFor(language);
    const docs = products.map((p) =>
      documentFor(p.code, p.attributes, conceptWords(vocabulary, labelsOf(p.attributes)), analyzer),
    );
    await this.index.write(trx, storeId, docs, removed);
    // Words as stemmed and as written ("clutch" and "clutches"), so a typo of either form is one edit away.
    const frequency = new Map<string, number>();
    for (const doc of docs) {
      for (const term of new Set([
        ...`${doc.titleTerms} ${doc.category} ${doc.other}`.split(' '),
        ...doc.surfaceTerms,
      ])) {
        if (term) frequency.set(term, (frequency.get(term) ?? 0) + 1);
      }
    }
    await repo.addVocabulary(trx, storeId, frequency, seq);
  }

  /** Rebuilds a store's index from its products (`vitrine reindex`). Writers of the store wait meanwhile. */
  async rebuild(storeUuid: string): Promise<{ indexed: number; seconds: number }> {
    const store = await this.stores.getStore(storeUuid);
    const started = performance.now();
    const indexed = await inTransaction(this.storage, async (trx) => {
      // Locking the store row holds product writers back, so the rebuilt index matches one sequence number.
      const seq = await this.stores.lockChangeSequence(trx, store.id);
      await this.follower.lockCursor(trx, store.id);
      const count = await this.#rebuildIn(trx, await this.stores.getStore(store.id, trx), seq);
      await this.follower.moveCursor(trx, store.id, seq);
      return count;
    });
    await this.index.settle?.();
    return { indexed, seconds: (performance.now() - started) / 1000 };
  }

  /** Rebuilds a store's index in the caller's transaction, in the store's language (which it then holds). */
  async #rebuildIn(trx: Db, store: Store, seq: number): Promise<number> {
    await this.index.clearStore(trx, store.id);
    await repo.clearVocabulary(trx, store.id);
    let count = 0;
    for await (const page of this.products.pageAll(store.id, { visibleOnly: true, pageSize: 1000, db: trx })) {
      await this.#write(trx, store.id, page, [], seq, store);
      count += page.length;
    }
    if (store.indexLanguage !== store.language) await this.stores.setIndexLanguage(store.id, store.language, trx);
    return count;
  }
}
