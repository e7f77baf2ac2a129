import type { Db, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import { chunked } from '../../storage/chunks.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { SeqCache } from '../../storage/seq-cache.js';
import { MAX_PRODUCT_CODE_LENGTH as MAX_CODE_LENGTH } from '../../catalog/limits.js';
import {
  channelsByParent,
  codeOf,
  describe,
  linkProblem,
  newAssetId,
  resolveItemTarget,
  storeResolver,
  type AssetFailure,
} from './asset-input.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import { InvalidRequestError } from '../../errors.js';
import type { Store } from '../stores/store.js';
import type { StoresService } from '../stores/stores.service.js';
import { listedName, parseAssetName, placeLinks, type Placement } from './asset-ranks.js';
import * as repo from './assets.repository.js';

/** Asset links per parent product, channel and asset type (CONTRACT §7). */
export class AssetsService {
  readonly #formats: Map<string, string>;
  readonly #channelUsage = new Map<string, { seq: number; usage: Record<string, number> }>();

  private readonly storage: StorageHandle;
  private readonly changes: ChangeFeed;
  private readonly counts: SeqCache;
  private readonly pages: SeqCache;
  private readonly stores: StoresService;
  private readonly products: ProductsReadPort;

  constructor(deps: {
    storage: StorageHandle;
    changeLog: ChangeFeed;
    /** Listing totals, kept while the store's change sequence stands. */
    listingTotals: SeqCache;
    /** Listing pages (the listing cache, VITRINE_LISTING_CACHE_MB). */
    listingPages: SeqCache;
    stores: StoresService;
    products: ProductsReadPort;
    /** The configured asset formats (VITRINE_ASSET_FORMATS). */
    formats: readonly string[];
  }) {
    this.storage = deps.storage;
    this.changes = deps.changeLog;
    this.counts = deps.listingTotals;
    this.pages = deps.listingPages;
    this.stores = deps.stores;
    this.products = deps.products;
    const formats = deps.formats;
    // Accepted case-insensitively, reported in the configured spelling ("3d" -> "3D").
    this.#formats = new Map(formats.map((f) => [f.toLowerCase(), f]));
  }

  get formats(): string[] {
    return [...this.#formats.values()];
  }

  normaliseFormat(value: unknown): string | undefined {
    return typeof value === 'string' ? this.#formats.get(value.trim().toLowerCase()) : undefined;
  }

  #channel(store: Store, requested: unknown): string | undefined {
    if (requested === undefined || requested === null || requested === '') return store.defaultChannel;
    return typeof requested === 'string' && store.channels.includes(requested) ? requested : undefined;
  }

  async createLinks(store: Store, queryChannel: string | undefined, items: Array<Record<string, unknown>>) {
    const failures: AssetFailure[] = [];
    let failed = 0;
    interface Planned {
      index: number;
      key: repo.GroupKey;
      links: Array<{ name: string; url: string }>;
    }
    const planned: Planned[] = [];

    items.forEach((item, index) => {
      const parentCode = codeOf(item.parent_code);
      const names =
        item.assets && typeof item.assets === 'object' && !Array.isArray(item.assets) ? Object.keys(item.assets) : [];
      const failItem = (reason: string, details: string) => {
        failures.push({
          index,
          parent_code: parentCode ?? (typeof item.parent_code === 'string' ? item.parent_code : ''),
          reason,
          details,
        });
        failed += Math.max(1, names.length);
      };
      if (parentCode === undefined)
        return failItem(
          'invalid_parent_code',
          `parent_code must be a non-empty string of at most ${MAX_CODE_LENGTH} characters, got ${describe(item.parent_code)}`,
        );
      const channel = this.#channel(store, item.channel ?? queryChannel);
      if (channel === undefined)
        return failItem(
          'unknown_channel',
          `channel ${describe(item.channel ?? queryChannel)} is not one of the store's channels (${store.channels.join(', ')})`,
        );
      const assetType =
        item.asset_type === undefined || item.asset_type === null ? 'image' : this.normaliseFormat(item.asset_type);
      if (assetType === undefined)
        return failItem(
          'invalid_asset_type',
          `asset_type must be one of ${this.formats.join(', ')}, got ${describe(item.asset_type)}`,
        );
      if (names.length === 0)
        return failItem('invalid_assets', 'assets must be a non-empty object of attribute name -> URL');
      const links: Planned['links'] = [];
      for (const name of names) {
        const url = (item.assets as Record<string, unknown>)[name];
        const problem = linkProblem(name, url);
        if (problem) {
          failures.push({ index, parent_code: parentCode, name, ...problem });
          failed++;
        } else links.push({ name, url: url as string });
      }
      if (links.length > 0) planned.push({ index, key: { storeId: store.id, parentCode, channel, assetType }, links });
    });

    const counts = await inTransaction(this.storage, async (trx) => {
      let created = 0;
      let updated = 0;
      const now = new Date().toISOString();
      const known = await this.products.knownParentCodes(
        store.id,
        [...new Set(planned.map((p) => p.key.parentCode))],
        trx,
      );
      const valid = planned.filter((p) => {
        if (known.has(p.key.parentCode)) return true;
        failures.push({
          index: p.index,
          parent_code: p.key.parentCode,
          reason: 'unknown_parent_code',
          details: `no product has product_code or parent_code ${p.key.parentCode}`,
        });
        failed += p.links.length;
        return false;
      });
      if (valid.length === 0) return { created, updated };
      // The change-log append bumps the store row first: it serialises asset writers of this store.
      await this.changes.append(
        trx,
        store.id,
        channelsByParent(valid.map((p) => ({ parent_code: p.key.parentCode, channel: p.key.channel }))),
      );

      const urls = [...new Set(valid.flatMap((p) => p.links.map((l) => l.url)))];
      const idByUrl = new Map<string, string>();
      for (const chunk of chunked(trx, urls, { maxItems: 500 })) {
        for (const row of await repo.findAssetsByUrl(trx, store.id, chunk)) idByUrl.set(row.url, row.asset_id);
        await repo.insertAssets(
          trx,
          chunk
            .filter((url) => !idByUrl.has(url))
            .map((url) => ({ store_id: store.id, asset_id: newAssetId(), url, created_at: now })),
        );
        for (const row of await repo.findAssetsByUrl(
          trx,
          store.id,
          chunk.filter((url) => !idByUrl.has(url)),
        ))
          idByUrl.set(row.url, row.asset_id);
      }

      // Items naming the same group are applied one after the other, in body order.
      const byGroup = new Map<string, Planned[]>();
      for (const p of valid) {
        const id = `${p.key.parentCode}\u0000${p.key.channel}\u0000${p.key.assetType}`;
        byGroup.set(id, [...(byGroup.get(id) ?? []), p]);
      }
      for (const group of byGroup.values()) {
        const key = group[0].key;
        let links = await repo.groupLinks(trx, key);
        for (const p of group) {
          const placements: Placement[] = p.links.map((l) => ({
            name: parseAssetName(l.name),
            assetId: idByUrl.get(l.url)!,
            url: l.url,
          }));
          const placed = placeLinks(links, placements);
          links = placed.links;
          for (const outcome of placed.outcomes)
            if (outcome === 'created') created++;
            else updated++;
        }
        await repo.writeGroup(trx, key, links, now);
      }
      return { created, updated };
    });
    return {
      created: counts.created,
      updated: counts.updated,
      failed,
      error_info: failures.sort((a, b) => a.index - b.index),
    };
  }

  /** Image links of the given parent codes in every channel, in the caller's transaction (search by photo indexes them). */
  async imageLinksOf(db: Db, storeId: string, parentCodes: string[]) {
    const links: Awaited<ReturnType<typeof repo.imageLinksOf>> = [];
    if (parentCodes.length === 0) return links;
    // Naming the store's channels (fixed when it was created) lets the lookup use the links' primary
    // key (store, channel, type, parent) instead of reading every link of the store.
    const { channels } = await this.stores.getStore(storeId, db);
    for (const chunk of chunked(db, parentCodes, { maxItems: 500 }))
      links.push(...(await repo.imageLinksOf(db, storeId, channels, chunk)));
    return links;
  }

  async listLinks(
    store: Store,
    query: { channel?: string; asset_format?: string; parent_code?: string; offset: number; limit: number },
  ) {
    const channel = this.#channel(store, query.channel);
    if (channel === undefined)
      throw new InvalidRequestError(
        `query parameter 'channel' must be one of the store's channels (${store.channels.join(', ')})`,
        'channel',
      );
    const assetType = query.asset_format === undefined ? 'image' : this.normaliseFormat(query.asset_format);
    if (assetType === undefined)
      throw new InvalidRequestError(
        `query parameter 'asset_format' must be one of ${this.formats.join(', ')}`,
        'asset_format',
      );
    // A storefront asks for the same pages again and again between catalog writes: each page is kept
    // while the store's change sequence stands (asset writes bump it), shared by the requests.
    const page = { channel, assetType, parentCode: query.parent_code, offset: query.offset, limit: query.limit };
    return this.pages
      .get(
        store,
        `assets:${JSON.stringify(page)}`,
        () => this.#pageOfLinks(store, page),
        (listed) => listed.bytes,
      )
      .then((listed) => listed.page);
  }

  async #pageOfLinks(
    store: Store,
    page: { channel: string; assetType: string; parentCode?: string; offset: number; limit: number },
  ) {
    const { channel, assetType } = page;
    const [total, rows] = await Promise.all([
      page.parentCode !== undefined
        ? repo.countGroups(this.storage.db, store.id, channel, assetType, page.parentCode)
        : this.counts.get(store, `asset-groups:${channel}:${assetType}`, () =>
            repo.countGroups(this.storage.db, store.id, channel, assetType),
          ),
      repo.pageOfGroups(this.storage.db, store.id, channel, assetType, page),
    ]);
    const assets: Record<
      string,
      { channel: string; asset_type: string; store_uuid: string; assets: Array<Record<string, string | number>> }
    > = {};
    // What the page weighs in memory (two bytes a character at most, plus each object's own cost).
    let bytes = 0;
    for (const row of rows) {
      const group = (assets[row.parent_code] ??= { channel, asset_type: assetType, store_uuid: store.id, assets: [] });
      const rank = Number(row.rank);
      const name = listedName({ label: row.label, numbered: Boolean(row.numbered) }, rank);
      group.assets.push({ [name]: row.url, asset_id: row.asset_id, rank });
      bytes += 2 * (row.parent_code.length + name.length + row.url.length + row.asset_id.length) + 160;
    }
    return { page: { total_groups: total, returned_groups: Object.keys(assets).length, assets }, bytes };
  }

  /** Resolves an item's store within the caller's workspace (per request, cached). */
  async unlink(workspaceId: string, items: Array<Record<string, unknown>>) {
    const resolveStore = storeResolver(this.stores, workspaceId);
    const failures: AssetFailure[] = [];
    let unlinked = 0;
    for (const [index, item] of items.entries()) {
      const parentCode = codeOf(item.parent_code) ?? '';
      const fail = (reason: string, details: string) =>
        failures.push({
          index,
          parent_code: parentCode,
          reason,
          details,
          ...(typeof item.asset_id === 'string' ? { asset_id: item.asset_id } : {}),
        });
      const target = await resolveItemTarget(item, resolveStore, (store, requested) => this.#channel(store, requested));
      if ('reason' in target) {
        fail(target.reason, target.details);
        continue;
      }
      const { store, channel } = target;
      if (!parentCode) {
        fail('invalid_parent_code', 'parent_code must be a non-empty string');
        continue;
      }
      if (typeof item.asset_id !== 'string' || item.asset_id === '') {
        fail('invalid_asset_id', 'asset_id must be a non-empty string');
        continue;
      }
      const assetId = item.asset_id;
      const removed = await inTransaction(this.storage, async (trx) => {
        const groups = await repo.groupsOfAsset(trx, store.id, assetId, { parentCode, channel });
        if (groups.length === 0) return false;
        await this.changes.append(trx, store.id, channelsByParent(groups));
        await this.#removeFromGroups(trx, store.id, assetId, groups);
        return true;
      });
      if (removed) unlinked++;
      else fail('not_found', `asset ${assetId} is not linked to ${parentCode} on channel ${channel}`);
    }
    return { unlinked, failed: failures.length, error_info: failures };
  }

  async delete(workspaceId: string, items: Array<Record<string, unknown>>) {
    const resolveStore = storeResolver(this.stores, workspaceId);
    const failures: AssetFailure[] = [];
    let deleted = 0;
    for (const [index, item] of items.entries()) {
      const parentCode = codeOf(item.parent_code) ?? '';
      const fail = (reason: string, details: string, assetId?: string) =>
        failures.push({ index, parent_code: parentCode, reason, details, ...(assetId ? { asset_id: assetId } : {}) });
      const target = await resolveItemTarget(item, resolveStore, (store, requested) => this.#channel(store, requested));
      if ('reason' in target) {
        fail(target.reason, target.details);
        continue;
      }
      const { store, channel } = target;
      if (
        !Array.isArray(item.asset_id) ||
        item.asset_id.length === 0 ||
        item.asset_id.some((id) => typeof id !== 'string')
      ) {
        fail('invalid_request', 'asset_id must be a non-empty array of asset id strings');
        continue;
      }
      for (const assetId of new Set(item.asset_id as string[])) {
        const done = await inTransaction(this.storage, async (trx) => {
          const asset = await repo.findAsset(trx, store.id, assetId);
          if (!asset) return false;
          // parent_code (when given) narrows the delete to an asset linked there on that channel.
          if (parentCode && (await repo.groupsOfAsset(trx, store.id, assetId, { parentCode, channel })).length === 0)
            return false;
          const groups = await repo.groupsOfAsset(trx, store.id, assetId);
          await this.changes.append(trx, store.id, channelsByParent(groups));
          await this.#removeFromGroups(trx, store.id, assetId, groups);
          await repo.deleteAsset(trx, store.id, assetId);
          return true;
        });
        if (done) deleted++;
        else
          fail(
            'not_found',
            `asset ${assetId} not found${parentCode ? ` for ${parentCode} on channel ${channel}` : ''}`,
            assetId,
          );
      }
    }
    return { deleted_count: deleted, failed: failures.length, error_info: failures };
  }

  async #removeFromGroups(
    trx: Parameters<typeof repo.groupLinks>[0],
    storeId: string,
    assetId: string,
    groups: Array<{ parent_code: string; channel: string; asset_type: string }>,
  ) {
    const now = new Date().toISOString();
    for (const g of groups) {
      const key = { storeId, parentCode: g.parent_code, channel: g.channel, assetType: g.asset_type };
      const links = await repo.groupLinks(trx, key);
      await repo.writeGroup(
        trx,
        key,
        links.filter((l) => l.assetId !== assetId),
        now,
      );
    }
  }

  /**
   * Distinct parent codes with at least one link, per channel (GET /v1/stores), cached by the
   * store's change sequence read with the request's store row: asset writes bump it, so the cache
   * is never stale and a store-details request costs no extra query.
   */
  async channelUsage(store: Store): Promise<Record<string, number>> {
    const cached = this.#channelUsage.get(store.id);
    if (cached && cached.seq === store.changeSeq) return cached.usage;
    const usage = await repo.channelUsage(this.storage.db, store.id);
    if (this.#channelUsage.size > 10_000) this.#channelUsage.clear();
    this.#channelUsage.set(store.id, { seq: store.changeSeq, usage });
    return usage;
  }
}
