import type { Executor, StorageHandle } from '../../storage/database.js';
import { ChangeFollower, type FollowedChange } from '../../changes/change-follower.js';
import type { ChangeFeed } from '../../changes/change-feed.js';

const IMAGE_FIELD = /^Image URL \d+$/;

export interface ImageRef { ownerKind: 'product' | 'asset'; ownerKey: string; slot: string; url: string }

/** A product's `Image URL n` fields (non-empty strings) as image references. */
export function productImageRefs(productCode: string, attributes: Record<string, unknown>): ImageRef[] {
  return Object.entries(attributes)
    .filter(([field, value]) => IMAGE_FIELD.test(field) && typeof value === 'string' && value.trim() !== '')
    .map(([field, value]) => ({ ownerKind: 'product', ownerKey: productCode, slot: field, url: (value as string).trim() }));
}

/**
 * Follows the change log (consumer 'images') and keeps `image_refs` equal to the catalogue's image
 * URLs: product `Image URL n` fields and image asset links. A URL seen for the first time becomes a
 * pending row in `images` (the job queue); a URL nobody references any more is deleted with its
 * vector. Each distinct URL of a store is fetched and embedded once, however many products show it.
 */
export class ImageCatalog {
  readonly #follower: ChangeFollower;
  #onQueued: () => void = () => {};

  constructor(private readonly storage: StorageHandle, changes: ChangeFeed) {
    this.#follower = new ChangeFollower(storage, changes, 'images', (trx, storeId, batch) => this.#apply(trx, storeId, batch));
  }

  /** Called after new images were queued (the local worker starts at once instead of at its next poll). */
  onQueued(listener: () => void) { this.#onQueued = listener; }

  lag(storeId: string) { return this.#follower.lag(storeId); }
  async catchUp(storeId: string) {
    const applied = await this.#follower.catchUp(storeId);
    if (applied > 0) this.#onQueued();
    return applied;
  }
  start(intervalMs = 200, onError?: (error: unknown) => void) {
    this.#follower.start(intervalMs, onError);
  }
  stop() { return this.#follower.stop(); }

  async #apply(trx: Executor, storeId: string, batch: FollowedChange[]) {
    const productCodes = [...new Set(batch.filter((c) => c.entity === 'product').map((c) => c.key))];
    const parentCodes = [...new Set(batch.filter((c) => c.entity === 'asset').map((c) => c.key))];
    if (productCodes.length === 0 && parentCodes.length === 0) return;
    const wanted: ImageRef[] = [];
    for (let i = 0; i < productCodes.length; i += 500) {
      const rows = await trx.selectFrom('products').select(['product_code', 'attributes'])
        .where('store_id', '=', storeId).where('product_code', 'in', productCodes.slice(i, i + 500)).execute();
      for (const row of rows) wanted.push(...productImageRefs(row.product_code, JSON.parse(row.attributes) as Record<string, unknown>));
    }
    for (let i = 0; i < parentCodes.length; i += 500) {
      const rows = await trx.selectFrom('asset_links').select(['parent_code', 'asset_id', 'url'])
        .where('store_id', '=', storeId).where('asset_type', '=', 'image').where('parent_code', 'in', parentCodes.slice(i, i + 500)).execute();
      for (const row of rows) wanted.push({ ownerKind: 'asset', ownerKey: row.parent_code, slot: row.asset_id, url: row.url });
    }
    // An asset id is linked per channel: keep one reference per (parent, asset).
    const unique = new Map(wanted.map((ref) => [`${ref.ownerKind}\u0000${ref.ownerKey}\u0000${ref.slot}`, ref]));

    const released = new Set<string>();
    for (const [kind, keys] of [['product', productCodes], ['asset', parentCodes]] as const) {
      for (let i = 0; i < keys.length; i += 500) {
        const old = await trx.deleteFrom('image_refs').where('store_id', '=', storeId).where('owner_kind', '=', kind)
          .where('owner_key', 'in', keys.slice(i, i + 500)).returning('url').execute();
        for (const { url } of old) released.add(url);
      }
    }
    const refs = [...unique.values()];
    const now = new Date().toISOString();
    const chunk = Math.floor(this.storage.dialect.maxParameters / 12);
    for (let i = 0; i < refs.length; i += chunk) {
      const part = refs.slice(i, i + chunk);
      await trx.insertInto('image_refs').values(part.map((r) => ({ store_id: storeId, owner_kind: r.ownerKind, owner_key: r.ownerKey, slot: r.slot, url: r.url }))).execute();
      const urls = [...new Set(part.map((r) => r.url))];
      await trx.insertInto('images').values(urls.map((url) => ({ store_id: storeId, url, state: 'pending', run_after: now, updated_at: now })))
        .onConflict((oc) => oc.columns(['store_id', 'url']).doNothing()).execute();
    }
    for (const ref of refs) released.delete(ref.url);
    // Released URLs still referenced by another owner stay; the rest go with their vectors.
    const candidates = [...released];
    for (let i = 0; i < candidates.length; i += 500) {
      const part = candidates.slice(i, i + 500);
      const kept = await trx.selectFrom('image_refs').select('url').distinct().where('store_id', '=', storeId).where('url', 'in', part).execute();
      const keep = new Set(kept.map((k) => k.url));
      const orphans = part.filter((url) => !keep.has(url));
      if (orphans.length > 0) await trx.deleteFrom('images').where('store_id', '=', storeId).where('url', 'in', orphans).execute();
    }
  }
}
