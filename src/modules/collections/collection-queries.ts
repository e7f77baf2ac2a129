import type { Db, StorageHandle } from '../../storage/database.js';
import { READ_YOUR_WRITES_LIMIT } from '../../jobs/change-follower.js';
import type { SeqCache } from '../../storage/seq-cache.js';
import type { SignalReader } from '../../catalog/signal-reader.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { isVisibleStatus } from '../../catalog/statuses.js';
import { effectiveCollectionStatus } from '../../catalog/collection-visibility.js';
import type { ProductsReadPort, ProductSummary } from '../products/products.read-port.js';
import type { Store } from '../stores/store.js';
import * as repo from './collections.repository.js';
import { compileSort, sortKey, type SortField, sortSpec } from './collection-rules.js';
import {
  compileFilters,
  matches,
  RuleError,
  type AudienceResolver,
  type CompiledFilters,
} from '../../catalog/filters.js';
import {
  applyFields,
  defaults,
  isStatic,
  type CollectionDocument,
  type CollectionStatus,
} from './collection-document.js';
import type { CollectionMembership } from './collection-membership.js';

/** `readYourWrites`: let the membership follower apply the store's few pending changes first (the route says so). */
export interface ReadOptions {
  readYourWrites: boolean;
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

/** What storefronts and the console read of collections: listings, the tree, members, previews. */
export class CollectionQueries {
  /**
   * Members ordered by signals and the pages read in that order, per shopper taste (or member list)
   * and collection, with what they were computed from (each replaced, never changed, when it moves).
   */
  readonly #signalOrders = new WeakMap<object, Map<string, SignalOrder>>();

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      membership: CollectionMembership;
      /** A store's collections with their counts, kept while its change sequence stands. */
      snapshots: SeqCache;
      /** Member pages, kept like the snapshot while the store's catalog stands (the listing cache). */
      listingPages: SeqCache;
      products: ProductsReadPort;
      audiences: (storeId: string, db: Db) => Promise<AudienceResolver>;
      /** The store's signals for `sortBy.static` (quality from the listing, trend from shopper events). */
      signals?: StaticSignals;
    },
  ) {}

  /**
   * What a collection would hold, without saving anything: the effective status, the exact total and
   * the first members (heroes first, then the rule members in sortBy order), as the members' listing
   * would show them once saved.
   */
  async preview(store: Store, item: Record<string, unknown>, limit: number) {
    const db = this.deps.storage.db;
    let doc: CollectionDocument;
    let filters: CompiledFilters | undefined;
    let sort: SortField[] = [];
    let resolver: AudienceResolver | undefined;
    try {
      const { id: _id, parentId: _parentId, ...fields } = item;
      doc = applyFields(defaults('preview'), fields);
      if (!isStatic(doc)) {
        resolver = await this.deps.audiences(store.id, db);
        filters = compileFilters(doc.filters, resolver);
        sort = compileSort(doc.sortBy);
      }
    } catch (error) {
      if (error instanceof RuleError) throw new InvalidInputError(error.message, error.reason);
      throw error;
    }
    const heroes = await this.deps.products.summariesByCodes(store.id, doc.heroProducts, { visibleOnly: true });
    const heroCodes = new Set(heroes.map((hero) => hero.product_code));
    let members: Array<{ code: string; key: string }> = [];
    if (filters && resolver) {
      const rules = filters;
      const audience = resolver;
      members = (await this.deps.membership.allProducts(db, store.id))
        .filter((p) => isVisibleStatus(p.status) && !heroCodes.has(p.code) && matches(rules, p.attributes, audience))
        .map((p) => ({ code: p.code, key: sortKey(sort, p.attributes) }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    }
    const total = heroes.length + members.length;
    const status: CollectionStatus = effectiveCollectionStatus(doc.status, total, doc.minProducts);
    const firstHeroes = heroes.slice(0, limit);
    const rest = await this.deps.products.summariesByCodes(
      store.id,
      members.slice(0, limit - firstHeroes.length).map((member) => member.code),
      { visibleOnly: false },
    );
    return { status, totalProducts: total, products: [...firstHeroes, ...rest] };
  }

  /**
   * What reads cache under: the memberships are the follower's, written after the catalog write that
   * bumped the sequence, so a read first lets the follower catch up. When it is too far behind to wait
   * for, the read is of that moment only (keyed by the time, so never reused).
   */
  async #readKey(store: Store, options: ReadOptions): Promise<string> {
    const { lag } = await this.deps.membership.follower.readYourWritesAt(store, { apply: options.readYourWrites });
    // Behind and not catching up (too far, or not asked to): a read of that moment only.
    return lag === 0 || (options.readYourWrites && lag <= READ_YOUR_WRITES_LIMIT) ? 'caught up' : `at ${Date.now()}`;
  }

  /** Every collection of the store with its exact total and effective status, cached until the store's catalog moves. */
  async #snapshot(store: Store, readKey: string): Promise<Snapshot> {
    return this.deps.snapshots.get(
      store,
      `collections:${readKey}`,
      async () => {
        const db = this.deps.storage.db;
        const rows = await repo.listDocuments(db, store.id);
        const docs = rows.map((row) => JSON.parse(row.document) as CollectionDocument);
        const memberCounts = await repo.visibleMemberCounts(db, store.id);
        const heroes = [...new Set(docs.flatMap((d) => d.heroProducts))];
        const visibleHeroes = await this.deps.products.visibleCodes(store.id, heroes);
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

  async list(store: Store, query: { statuses: string[]; offset: number; limit: number }, options: ReadOptions) {
    const { views } = await this.#snapshot(store, await this.#readKey(store, options));
    const wanted = query.statuses.length > 0 ? views.filter((v) => query.statuses.includes(v.status)) : views;
    return wanted.slice(query.offset, query.offset + query.limit);
  }

  async hierarchy(store: Store, options: ReadOptions) {
    const { views } = await this.#snapshot(store, await this.#readKey(store, options));
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

  /** `shopper_id`: the shopper browsing, for a collection whose sortBy.static enables personalization. */
  async products(
    store: Store,
    id: string,
    page: { offset: number; limit: number; shopper_id?: string },
    options: ReadOptions,
  ) {
    const readKey = await this.#readKey(store, options);
    const { byId } = await this.#snapshot(store, readKey);
    const view = byId.get(id);
    if (!view) throw new NotFoundError(`collection ${id} not found`, 'id');
    const flags = enabledSignals(view, page.shopper_id !== undefined);
    if (flags.length > 0 && this.deps.signals)
      return this.#bySignals(store, view, flags, { offset: page.offset, limit: page.limit }, page.shopper_id, options);
    // A storefront shows the same collection pages again and again between catalog writes.
    return this.deps.listingPages.get(
      store,
      `collection-members:${id}:${page.offset}:${page.limit}:${readKey}`,
      () => this.#members(store, view, page),
      (members) => 2 * JSON.stringify(members.products).length,
    );
  }

  /**
   * Every visible member's code in the collection's order (heroes, then the rule members in sortBy
   * order), kept like member pages while the store's catalog stands: browsing a collection page.
   */
  async memberCodes(store: Store, id: string, options: ReadOptions): Promise<string[]> {
    const readKey = await this.#readKey(store, options);
    const view = (await this.#snapshot(store, readKey)).byId.get(id);
    if (!view) throw new NotFoundError(`collection ${id} not found`, 'collection_id');
    return this.deps.listingPages.get(
      store,
      `collection-codes:${id}:${readKey}`,
      async () => {
        const heroes = [...(await this.deps.products.visibleCodes(store.id, view.heroProducts))];
        const ordered = view.heroProducts.filter((code) => heroes.includes(code));
        if (isStatic(view)) return ordered;
        const spec = sortSpec(compileSort(view.sortBy));
        const rest = await repo.pageOfVisibleMembers(this.deps.storage.db, store.id, id, spec, view.heroProducts, {
          offset: 0,
          limit: view.totalProducts + 1,
        });
        return [...ordered, ...rest];
      },
      (codes) => 64 * codes.length,
    );
  }

  /**
   * `sortBy.static`: the members after the heroes ordered by the sum of the enabled signals, each
   * normalised to 0..1 within the store (qualityScore as is, trendScore by the store's highest,
   * personalization by the shopper's best possible affinity), then by `sortBy.dynamic` and
   * product_code (the order they come in). personalization acts only for a request naming its shopper.
   */
  async #bySignals(
    store: Store,
    view: CollectionView,
    flags: StaticFlag[],
    page: { offset: number; limit: number },
    shopperId: string | undefined,
    options: ReadOptions,
  ) {
    const signals = this.deps.signals!;
    const [codes, quality, trend, personal] = await Promise.all([
      this.memberCodes(store, view.id, options),
      flags.includes('qualityScore') ? signals.quality(store) : undefined,
      flags.includes('trendScore') ? signals.trend(store.id) : undefined,
      flags.includes('personalization') && shopperId ? signals.personal(store, shopperId) : undefined,
    ]);
    // The order, and the pages read in it, stand while the members (a catalog version: quality moves
    // with it), the signals (a map per read) and the shopper's taste (per read) do: kept per taste,
    // else per member list.
    const key = `${view.id}\u0000${flags.join(',')}`;
    const holder = personal ?? codes;
    let byKey = this.#signalOrders.get(holder);
    if (!byKey) this.#signalOrders.set(holder, (byKey = new Map()));
    let kept = byKey.get(key);
    if (!kept || kept.codes !== codes || kept.trend !== trend) {
      const order = orderBySignals(codes, new Set(view.heroProducts), quality, trend, personal?.affinity);
      kept = { codes, trend, order, pages: new Map() };
      byKey.set(key, kept);
    }
    const pageKey = `${page.offset}:${page.limit}`;
    let products = kept.pages.get(pageKey);
    if (!products) {
      if (kept.pages.size >= PAGES_KEPT) kept.pages.clear();
      const pageCodes = kept.order.slice(page.offset, page.offset + page.limit);
      products = this.deps.products.summariesByCodes(store.id, pageCodes, { visibleOnly: true });
      kept.pages.set(pageKey, products);
      const pages = kept.pages;
      products.catch(() => pages.delete(pageKey));
    }
    return { total: view.totalProducts, products: await products };
  }

  async #members(store: Store, view: CollectionView, page: { offset: number; limit: number }) {
    const id = view.id;
    // Heroes first, in their given order (only visible ones); then the rule members in sortBy order.
    const heroes = await this.deps.products.summariesByCodes(store.id, view.heroProducts, { visibleOnly: true });
    const firstHeroes = heroes.slice(page.offset, page.offset + page.limit);
    let rest: typeof heroes = [];
    const remaining = page.limit - firstHeroes.length;
    if (!isStatic(view) && remaining > 0) {
      const spec = sortSpec(compileSort(view.sortBy));
      const codes = await repo.pageOfVisibleMembers(this.deps.storage.db, store.id, id, spec, view.heroProducts, {
        offset: Math.max(0, page.offset - heroes.length),
        limit: remaining,
      });
      rest = await this.deps.products.summariesByCodes(store.id, codes, { visibleOnly: false });
    }
    return { total: view.totalProducts, products: [...firstHeroes, ...rest] };
  }
}

/** At most this many pages are kept per signal order (a crawler walking every page starts over). */
const PAGES_KEPT = 200;

interface SignalOrder {
  codes: string[];
  trend: unknown;
  order: string[];
  pages: Map<string, Promise<ProductSummary[]>>;
}

/** The signals `sortBy.static` can enable. */
type StaticFlag = 'qualityScore' | 'trendScore' | 'personalization';

/** Heroes first (their order), then the rest by summed signals, ties in the order given. */
function orderBySignals(
  codes: string[],
  heroes: Set<string>,
  quality: ((code: string) => number) | undefined,
  trend: SignalReader<{ trend: number }> | undefined,
  personal: ((code: string) => number) | undefined,
): string[] {
  let highest = 0;
  trend?.forEach((signal) => {
    if (signal.trend > highest) highest = signal.trend;
  });
  const score = (code: string) =>
    (quality ? quality(code) : 0) +
    (trend && highest > 0 ? (trend.get(code)?.trend ?? 0) / highest : 0) +
    (personal ? personal(code) : 0);
  const rest = codes
    .filter((code) => !heroes.has(code))
    .map((code, order) => ({ code, order, score: score(code) }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ code }) => code);
  return [...codes.filter((code) => heroes.has(code)), ...rest];
}

/** Where collection pages read signals from (the products module's listing, the events module). */
export interface StaticSignals {
  quality(store: Store): Promise<(code: string) => number>;
  /** Per product code its signals (the same map object while they stand: orders are kept per map). */
  trend(storeId: string): Promise<SignalReader<{ trend: number }>>;
  /**
   * A shopper's affinity per product code, 0..1 (the same object while their taste stands); undefined
   * for a shopper without events.
   */
  personal(store: Store, shopperId: string): Promise<{ affinity: (code: string) => number } | undefined>;
}

/** The flags that act on this request: personalization only for a request naming its shopper. */
function enabledSignals(view: CollectionView, forShopper: boolean): StaticFlag[] {
  const flags = view.sortBy.static;
  return (['qualityScore', 'trendScore', 'personalization'] as const).filter(
    (flag) => flags[flag] === true && (flag !== 'personalization' || forShopper),
  );
}
