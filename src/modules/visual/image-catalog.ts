import { productImageUrls } from '../../catalog/product-fields.js';
import type { Db, StorageHandle } from '../../storage/database.js';
import { ChangeFollower, type FollowedChange } from '../../jobs/change-follower.js';
import type { ChangeFeed } from '../../storage/change-feed.js';
import type { WorkerErrorLog } from '../../jobs/workers.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { AssetsService } from '../assets/assets.service.js';
import * as repo from './visual.repository.js';

export interface ImageRef {
  ownerKind: 'product' | 'asset';
  ownerKey: string;
  slot: string;
  url: string;
}

/** A product's image fields (catalog/product-fields.ts) as image references. */
export function productImageRefs(productCode: string, attributes: Record<string, unknown>): ImageRef[] {
  return productImageUrls(attributes).map(([field, url]) => ({
    ownerKind: 'product',
    ownerKey: productCode,
    slot: field,
    url,
  }));
}

/**
 * Follows the change log (consumer 'images') and keeps `image_refs` equal to the catalogue's image
 * URLs: product `Image URL n` fields and image asset links. A URL seen for the first time becomes a
 * pending row in `images` (the job queue); a URL nobody references any more is deleted with its
 * vector. Each distinct URL of a store is fetched and embedded once, however many products show it.
 */
export class ImageCatalog {
  /** Worker `visual.catalog`; wakes the image worker whenever it queued something. */
  readonly follower: ChangeFollower;

  constructor(
    private readonly storage: StorageHandle,
    changes: ChangeFeed,
    private readonly products: ProductsReadPort,
    private readonly assets: AssetsService,
    onError?: WorkerErrorLog,
  ) {
    this.follower = new ChangeFollower(
      storage,
      changes,
      'images',
      (trx, storeId, batch) => this.#apply(trx, storeId, batch),
      {
        name: 'visual.catalog',
        onError,
        grows: ['image_refs', 'images'],
      },
    );
  }

  /** The stored state and vector of a store's images, by URL (URLs without a row are left out). */
  async storedImages(storeId: string, urls: string[]) {
    const rows = await repo.imagesByUrl(this.storage.db, storeId, [...new Set(urls)]);
    const errors = new Map(
      (
        await repo.imageErrors(
          this.storage.db,
          storeId,
          rows.filter((r) => r.state === 'failed').map((r) => r.url),
        )
      ).map((r) => [r.url, r.error]),
    );
    return new Map(
      rows.map((row) => [
        row.url,
        {
          state: row.state,
          error: errors.get(row.url) ?? null,
          model: row.model,
          vector: row.vector,
          scale: row.scale,
        },
      ]),
    );
  }

  /** Called after changes were applied (new images may wait): the local image worker starts at once. */
  onQueued(listener: () => void) {
    this.follower.onApplied(() => listener());
  }

  catchUp(storeId: string) {
    return this.follower.catchUp(storeId);
  }

  async #apply(trx: Db, storeId: string, batch: FollowedChange[]) {
    const productCodes = [...new Set(batch.filter((c) => c.entity === 'product').map((c) => c.key))];
    const parentCodes = [...new Set(batch.filter((c) => c.entity === 'asset').map((c) => c.key))];
    if (productCodes.length === 0 && parentCodes.length === 0) return;
    const wanted: ImageRef[] = [];
    for (const product of await this.products.attributesByCodes(storeId, productCodes, trx))
      wanted.push(...productImageRefs(product.code, product.attributes));
    for (const link of await this.assets.imageLinksOf(trx, storeId, parentCodes)) {
      wanted.push({ ownerKind: 'asset', ownerKey: link.parent_code, slot: link.asset_id, url: link.url });
    }
    // An asset id is linked per channel: keep one reference per (parent, asset).
    const refs = [
      ...new Map(wanted.map((ref) => [`${ref.ownerKind}\u0000${ref.ownerKey}\u0000${ref.slot}`, ref])).values(),
    ];
    const released = new Set([
      ...(await repo.releaseRefs(trx, storeId, 'product', productCodes)),
      ...(await repo.releaseRefs(trx, storeId, 'asset', parentCodes)),
    ]);
    await repo.addRefs(trx, storeId, refs, new Date().toISOString());
    for (const ref of refs) released.delete(ref.url);
    // Released URLs still referenced by another owner stay; the rest go with their vectors.
    await repo.deleteOrphans(trx, storeId, [...released]);
  }
}
