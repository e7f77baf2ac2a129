import { randomBytes } from 'node:crypto';
import type { Db, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeEntry, ChangeFeed } from '../../storage/change-feed.js';
import type { ChangeFollower } from '../../jobs/change-follower.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';
import type { SeqCache } from '../../storage/seq-cache.js';
import { InvalidInputError, PayloadTooLargeError } from '../../errors.js';
import { isVisibleStatus } from '../../catalog/statuses.js';
import type { ProductRecord, ProductsReadPort } from '../products/products.read-port.js';
import type { Store } from '../stores/store.js';
import * as repo from './collections.repository.js';
import { RuleError, type AudienceResolver } from '../../catalog/filters.js';
import { applyFields, checkId, defaults, isStatic, type CollectionDocument } from './collection-document.js';
import { CollectionMembership } from './collection-membership.js';
import { CollectionQueries, type ReadOptions, type StaticSignals } from './collection-queries.js';
import { MAX_COLLECTION_ITEMS } from '../../catalog/limits.js';

export type { CollectionView } from './collection-queries.js';

export interface CollectionFailure {
  index: number;
  id: string | null;
  reason: string;
  details: string;
}

const newId = () => `col_${randomBytes(9).toString('base64url')}`;

/**
 * Collections of a store (CONTRACT §9): this service writes them (create, update, delete, in one
 * transaction each); `membership` evaluates and follows their rules; `queries` answers the reads.
 */
export class CollectionsService {
  readonly membership: CollectionMembership;
  readonly queries: CollectionQueries;
  private readonly storage: StorageHandle;
  private readonly changes: ChangeFeed;

  constructor(deps: {
    storage: StorageHandle;
    changeLog: ChangeFeed;
    /** A store's collections with their counts, kept while its change sequence stands. */
    snapshots: SeqCache;
    /** Member pages, kept like the snapshot while the store's catalog stands (the listing cache). */
    listingPages: SeqCache;
    products: ProductsReadPort;
    /** How the store reads department labels (its vocabulary overrides), for Department filters. */
    audiences: (storeId: string, db: Db) => Promise<AudienceResolver>;
    /** Signals for `sortBy.static` (quality, trend). */
    signals?: StaticSignals;
    onError?: WorkerErrorLog;
  }) {
    this.storage = deps.storage;
    this.changes = deps.changeLog;
    this.membership = new CollectionMembership(deps);
    this.queries = new CollectionQueries({ ...deps, membership: this.membership });
  }

  /** Keeps rule memberships and member visibility in step with product changes (worker `collections.refresh`). */
  get follower(): ChangeFollower {
    return this.membership.follower;
  }

  // ---- writes -------------------------------------------------------------------------------

  async create(store: Store, items: Array<Record<string, unknown>>) {
    const { saved, ...rest } = await this.#write(store, items, 'create');
    return { created: saved, ...rest };
  }

  async update(store: Store, items: Array<Record<string, unknown>>) {
    const { saved, ...rest } = await this.#write(store, items, 'update');
    return { updated: saved, ...rest };
  }

  async #write(store: Store, items: Array<Record<string, unknown>>, mode: 'create' | 'update') {
    if (items.length > MAX_COLLECTION_ITEMS)
      throw new PayloadTooLargeError(`at most ${MAX_COLLECTION_ITEMS} collections per request, got ${items.length}`);
    return inTransaction(this.storage, async (trx) => {
      const now = new Date().toISOString();
      const existing = new Map((await repo.listForWrite(trx, store.id)).map((row) => [row.id, row]));
      const parents = new Map([...existing.values()].map((row) => [row.id, row.parent_id]));
      const seenInBatch = new Set<string>();
      const failures: CollectionFailure[] = [];
      const ids: Array<string | null> = [];
      const saved: CollectionDocument[] = [];
      const entries: ChangeEntry[] = [];
      let products: ProductRecord[] | undefined;

      for (const [index, item] of items.entries()) {
        let id: string | null = null;
        try {
          id = mode === 'create' && (item.id === undefined || item.id === null) ? newId() : checkId(item.id);
          if (seenInBatch.has(id)) throw new RuleError('duplicate_id', `id ${id} appears twice in this request`);
          const current = existing.get(id);
          if (mode === 'create' && (current || saved.some((d) => d.id === id)))
            throw new RuleError('already_exists', `collection ${id} already exists`);
          if (mode === 'update' && !current) throw new RuleError('not_found', `collection ${id} does not exist`);
          const base = current ? (JSON.parse(current.document) as CollectionDocument) : defaults(id);
          const doc = applyFields(base, item);
          this.#checkParent(doc, parents);
          seenInBatch.add(id);
          parents.set(id, doc.parentId);
          if (!products) {
            products = await this.membership.allProducts(trx, store.id);
            // The follower records visibility only for stores with collections: the first one starts from the catalog as it is.
            if (existing.size === 0)
              await repo.resetVisibility(
                trx,
                store.id,
                products.filter((p) => !isVisibleStatus(p.status)).map((p) => p.code),
              );
          }
          await this.#save(trx, store.id, doc, products, !!current, now);
          saved.push(doc);
          entries.push({
            entity: 'collection',
            key: id,
            op: current ? 'updated' : 'created',
            status: doc.status,
            fields: Object.keys(item)
              .filter((name) => name !== 'id')
              .sort(),
          });
          ids.push(id);
        } catch (error) {
          if (!(error instanceof RuleError)) throw error;
          failures.push({ index, id, reason: error.reason, details: error.message });
          ids.push(null);
        }
      }
      await this.changes.append(trx, store.id, entries);
      return { saved: saved.length, failed: failures.length, ids, error_info: failures };
    });
  }

  /** The parent must exist in this store (or earlier in the batch) and must not make a cycle. */
  #checkParent(doc: CollectionDocument, parents: Map<string, string | null>) {
    if (doc.parentId === null) return;
    if (doc.parentId === doc.id) throw new RuleError('cycle', 'a collection cannot be its own parent');
    if (!parents.has(doc.parentId))
      throw new RuleError('parent_not_found', `parent collection ${doc.parentId} does not exist in this store`);
    for (let at: string | null | undefined = doc.parentId, hops = 0; at; at = parents.get(at), hops++) {
      if (at === doc.id || hops > 10_000) throw new RuleError('cycle', `parentId ${doc.parentId} would make a cycle`);
    }
  }

  /** Stores a collection and evaluates its rules over the catalog (membership is frozen here when autoRefresh is off). */
  async #save(
    trx: Db,
    storeId: string,
    doc: CollectionDocument,
    products: ProductRecord[],
    exists: boolean,
    now: string,
  ) {
    const row = {
      parent_id: doc.parentId,
      status: doc.status,
      auto_refresh: doc.autoRefresh ? 1 : 0,
      is_static: isStatic(doc) ? 1 : 0,
      document: JSON.stringify(doc),
      updated_at: now,
    };
    if (exists) await repo.updateCollection(trx, storeId, doc.id, row);
    else await repo.insertCollection(trx, storeId, doc.id, row, now);
    await this.membership.evaluate(trx, storeId, doc, products);
  }

  async delete(store: Store, ids: string[]) {
    if (ids.length === 0) throw new InvalidInputError("query parameter 'ids' must name at least one collection", 'ids');
    return inTransaction(this.storage, async (trx) => {
      const failures: CollectionFailure[] = [];
      const deleted: string[] = [];
      for (const [index, id] of ids.entries()) {
        const row = await repo.findCollection(trx, store.id, id);
        if (!row || deleted.includes(id)) {
          failures.push({ index, id, reason: 'not_found', details: `collection ${id} does not exist` });
          continue;
        }
        // Children move up to the deleted collection's parent (documented): nothing is orphaned.
        for (const child of await repo.childrenOf(trx, store.id, id)) {
          const doc = { ...(JSON.parse(child.document) as CollectionDocument), parentId: row.parent_id };
          await repo.updateCollection(trx, store.id, child.id, {
            parent_id: row.parent_id,
            document: JSON.stringify(doc),
          });
        }
        await repo.deleteCollection(trx, store.id, id);
        deleted.push(id);
      }
      await this.changes.append(
        trx,
        store.id,
        deleted.map((key) => ({ entity: 'collection', key, op: 'deleted', status: null, fields: [] })),
      );
      return {
        deleted: deleted.length,
        failed: failures.length,
        ids: ids.map((id) => (deleted.includes(id) ? id : null)),
        error_info: failures,
      };
    });
  }

  // ---- reads (CollectionQueries) ------------------------------------------------------------

  preview(store: Store, item: Record<string, unknown>, limit: number) {
    return this.queries.preview(store, item, limit);
  }

  list(store: Store, query: { statuses: string[]; offset: number; limit: number }, options: ReadOptions) {
    return this.queries.list(store, query, options);
  }

  hierarchy(store: Store, options: ReadOptions) {
    return this.queries.hierarchy(store, options);
  }

  products(
    store: Store,
    id: string,
    page: { offset: number; limit: number; shopper_id?: string },
    options: ReadOptions,
  ) {
    return this.queries.products(store, id, page, options);
  }
}
