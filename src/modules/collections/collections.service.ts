import { randomBytes } from 'node:crypto';
import type { Db, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeEntry, ChangeFeed } from '../../jobs/change-feed.js';
import { ChangeFollower, READ_YOUR_WRITES_LIMIT, type FollowedChange } from '../../jobs/change-follower.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';
import type { SeqCache } from '../../storage/seq-cache.js';
import { chunked } from '../../storage/chunks.js';
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import { isVisibleStatus } from '../../catalog/statuses.js';
import { effectiveCollectionStatus } from '../../catalog/collection-visibility.js';
import type { ProductRecord, ProductsReadPort } from '../products/products.read-port.js';
import type { Store } from '../stores/store.js';
import * as repo from './collections.repository.js';
import {
  compileFilters,
  compileSort,
  matches,
  RuleError,
  RuleIndex,
  sortKey,
  sortSpec,
  type AudienceResolver,
  type CompiledFilters,
  type SortField,
} from './collection-rules.js';
import {
  applyFields,
  checkId,
  defaults,
  isStatic,
  type CollectionDocument,
  type CollectionStatus,
} from './collection-document.js';

export const MAX_COLLECTION_ITEMS = 100;

export interface CollectionFailure {
  index: number;
  id: string | null;
  reason: string;
  details: string;
}
export interface CollectionView extends CollectionDocument {
  totalProducts: number;
}
interface Snapshot {
  views: CollectionView[];
  byId: Map<string, CollectionView>;
  /** Estimated memory, for the cache's budget. */
  bytes: number;
}

const newId = () => `col_${randomBytes(9).toString('base64url')}`;

/** Collections of a store: rule and manual membership, hierarchy, and the members' listing (CONTRACT §9). */
interface LiveRule {
  id: string;
  filters: CompiledFilters;
  sort: SortField[];
  /** sortSpec(sort): the key space its members' sort keys live in. */
  spec: string;
}
interface LiveRules {
  signature: string;
  resolver: AudienceResolver;
  size: number;
  /** The live collections' ids: the memberships the follower owns. */
  ids: Set<string>;
  index: RuleIndex<LiveRule>;
}

export class CollectionsService {
  /** Keeps rule memberships and member visibility in step with product changes (worker `collections.refresh`). */
  readonly follower: ChangeFollower;
  readonly #rules = new Map<string, LiveRules>();

  constructor(
    private readonly storage: StorageHandle,
    private readonly changes: ChangeFeed,
    private readonly snapshots: SeqCache,
    /** Member pages, kept like the snapshot while the store's catalog stands (the listing cache). */
    private readonly pages: SeqCache,
    private readonly catalog: ProductsReadPort,
    /** How the store reads department labels (its vocabulary overrides), for Department filters. */
    private readonly audiences: (storeId: string, db: Db) => Promise<AudienceResolver>,
    onError?: WorkerErrorLog,
  ) {
    this.follower = new ChangeFollower(
      storage,
      changes,
      'collections',
      (trx, storeId, batch) => this.#refresh(trx, storeId, batch),
      {
        name: 'collections.refresh',
        onError,
      },
    );
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
            products = await this.#allProducts(trx, store.id);
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

  async #allProducts(trx: Db, storeId: string): Promise<ProductRecord[]> {
    const all: ProductRecord[] = [];
    for await (const page of this.catalog.pageAll(storeId, { db: trx })) all.push(...page);
    return all;
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
    await repo.clearMembers(trx, storeId, doc.id);
    if (isStatic(doc)) return;
    const resolver = await this.audiences(storeId, trx);
    const filters = compileFilters(doc.filters, resolver);
    const sort = compileSort(doc.sortBy);
    const members = products.filter((p) => matches(filters, p.attributes, resolver));
    await repo.insertMembers(
      trx,
      members.map((p) => ({ store_id: storeId, collection_id: doc.id, product_code: p.code })),
    );
    const spec = sortSpec(sort);
    if (spec !== '')
      await this.#writeSortKeys(trx, storeId, spec, new Map(members.map((p) => [p.code, sortKey(sort, p.attributes)])));
  }

  /** Writes the keys under `spec` that are missing or differ from the stored ones (most are unchanged). */
  async #writeSortKeys(trx: Db, storeId: string, spec: string, wanted: Map<string, string>) {
    const stored = await repo.sortKeysOf(trx, storeId, spec, [...wanted.keys()]);
    const rows: repo.SortKeyRow[] = [];
    for (const [code, key] of wanted)
      if (stored.get(code) !== key)
        rows.push({ store_id: storeId, sort_spec: spec, product_code: code, sort_key: key });
    await repo.upsertSortKeys(trx, rows);
  }

  /**
   * What a collection would hold, without saving anything: the effective status, the exact total and
   * the first members (heroes first, then the rule members in sortBy order), as the members' listing
   * would show them once saved.
   */
  async preview(store: Store, item: Record<string, unknown>, limit: number) {
    const db = this.storage.db;
    let doc: CollectionDocument;
    let filters: CompiledFilters | undefined;
    let sort: SortField[] = [];
    let resolver: AudienceResolver | undefined;
    try {
      const { id: _id, parentId: _parentId, ...fields } = item;
      doc = applyFields(defaults('preview'), fields);
      if (!isStatic(doc)) {
        resolver = await this.audiences(store.id, db);
        filters = compileFilters(doc.filters, resolver);
        sort = compileSort(doc.sortBy);
      }
    } catch (error) {
      if (error instanceof RuleError) throw new InvalidInputError(error.message, error.reason);
      throw error;
    }
    const heroes = await this.catalog.summariesByCodes(store.id, doc.heroProducts, { visibleOnly: true });
    const heroCodes = new Set(heroes.map((hero) => hero.product_code));
    let members: Array<{ code: string; key: string }> = [];
    if (filters && resolver) {
      const rules = filters;
      const audience = resolver;
      members = (await this.#allProducts(db, store.id))
        .filter((p) => isVisibleStatus(p.status) && !heroCodes.has(p.code) && matches(rules, p.attributes, audience))
        .map((p) => ({ code: p.code, key: sortKey(sort, p.attributes) }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    }
    const total = heroes.length + members.length;
    const status: CollectionStatus = effectiveCollectionStatus(doc.status, total, doc.minProducts);
    const firstHeroes = heroes.slice(0, limit);
    const rest = await this.catalog.summariesByCodes(
      store.id,
      members.slice(0, limit - firstHeroes.length).map((member) => member.code),
      { visibleOnly: false },
    );
    return { status, totalProducts: total, products: [...firstHeroes, ...rest] };
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

  // ---- following product changes (autoRefresh) ----------------------------------------------

  /**
   * Re-evaluates only the changed products against the store's live rule collections, and
   * records their visibility (frozen collections keep members but show only visible ones).
   */
  async #refresh(trx: Db, storeId: string, batch: FollowedChange[]) {
    const codes = [...new Set(batch.filter((c) => c.entity === 'product').map((c) => c.key))];
    if (codes.length === 0 || !(await repo.hasCollections(trx, storeId))) return;
    const resolver = await this.audiences(storeId, trx);
    const live = await this.#liveRules(trx, storeId, resolver);
    for (const chunk of chunked(trx, codes, { maxItems: 500 })) {
      const products = await this.catalog.attributesByCodes(storeId, chunk, trx);
      const visible = new Set(products.filter((p) => isVisibleStatus(p.status)).map((p) => p.code));
      await repo.markVisibility(
        trx,
        storeId,
        [...visible],
        chunk.filter((code) => !visible.has(code)),
      );
      const found = new Set(products.map((p) => p.code));
      const gone = chunk.filter((code) => !found.has(code));
      if (gone.length > 0) await repo.deleteSortKeys(trx, storeId, gone);
      if (live.size === 0) continue;
      const desired = new Map<string, repo.MemberRow>();
      // One key per product and sort spec, whatever the number of collections sorted that way.
      const keys = new Map<string, Map<string, string>>();
      for (const product of products) {
        for (const collection of live.index.matching(product.attributes)) {
          const row = { store_id: storeId, collection_id: collection.id, product_code: product.code };
          desired.set(membershipKey(row), row);
          if (collection.spec === '') continue;
          let bySpec = keys.get(collection.spec);
          if (!bySpec) keys.set(collection.spec, (bySpec = new Map()));
          if (!bySpec.has(product.code)) bySpec.set(product.code, sortKey(collection.sort, product.attributes));
        }
      }
      await this.#applyMembershipDiff(trx, storeId, live, desired, await repo.membershipRowsOf(trx, storeId, chunk));
      for (const [spec, wanted] of keys) await this.#writeSortKeys(trx, storeId, spec, wanted);
    }
  }

  /**
   * Writes only what changed: a product that stays in its collections costs no membership write
   * (its new sort keys are written apart, once per sort spec), one that no longer matches leaves.
   * Memberships of static or frozen collections are not the follower's to touch.
   */
  async #applyMembershipDiff(
    trx: Db,
    storeId: string,
    live: LiveRules,
    desired: Map<string, repo.MemberRow>,
    existing: repo.MemberRow[],
  ) {
    const leaving: repo.MemberRow[] = [];
    for (const row of existing) {
      if (!live.ids.has(row.collection_id)) continue;
      const key = membershipKey(row);
      if (desired.has(key)) desired.delete(key);
      else leaving.push(row);
    }
    await repo.deleteMembershipRows(trx, storeId, leaving);
    await repo.insertMembers(trx, [...desired.values()]);
  }

  /**
   * The store's live rule collections, compiled and filed by attribute (RuleIndex), kept until a
   * rule collection is created, changed or deleted, or the store's vocabulary changes.
   */
  async #liveRules(trx: Db, storeId: string, resolver: AudienceResolver): Promise<LiveRules> {
    const signature = await repo.liveRulesSignature(trx, storeId);
    const cached = this.#rules.get(storeId);
    if (cached && cached.signature === signature && cached.resolver === resolver) return cached;
    const rules = (await repo.liveRuleCollections(trx, storeId)).map((row) => {
      const doc = JSON.parse(row.document) as CollectionDocument;
      const sort = compileSort(doc.sortBy);
      return { id: row.id, filters: compileFilters(doc.filters, resolver), sort, spec: sortSpec(sort) };
    });
    const live = {
      signature,
      resolver,
      size: rules.length,
      ids: new Set(rules.map((rule) => rule.id)),
      index: new RuleIndex(rules, resolver),
    };
    if (this.#rules.size > 1_000) this.#rules.clear();
    this.#rules.set(storeId, live);
    return live;
  }

  // ---- reads --------------------------------------------------------------------------------

  /**
   * What reads cache under: the memberships are the follower's, written after the catalog write that
   * bumped the sequence, so a read first lets the follower catch up. When it is too far behind to wait
   * for, the read is of that moment only (keyed by the time, so never reused).
   */
  async #readKey(store: Store): Promise<string> {
    const lag = await this.follower.readYourWrites(store);
    return lag > READ_YOUR_WRITES_LIMIT ? `at ${Date.now()}` : 'caught up';
  }

  /** Every collection of the store with its exact total and effective status, cached until the store's catalog moves. */
  async #snapshot(store: Store, readKey?: string): Promise<Snapshot> {
    const key = readKey ?? (await this.#readKey(store));
    return this.snapshots.get(
      store,
      `collections:${key}`,
      async () => {
        const db = this.storage.db;
        const rows = await repo.listDocuments(db, store.id);
        const docs = rows.map((row) => JSON.parse(row.document) as CollectionDocument);
        const memberCounts = await repo.visibleMemberCounts(db, store.id);
        const heroes = [...new Set(docs.flatMap((d) => d.heroProducts))];
        const visibleHeroes = await this.catalog.visibleCodes(store.id, heroes);
        const heroMemberships = new Set(
          (await repo.membershipsOf(db, store.id, heroes)).map(
            (row) => `${row.collection_id}\u0000${row.product_code}`,
          ),
        );
        const views = docs.map((doc) => {
          const shownHeroes = doc.heroProducts.filter((code) => visibleHeroes.has(code));
          const total = isStatic(doc)
            ? shownHeroes.length
            : (memberCounts.get(doc.id) ?? 0) +
              shownHeroes.filter((code) => !heroMemberships.has(`${doc.id}\u0000${code}`)).length;
          const status: CollectionStatus = effectiveCollectionStatus(doc.status, total, doc.minProducts);
          return { ...doc, status, totalProducts: total };
        });
        // Its weight in the cache: the parsed documents take about twice their text's two bytes a character.
        const bytes = rows.reduce((sum, row) => sum + 4 * row.document.length + 200, 0);
        return { views, byId: new Map(views.map((v) => [v.id, v])), bytes };
      },
      (snapshot) => snapshot.bytes,
    );
  }

  async list(store: Store, query: { statuses: string[]; offset: number; limit: number }) {
    const { views } = await this.#snapshot(store);
    const wanted = query.statuses.length > 0 ? views.filter((v) => query.statuses.includes(v.status)) : views;
    return wanted.slice(query.offset, query.offset + query.limit);
  }

  async hierarchy(store: Store) {
    const { views } = await this.#snapshot(store);
    interface Node {
      collectionId: string;
      collectionName: string;
      collectionUrl: string;
      children: Node[];
    }
    const active = views.filter((v) => v.status === 'active');
    const activeIds = new Set(active.map((v) => v.id));
    const nodes = new Map<string, Node>(
      active.map((v) => [v.id, { collectionId: v.id, collectionName: v.name, collectionUrl: v.url, children: [] }]),
    );
    const roots: Node[] = [];
    for (const view of active) {
      const node = nodes.get(view.id)!;
      if (view.parentId === null) roots.push(node);
      // A hidden or inactive parent takes its subtree with it.
      else if (activeIds.has(view.parentId)) nodes.get(view.parentId)!.children.push(node);
    }
    return { vendor: store.name, association: roots };
  }

  async products(store: Store, id: string, page: { offset: number; limit: number }) {
    const readKey = await this.#readKey(store);
    const { byId } = await this.#snapshot(store, readKey);
    const view = byId.get(id);
    if (!view) throw new NotFoundError(`collection ${id} not found`, 'id');
    // A storefront shows the same collection pages again and again between catalog writes.
    return this.pages.get(
      store,
      `collection-members:${id}:${page.offset}:${page.limit}:${readKey}`,
      () => this.#members(store, view, page),
      (members) => 2 * JSON.stringify(members.products).length,
    );
  }

  async #members(store: Store, view: CollectionView, page: { offset: number; limit: number }) {
    const id = view.id;
    // Heroes first, in their given order (only visible ones); then the rule members in sortBy order.
    const heroes = await this.catalog.summariesByCodes(store.id, view.heroProducts, { visibleOnly: true });
    const firstHeroes = heroes.slice(page.offset, page.offset + page.limit);
    let rest: typeof heroes = [];
    const remaining = page.limit - firstHeroes.length;
    if (!isStatic(view) && remaining > 0) {
      const spec = sortSpec(compileSort(view.sortBy));
      const codes = await repo.pageOfVisibleMembers(this.storage.db, store.id, id, spec, view.heroProducts, {
        offset: Math.max(0, page.offset - heroes.length),
        limit: remaining,
      });
      rest = await this.catalog.summariesByCodes(store.id, codes, { visibleOnly: false });
    }
    return { total: view.totalProducts, products: [...firstHeroes, ...rest] };
  }
}

function membershipKey(row: repo.MemberRow): string {
  return `${row.collection_id}\u0000${row.product_code}`;
}
