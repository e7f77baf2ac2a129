import { InvalidRequestError, NotFoundError, PayloadTooLargeError } from '../../errors.js';
import type { GroupVariants } from '../../catalog/variants.js';
import type { Store } from '../stores/store.js';
import type { StoresService } from '../stores/stores.service.js';
import type { VisionClient } from '../../vision/vision-client.js';
import { ImageRejectedError } from '../../vision/image-rejection.js';
import { quantize } from '../../vision/quantize.js';
import type { ImageJobs } from './image-jobs.js';
import type { VisualIndexes } from './visual-index.js';
import type { ImageCatalog } from './image-catalog.js';
import { parseFiltersParam } from '../../catalog/filters.js';
import { vocabularyForStore } from '../../catalog/vocabulary/store-vocabulary.js';

export interface VisualPage {
  offset: number;
  limit: number;
  groupVariants: GroupVariants;
}
export interface VisualResult {
  items: VisualItem[];
  /** Referenced images not searchable yet (pending, failed, or being re-embedded for a new model). */
  unindexed: number;
}
export interface VisualItem {
  product_code: string;
  score: number;
  image_url: string;
}

/** Search by photo, visually similar products, and the operator's view of the image pipeline. */
export class VisualService {
  constructor(
    private readonly indexes: VisualIndexes,
    private readonly vision: VisionClient,
    private readonly jobs: ImageJobs,
    private readonly stores: StoresService,
    private readonly catalog: ImageCatalog,
  ) {}

  /** The stored state and vector of a store's images (the tagger reads the vectors; no image is fetched). */
  async storedImages(storeId: string, urls: string[]) {
    return this.catalog.storedImages(storeId, urls);
  }

  /** Whether a product or asset link of the store has this image (its image catalog holds it). */
  async knowsImage(storeId: string, url: string): Promise<boolean> {
    return (await this.catalog.storedImages(storeId, [url])).has(url);
  }

  /** Images of every store by pipeline state (pending, indexed, failed, …). */
  imageQueueCounts(): Promise<Record<string, number>> {
    return this.jobs.countByState();
  }

  async search(
    store: Store,
    image: Uint8Array,
    filtersParam: string | undefined,
    page: VisualPage,
  ): Promise<VisualResult> {
    // The catalog's one filter language, Department read with the store's own overrides.
    const resolver = vocabularyForStore(store);
    const filters = parseFiltersParam(filtersParam, resolver);
    if (image.length === 0) throw new InvalidRequestError("multipart field 'image' is an empty file", 'image');
    const [vector] = await this.vision.embed([image]);
    if (vector instanceof ImageRejectedError) {
      if (vector.reason === 'too_many_pixels') throw new PayloadTooLargeError(vector.message, 'image');
      throw new InvalidRequestError(`multipart field 'image': ${vector.message}`, 'image');
    }
    const { zeroPoint } = await this.vision.info();
    const { codes, scale } = quantize(vector, zeroPoint);
    const index = await this.indexes.current(store.id, store.changeSeq);
    const scores = await this.indexes.score(index, codes);
    return {
      items: index.rank(scores, { queryScale: scale, filters, resolver, ...page }).map(toItem),
      unindexed: index.unindexed,
    };
  }

  /**
   * Products that look like this one: the query is the mean of the stored vectors of every indexed
   * image of the product (nothing is decoded or embedded).
   */
  async similar(store: Store, productCode: string, page: VisualPage): Promise<VisualResult> {
    const index = await this.indexes.current(store.id, store.changeSeq);
    if (!index.isVisible(productCode)) throw new NotFoundError(`product ${productCode} not found`, 'product_code');
    const columns = index.columnsOfProduct(productCode);
    if (columns.length === 0) return { items: [], unindexed: index.unindexed };
    const { scores, queryScale } = await this.indexes.scoreLike(index, columns);
    return {
      items: index.rank(scores, { queryScale, filters: [], ...page, exclude: productCode }).map(toItem),
      unindexed: index.unindexed,
    };
  }

  async status(storeUuid: string, failuresLimit?: number) {
    const store = await this.stores.getStore(storeUuid);
    // Images referenced by recent writes not yet followed are counted too (a CLI process has no follower running).
    await this.catalog.follower.readYourWrites(store);
    return { store_uuid: store.id, ...(await this.jobs.status(store.id, failuresLimit)) };
  }

  async retryFailed(storeUuid: string) {
    const store = await this.stores.getStore(storeUuid);
    return { store_uuid: store.id, requeued: await this.jobs.retryFailed(store.id) };
  }
}

function toItem(hit: { productCode: string; score: number; imageUrl: string }): VisualItem {
  return { product_code: hit.productCode, score: hit.score, image_url: hit.imageUrl };
}
