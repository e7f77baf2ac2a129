import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeEntry, ChangeFeed } from '../../storage/change-feed.js';
import { AUDIENCES } from '../../catalog/vocabulary/audiences.js';
import { COLOUR_FAMILIES } from '../../catalog/vocabulary/colours.js';
import { labelKey } from '../../catalog/vocabulary/labels.js';
import { labelsOf } from '../../catalog/vocabulary/store-vocabulary.js';
import {
  overridesOf,
  parseOverrides,
  UNPLACED,
  type VocabularyOverrides,
} from '../../catalog/vocabulary/vocabulary-overrides.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { StoresService } from '../stores/stores.service.js';
import type { ComplementsService } from '../complements/complements.service.js';
import { checkLanguage } from '../stores/stores.service.js';
import { SUPPORTED_LANGUAGES } from '../../languages/languages.js';
import type { Store } from '../stores/store.js';

/** A store's catalog language as the operator API answers it. */
export interface StoreLanguage {
  store_uuid: string;
  language: string;
  /** The language text search answers in: the previous one until the rebuilt index commits. */
  index_language: string;
  reindexing: boolean;
  supported: string[];
}

function languageOf(store: Pick<Store, 'id' | 'language' | 'indexLanguage'>): StoreLanguage {
  return {
    store_uuid: store.id,
    language: store.language,
    index_language: store.indexLanguage,
    reindexing: store.language !== store.indexLanguage,
    supported: [...SUPPORTED_LANGUAGES],
  };
}

/** Label keys whose override was added, removed or changed. */
function changedKeys(before: Record<string, string>, after: Record<string, string>): Set<string> {
  const keyed = (record: Record<string, string>) =>
    new Map(Object.entries(record).map(([label, value]) => [labelKey(label), value]));
  const a = keyed(before);
  const b = keyed(after);
  return new Set([...a.keys(), ...b.keys()].filter((key) => a.get(key) !== b.get(key)));
}

/**
 * The operator side of the catalog vocabulary: what each of a store's category, department and colour
 * labels resolved to and how, and the store's overrides. Overrides apply at once: complete the look
 * rebuilds its index, and products whose department or colour now reads differently go back through
 * the change log, so search documents and collection memberships follow.
 */
export class VocabularyService {
  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly products: ProductsReadPort,
    private readonly stores: StoresService,
    private readonly complements: ComplementsService,
  ) {}

  async report(storeUuid: string) {
    const store = await this.stores.getStore(storeUuid);
    const vocabulary = this.complements.vocabularyOf(store);
    for await (const page of this.products.pageAll(store.id, { pageSize: 2000 }))
      for (const product of page) vocabulary.add(labelsOf(product.attributes));
    return {
      store_uuid: store.id,
      ...vocabulary.report(),
      overrides: vocabulary.overrides,
      groups: [...Object.keys(this.complements.taxonomyOf(store).groups), UNPLACED],
      audiences: [...AUDIENCES],
      colour_families: [...COLOUR_FAMILIES],
    };
  }

  async language(storeUuid: string): Promise<StoreLanguage> {
    return languageOf(await this.stores.getStore(storeUuid));
  }

  /**
   * Sets a store's catalog language (422 listing the supported ones). The catalog vocabulary reads the
   * store's labels in it at once (complete the look rebuilds); the text index is rebuilt in the
   * background by the search follower, the old index answering until the new one commits; every
   * product goes back through the change log so collections and search documents follow.
   */
  async setLanguage(storeUuid: string, input: unknown): Promise<StoreLanguage> {
    const tag = input !== null && typeof input === 'object' ? (input as { language?: unknown }).language : input;
    const language = checkLanguage(tag);
    const store = await this.stores.getStore(storeUuid);
    if (language === store.language) return languageOf(store);
    await inTransaction(this.storage, async (trx) => {
      const seq = await this.changes.latest(store.id, trx);
      // A store without products has no index to rebuild: it switches at once.
      await this.stores.setLanguage(store.id, language, trx, seq === 0 ? language : undefined);
      if (seq === 0) return;
      const touched: ChangeEntry[] = [{ entity: 'store', key: 'language', op: 'updated', status: null, fields: [] }];
      for await (const page of this.products.pageAll(store.id, { pageSize: 2000, db: trx }))
        for (const product of page)
          touched.push({ entity: 'product', key: product.code, op: 'updated', status: product.status, fields: [] });
      await this.changes.append(trx, store.id, touched);
    });
    this.complements.invalidate(store.id);
    return this.language(storeUuid);
  }

  async overrides(storeUuid: string): Promise<VocabularyOverrides> {
    const store = await this.stores.getStore(storeUuid);
    return overridesOf(store.vocabularyOverrides);
  }

  /** Replaces the store's overrides (every section; an absent one is emptied) and answers the new report. */
  async setOverrides(storeUuid: string, input: unknown) {
    const store = await this.stores.getStore(storeUuid);
    const overrides = parseOverrides(input, Object.keys(this.complements.taxonomyOf(store).groups));
    const before = overridesOf(store.vocabularyOverrides);
    const departments = changedKeys(before.departments, overrides.departments);
    const colours = changedKeys(before.colours, overrides.colours);
    await inTransaction(this.storage, async (trx) => {
      await this.stores.setVocabularyOverrides(store.id, JSON.stringify(overrides), trx);
      if (departments.size === 0 && colours.size === 0) return;
      const touched = [];
      for await (const page of this.products.pageAll(store.id, { pageSize: 2000, db: trx })) {
        for (const product of page) {
          const labels = labelsOf(product.attributes);
          if (departments.has(labelKey(labels.department)) || colours.has(labelKey(labels.colour)))
            touched.push({
              entity: 'product' as const,
              key: product.code,
              op: 'updated' as const,
              status: product.status,
              // No stored field changed: the followers re-read the product, the public feed stays quiet.
              fields: [],
            });
        }
      }
      await this.changes.append(trx, store.id, touched);
    });
    this.complements.invalidate(store.id);
    return this.report(storeUuid);
  }
}
