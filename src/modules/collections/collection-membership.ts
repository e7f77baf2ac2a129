import type { Db, StorageHandle } from '../../storage/database.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import { ChangeFollower, type FollowedChange } from '../../jobs/change-follower.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';
import { chunked } from '../../storage/chunks.js';
import { isVisibleStatus } from '../../catalog/statuses.js';
import type { ProductRecord, ProductsReadPort } from '../products/products.read-port.js';
import * as repo from './collections.repository.js';
import { compileSort, RuleIndex, sortKey, sortSpec, type SortField } from './collection-rules.js';
import { compileFilters, matches, type AudienceResolver, type CompiledFilters } from '../../catalog/filters.js';
import { isStatic, type CollectionDocument } from './collection-document.js';

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

/**
 * Which products a rule collection holds: evaluated over the catalog when a collection is saved,
 * then kept in step with product changes for live (autoRefresh) collections by the change follower
 * (worker `collections.refresh`), with each member's visibility and sort keys.
 */
export class CollectionMembership {
  readonly follower: ChangeFollower;
  readonly #rules = new Map<string, LiveRules>();

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      changeLog: ChangeFeed;
      products: ProductsReadPort;
      audiences: (storeId: string, db: Db) => Promise<AudienceResolver>;
      onError?: WorkerErrorLog;
    },
  ) {
    this.follower = new ChangeFollower(
      deps.storage,
      deps.changeLog,
      'collections',
      (trx, storeId, batch) => this.#refresh(trx, storeId, batch),
      { name: 'collections.refresh', onError: deps.onError, grows: ['collection_members'] },
    );
  }

  /** Every product of the store, any status (a rule is evaluated over the whole catalog). */
  async allProducts(db: Db, storeId: string): Promise<ProductRecord[]> {
    const all: ProductRecord[] = [];
    for await (const page of this.deps.products.pageAll(storeId, { db })) all.push(...page);
    return all;
  }

  /** Replaces a saved collection's members with what its rules select from `products` (none for a static one). */
  async evaluate(trx: Db, storeId: string, doc: CollectionDocument, products: ProductRecord[]) {
    await repo.clearMembers(trx, storeId, doc.id);
    if (isStatic(doc)) return;
    const resolver = await this.deps.audiences(storeId, trx);
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
   * Re-evaluates only the changed products against the store's live rule collections, and
   * records their visibility (frozen collections keep members but show only visible ones).
   */
  async #refresh(trx: Db, storeId: string, batch: FollowedChange[]) {
    const codes = [...new Set(batch.filter((c) => c.entity === 'product').map((c) => c.key))];
    if (codes.length === 0 || !(await repo.hasCollections(trx, storeId))) return;
    const resolver = await this.deps.audiences(storeId, trx);
    const live = await this.#liveRules(trx, storeId, resolver);
    for (const chunk of chunked(trx, codes, { maxItems: 500 })) {
      const products = await this.deps.products.attributesByCodes(storeId, chunk, trx);
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
}

function membershipKey(row: repo.MemberRow): string {
  return `${row.collection_id}\u0000${row.product_code}`;
}
