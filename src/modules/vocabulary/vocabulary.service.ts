import type { StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
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
