import { randomBytes } from 'node:crypto';
import type { Executor, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import type { ChangeFeed } from '../../changes/change-feed.js';
import { ChangeFollower, type FollowedChange } from '../../changes/change-follower.js';
import type { SeqCache } from '../../changes/seq-cache.js';
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import { VISIBLE_STATUSES } from '../products/quality-checks.js';
import type { Store } from '../stores/store.js';
import { compileFilters, compileSort, matches, RuleError, sortKey } from './collection-rules.js';
import { applyFields, checkId, defaults, isStatic, type CollectionDocument, type CollectionStatus } from './collection-document.js';

export const MAX_COLLECTION_ITEMS = 100;
const INLINE_CATCH_UP = 500;

export interface CollectionFailure { index: number; id: string | null; reason: string; details: string }
export interface CollectionView extends CollectionDocument { totalProducts: number }
interface Snapshot { views: CollectionView[]; byId: Map<string, CollectionView> }

const visible = [...VISIBLE_STATUSES];
const newId = () => `col_${randomBytes(9).toString('base64url')}`;

/** Collections of a store: rule and manual membership, hierarchy, and the members' listing (CONTRACT §9). */
export class CollectionsService {
  readonly #follower: ChangeFollower;

  constructor(private readonly storage: StorageHandle, private readonly changes: ChangeFeed, private readonly snapshots: SeqCache) {
    this.#follower = new ChangeFollower(storage, changes, 'collections', (trx, storeId, batch) => this.#refresh(trx, storeId, batch));
  }

  start(intervalMs = 200, onError?: (error: unknown) => void) { this.#follower.start(intervalMs, onError); }
  stop() { return this.#follower.stop(); }
  catchUp(storeId: string) { return this.#follower.catchUp(storeId); }

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
    if (items.length > MAX_COLLECTION_ITEMS) throw new PayloadTooLargeError(`at most ${MAX_COLLECTION_ITEMS} collections per request, got ${items.length}`);
    return inTransaction(this.storage, async (trx) => {
      const now = new Date().toISOString();
      const existing = new Map((await trx.selectFrom('collections').select(['id', 'parent_id', 'document']).where('store_id', '=', store.id).execute())
        .map((row) => [row.id, row]));
      const parents = new Map([...existing.values()].map((row) => [row.id, row.parent_id]));
      const seenInBatch = new Set<string>();
      const failures: CollectionFailure[] = [];
      const ids: Array<string | null> = [];
      const saved: CollectionDocument[] = [];
      let products: Array<{ code: string; attributes: Record<string, unknown> }> | undefined;

      for (const [index, item] of items.entries()) {
        let id: string | null = null;
        try {
          id = mode === 'create' && (item.id === undefined || item.id === null) ? newId() : checkId(item.id);
          if (seenInBatch.has(id)) throw new RuleError('duplicate_id', `id ${id} appears twice in this request`);
          const current = existing.get(id);
          if (mode === 'create' && (current || saved.some((d) => d.id === id))) throw new RuleError('already_exists', `collection ${id} already exists`);
          if (mode === 'update' && !current) throw new RuleError('not_found', `collection ${id} does not exist`);
          const base = current ? (JSON.parse(current.document) as CollectionDocument) : defaults(id);
          const doc = applyFields(base, item);
          this.#checkParent(doc, parents);
          seenInBatch.add(id);
          parents.set(id, doc.parentId);
          products ??= await this.#allProducts(trx, store.id);
          await this.#save(trx, store.id, doc, products, !!current, now);
          saved.push(doc);
          ids.push(id);
        } catch (error) {
          if (!(error instanceof RuleError)) throw error;
          failures.push({ index, id, reason: error.reason, details: error.message });
          ids.push(null);
        }
      }
      await this.changes.append(trx, store.id, saved.map((doc) => ({ entity: 'collection', key: doc.id, op: 'updated', status: doc.status })));
      return { saved: saved.length, failed: failures.length, ids, error_info: failures };
    });
  }

  /** The parent must exist in this store (or earlier in the batch) and must not make a cycle. */
  #checkParent(doc: CollectionDocument, parents: Map<string, string | null>) {
    if (doc.parentId === null) return;
    if (doc.parentId === doc.id) throw new RuleError('cycle', 'a collection cannot be its own parent');
    if (!parents.has(doc.parentId)) throw new RuleError('parent_not_found', `parent collection ${doc.parentId} does not exist in this store`);
    for (let at: string | null | undefined = doc.parentId, hops = 0; at; at = parents.get(at), hops++) {
      if (at === doc.id || hops > 10_000) throw new RuleError('cycle', `parentId ${doc.parentId} would make a cycle`);
    }
  }

  async #allProducts(trx: Executor, storeId: string) {
    const rows = await trx.selectFrom('products').select(['product_code', 'attributes']).where('store_id', '=', storeId).execute();
    return rows.map((row) => ({ code: row.product_code, attributes: JSON.parse(row.attributes) as Record<string, unknown> }));
  }

  /** Stores a collection and evaluates its rules over the catalog (membership is frozen here when autoRefresh is off). */
  async #save(trx: Executor, storeId: string, doc: CollectionDocument, products: Array<{ code: string; attributes: Record<string, unknown> }>, exists: boolean, now: string) {
    const row = { parent_id: doc.parentId, status: doc.status, auto_refresh: doc.autoRefresh ? 1 : 0, is_static: isStatic(doc) ? 1 : 0, document: JSON.stringify(doc), updated_at: now };
    if (exists) await trx.updateTable('collections').set(row).where('store_id', '=', storeId).where('id', '=', doc.id).execute();
    else await trx.insertInto('collections').values({ store_id: storeId, id: doc.id, created_at: now, ...row }).execute();
    await trx.deleteFrom('collection_members').where('store_id', '=', storeId).where('collection_id', '=', doc.id).execute();
    if (isStatic(doc)) return;
    const filters = compileFilters(doc.filters);
    const sort = compileSort(doc.sortBy);
    const members = products.filter((p) => matches(filters, p.attributes))
      .map((p) => ({ store_id: storeId, collection_id: doc.id, product_code: p.code, sort_key: sortKey(sort, p.attributes) }));
    for (let i = 0; i < members.length; i += 1000) await trx.insertInto('collection_members').values(members.slice(i, i + 1000)).execute();
  }

  async delete(store: Store, ids: string[]) {
    if (ids.length === 0) throw new InvalidInputError("query parameter 'ids' must name at least one collection", 'ids');
    return inTransaction(this.storage, async (trx) => {
      const failures: CollectionFailure[] = [];
      const deleted: string[] = [];
      for (const [index, id] of ids.entries()) {
        const row = await trx.selectFrom('collections').select(['id', 'parent_id']).where('store_id', '=', store.id).where('id', '=', id).executeTakeFirst();
        if (!row || deleted.includes(id)) { failures.push({ index, id, reason: 'not_found', details: `collection ${id} does not exist` }); continue; }
        // Children move up to the deleted collection's parent (documented): nothing is orphaned.
        const children = await trx.selectFrom('collections').select(['id', 'document']).where('store_id', '=', store.id).where('parent_id', '=', id).execute();
        for (const child of children) {
          const doc = { ...(JSON.parse(child.document) as CollectionDocument), parentId: row.parent_id };
          await trx.updateTable('collections').set({ parent_id: row.parent_id, document: JSON.stringify(doc) }).where('store_id', '=', store.id).where('id', '=', child.id).execute();
        }
        await trx.deleteFrom('collection_members').where('store_id', '=', store.id).where('collection_id', '=', id).execute();
        await trx.deleteFrom('collections').where('store_id', '=', store.id).where('id', '=', id).execute();
        deleted.push(id);
      }
      await this.changes.append(trx, store.id, deleted.map((key) => ({ entity: 'collection', key, op: 'deleted', status: null })));
      return { deleted: deleted.length, failed: failures.length, ids: ids.map((id) => (deleted.includes(id) ? id : null)), error_info: failures };
    });
  }

  // ---- following product changes (autoRefresh) ----------------------------------------------

  /** Re-evaluates only the changed products, against the store's autoRefresh rule collections. */
  async #refresh(trx: Executor, storeId: string, batch: FollowedChange[]) {
    const codes = [...new Set(batch.filter((c) => c.entity === 'product').map((c) => c.key))];
    if (codes.length === 0) return;
    const live = (await trx.selectFrom('collections').select(['id', 'document']).where('store_id', '=', storeId)
      .where('auto_refresh', '=', 1).where('is_static', '=', 0).execute())
      .map((row) => { const doc = JSON.parse(row.document) as CollectionDocument; return { id: row.id, filters: compileFilters(doc.filters), sort: compileSort(doc.sortBy) }; });
    if (live.length === 0) return;
    for (let i = 0; i < codes.length; i += 500) {
      const chunk = codes.slice(i, i + 500);
      const products = await trx.selectFrom('products').select(['product_code', 'attributes']).where('store_id', '=', storeId).where('product_code', 'in', chunk).execute();
      await trx.deleteFrom('collection_members').where('store_id', '=', storeId).where('product_code', 'in', chunk)
        .where('collection_id', 'in', (eb) => eb.selectFrom('collections').select('id').where('store_id', '=', storeId).where('auto_refresh', '=', 1).where('is_static', '=', 0))
        .execute();
      const rows = [];
      for (const product of products) {
        const attributes = JSON.parse(product.attributes) as Record<string, unknown>;
        for (const collection of live) {
          if (matches(collection.filters, attributes)) rows.push({ store_id: storeId, collection_id: collection.id, product_code: product.product_code, sort_key: sortKey(collection.sort, attributes) });
        }
      }
      for (let j = 0; j < rows.length; j += 1000) await trx.insertInto('collection_members').values(rows.slice(j, j + 1000)).execute();
    }
  }

  // ---- reads --------------------------------------------------------------------------------

  /** Every collection of the store with its exact total and effective status, cached until the store's catalog moves. */
  async #snapshot(store: Store): Promise<Snapshot> {
    const lag = await this.#follower.lag(store.id);
    if (lag > 0 && lag <= INLINE_CATCH_UP) await this.#follower.catchUp(store.id);
    return this.snapshots.get(store.id, `collections:${lag > INLINE_CATCH_UP ? Date.now() : 0}`, async () => {
      const db = this.storage.db;
      const rows = await db.selectFrom('collections').select(['id', 'document']).where('store_id', '=', store.id).orderBy('created_at').orderBy('id').execute();
      const docs = rows.map((row) => JSON.parse(row.document) as CollectionDocument);
      const memberCounts = new Map((await db.selectFrom('collection_members as m')
        .innerJoin('products as p', (join) => join.onRef('p.store_id', '=', 'm.store_id').onRef('p.product_code', '=', 'm.product_code'))
        .select(['m.collection_id', (eb) => eb.fn.countAll().as('n')])
        .where('m.store_id', '=', store.id).where('p.status', 'in', visible).groupBy('m.collection_id').execute())
        .map((row) => [row.collection_id, Number(row.n)]));
      const heroes = [...new Set(docs.flatMap((d) => d.heroProducts))];
      const visibleHeroes = new Set<string>();
      const heroMemberships = new Set<string>();
      for (let i = 0; i < heroes.length; i += 500) {
        const chunk = heroes.slice(i, i + 500);
        for (const row of await db.selectFrom('products').select('product_code').where('store_id', '=', store.id).where('status', 'in', visible).where('product_code', 'in', chunk).execute()) visibleHeroes.add(row.product_code);
        for (const row of await db.selectFrom('collection_members').select(['collection_id', 'product_code']).where('store_id', '=', store.id).where('product_code', 'in', chunk).execute()) heroMemberships.add(`${row.collection_id}\u0000${row.product_code}`);
      }
      const views = docs.map((doc) => {
        const shownHeroes = doc.heroProducts.filter((code) => visibleHeroes.has(code));
        const total = isStatic(doc) ? shownHeroes.length
          : (memberCounts.get(doc.id) ?? 0) + shownHeroes.filter((code) => !heroMemberships.has(`${doc.id}\u0000${code}`)).length;
        // Fewer members than minProducts: hidden everywhere while that lasts.
        const status: CollectionStatus = doc.status === 'active' && total < doc.minProducts ? 'hidden' : doc.status;
        return { ...doc, status, totalProducts: total };
      });
      return { views, byId: new Map(views.map((v) => [v.id, v])) };
    });
  }

  async list(store: Store, query: { statuses: string[]; offset: number; limit: number }) {
    const { views } = await this.#snapshot(store);
    const wanted = query.statuses.length > 0 ? views.filter((v) => query.statuses.includes(v.status)) : views;
    return wanted.slice(query.offset, query.offset + query.limit);
  }

  async hierarchy(store: Store) {
    const { views } = await this.#snapshot(store);
    interface Node { collectionId: string; collectionName: string; collectionUrl: string; children: Node[] }
    const active = views.filter((v) => v.status === 'active');
    const activeIds = new Set(active.map((v) => v.id));
    const nodes = new Map<string, Node>(active.map((v) => [v.id, { collectionId: v.id, collectionName: v.name, collectionUrl: v.url, children: [] }]));
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
    const { byId } = await this.#snapshot(store);
    const view = byId.get(id);
    if (!view) throw new NotFoundError(`collection ${id} not found`, 'id');
    const db = this.storage.db;
    // Heroes first, in their given order (only visible ones); then the rule members in sortBy order.
    const heroRows = view.heroProducts.length === 0 ? [] : await db.selectFrom('products').select(['product_code', 'title', 'category', 'price', 'currency', 'attributes'])
      .where('store_id', '=', store.id).where('status', 'in', visible).where('product_code', 'in', view.heroProducts).execute();
    const heroes = view.heroProducts.map((code) => heroRows.find((r) => r.product_code === code)).filter((r) => r !== undefined);
    const page1 = heroes.slice(page.offset, page.offset + page.limit);
    let rest: typeof heroRows = [];
    const remaining = page.limit - page1.length;
    if (!isStatic(view) && remaining > 0) {
      // Walk the members in sort order and probe each one's visibility, stopping at the page's end
      // (joining from products instead made the planner sort the whole catalog).
      let query = db.selectFrom('collection_members as m').select('m.product_code')
        .where('m.store_id', '=', store.id).where('m.collection_id', '=', id)
        .where((eb) => eb.exists(eb.selectFrom('products as p').select('p.product_code')
          .whereRef('p.store_id', '=', 'm.store_id').whereRef('p.product_code', '=', 'm.product_code').where('p.status', 'in', visible)));
      if (view.heroProducts.length > 0) query = query.where('m.product_code', 'not in', view.heroProducts);
      const codes = (await query.orderBy('m.sort_key').orderBy('m.product_code')
        .limit(remaining).offset(Math.max(0, page.offset - heroes.length)).execute()).map((row) => row.product_code);
      const details = codes.length === 0 ? [] : await db.selectFrom('products').select(['product_code', 'title', 'category', 'price', 'currency', 'attributes'])
        .where('store_id', '=', store.id).where('product_code', 'in', codes).execute();
      const byCode = new Map(details.map((row) => [row.product_code, row]));
      rest = codes.map((code) => byCode.get(code)).filter((row) => row !== undefined);
    }
    return {
      total: view.totalProducts,
      products: [...page1, ...rest].map((row) => {
        const attributes = JSON.parse(row.attributes) as Record<string, unknown>;
        const price = row.price !== null && /^\d+(\.\d+)?$/.test(row.price.trim()) ? Number(row.price) : null;
        return { product_code: row.product_code, title: row.title ?? '', category: row.category ?? '', price, currency: row.currency ?? '', image_url: typeof attributes['Image URL 1'] === 'string' ? attributes['Image URL 1'] : '' };
      }),
    };
  }
}
