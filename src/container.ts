import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import { openDatabase, type StorageHandle } from './storage/database.js';
import { SeqCache } from './storage/seq-cache.js';
import { ChangeFeed } from './storage/change-feed.js';
import { isClusterWorker, PROCESS_INDEX } from './cluster/messages.js';
import { StoreOwners } from './cluster/store-owners.js';
import { withClusterWriteLock } from './cluster/write-lock.js';
import { WorkerRegistry, type JobLog, type WorkerErrorLog } from './jobs/workers.js';
import { StoresService } from './modules/stores/stores.service.js';
import { TokensService } from './modules/stores/tokens.service.js';
import { ProductsService } from './modules/products/products.service.js';
import { ProductQueries } from './modules/products/product-queries.js';
import { ProductExport } from './modules/products/product-export.js';
import { ProductsReadPort } from './modules/products/products.read-port.js';
import { MappingProfiles } from './modules/products/mapping-profiles.js';
import { ProductCards } from './modules/products/product-cards.js';
import { ProductAttributeIndex } from './modules/products/attribute-index.js';
import { AssetsService } from './modules/assets/assets.service.js';
import { createTextIndex } from './search/text-index.js';
import { SearchIndexer } from './modules/search/search-indexer.js';
import { SearchService } from './modules/search/search.service.js';
import { CollectionsService } from './modules/collections/collections.service.js';
import { vocabularyForStore } from './catalog/vocabulary/store-vocabulary.js';
import { ComplementsService } from './modules/complements/complements.service.js';
import { VocabularyService } from './modules/vocabulary/vocabulary.service.js';
import { ImportsService } from './modules/imports/imports.service.js';
import { VisionClient } from './vision/vision-client.js';
import { DEFAULT_MODEL_PATH } from './vision/model-identity.js';
import { DEFAULT_HEAD_PATH } from './vision/embedding-head.js';
import { ImageCatalog } from './modules/visual/image-catalog.js';
import { ImageJobs } from './modules/visual/image-jobs.js';
import { ImageWorker } from './modules/visual/image-worker.js';
import { VisualIndexes } from './modules/visual/visual-index.js';
import { VisualService } from './modules/visual/visual.service.js';
import { MediaService } from './modules/media/media.service.js';
import { Thumbnails } from './modules/media/thumbnails.js';
import { LocalMediaStore, S3MediaStore, type MediaStore } from './modules/media/media-store.js';
import { ChangesService } from './modules/changes/changes.service.js';
import { EventsService } from './modules/events/events.service.js';
import { IndexFreshness } from './modules/changes/index-freshness.js';
import { WebhooksService } from './modules/webhooks/webhooks.service.js';
import { WebhookDispatcher } from './modules/webhooks/webhook-dispatcher.js';
import { createRedis, RedisHealth } from './http/rate-limit-store.js';
import { registerSearchJobs } from './modules/search/search.jobs.js';
import { registerCollectionsJobs } from './modules/collections/collections.jobs.js';
import { registerComplementsJobs } from './modules/complements/complements.jobs.js';
import { registerVisualJobs } from './modules/visual/visual.jobs.js';
import { registerTaggingJobs } from './modules/tagging/tagging.jobs.js';
import { TaggingService } from './modules/tagging/tagging.service.js';
import { Tagger } from './vision/tagger.js';
import { registerImportsJobs } from './modules/imports/imports.jobs.js';
import { registerWebhooksJobs } from './modules/webhooks/webhooks.jobs.js';
import { registerChangesJobs } from './modules/changes/changes.jobs.js';
import { registerEventsJobs } from './modules/events/events.jobs.js';
import { configureHeapCompaction, configureHeapGrowth } from './storage/heap-compaction.js';

/** A started process's image lanes first look at a backlog this much later (see ImageWorker's firstRunAfterMs). */
const IMAGE_WORK_FIRST_RUN_MS = 3_000;

/** Everything a process needs, wired by hand once (STYLE §2); tests build their own. */
export interface Container {
  config: Config;
  storage: StorageHandle;
  redis?: Redis;
  /** Whether Redis answers (rate limits fail open to per-process counts while it does not). */
  redisHealth?: RedisHealth;
  /** Listing pages kept while their store is unchanged (VITRINE_LISTING_CACHE_MB). */
  listingCache: SeqCache;
  /** The per-store change log every write appends to (storage/change-feed.ts). */
  changeLog: ChangeFeed;
  /** The background workers `vitrine serve` and `vitrine worker` start (src/jobs/workers.ts). */
  workers: WorkerRegistry;
  stores: StoresService;
  tokens: TokensService;
  products: ProductsService;
  productQueries: ProductQueries;
  productExport: ProductExport;
  productsRead: ProductsReadPort;
  /** A store's mapping profile (the products module's rule, kept on the store row). */
  mappingProfiles: MappingProfiles;
  assets: AssetsService;
  searchIndexer: SearchIndexer;
  search: SearchService;
  collections: CollectionsService;
  complements: ComplementsService;
  vocabulary: VocabularyService;
  imports: ImportsService;
  imageCatalog: ImageCatalog;
  imageWorker: ImageWorker;
  visual: VisualService;
  tagging: TaggingService;
  media: MediaService;
  /** Small WebPs of a store's images, served by Vitrine (GET /v1/thumbnail). */
  thumbnails: Thumbnails;
  /** The changes module: the public change feed and its retention. */
  changes: ChangesService;
  /** How far behind the catalog each of a store's indexes is (GET /v1/stores, /metrics, import --wait). */
  freshness: IndexFreshness;
  /** Which API process serves a large store (`vitrine serve --processes N`; VITRINE_LARGE_STORE_PRODUCTS). */
  storeOwners: StoreOwners;
  /** The events module: shopper events in, folded into per-product daily counters (issue 41). */
  events: EventsService;
  webhooks: WebhooksService;
  webhookDispatcher: WebhookDispatcher;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Use this storage instead of opening DATABASE_URL (tests: a schema of their own). */
  storage?: StorageHandle;
  /** Where background workers report failures (the server's logger); silent by default. */
  onWorkerError?: WorkerErrorLog;
  /** Where background jobs log their start, finish (with counts) and failure; silent by default. */
  jobLog?: JobLog;
}

/** Uploaded media on the local disk under the data directory, or in the configured S3-compatible bucket. */
export function createMediaStore(config: Config): MediaStore {
  return config.mediaS3 ? new S3MediaStore(config.mediaS3) : new LocalMediaStore(path.resolve(config.dataDir, 'media'));
}

/** The head on top of the image model: the configured one, `none`, or the shipped head with the shipped model. */
export function imageHeadPath(config: Config): string | undefined {
  if (config.imageHeadPath === 'none') return undefined;
  if (config.imageHeadPath) return config.imageHeadPath;
  return config.imageModelPath === undefined ? DEFAULT_HEAD_PATH : undefined;
}

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const storage =
    options.storage ??
    openDatabase(config.databaseUrl, { readUrls: config.databaseReadUrls, replicaMaxLagMs: config.replicaMaxLagMs });
  // Several API processes on one SQLite file take turns at writing through the primary's lock.
  if (isClusterWorker() && storage.dialect.name === 'sqlite') storage.writeGate = withClusterWriteLock;
  const redis = config.redisUrl ? createRedis(config.redisUrl) : undefined;
  redis?.on('error', () => {});
  const redisHealth =
    redis &&
    new RedisHealth(redis, (up, reason) =>
      up
        ? options.jobLog?.info({ redis: 'up' }, 'Redis reachable again: rate limits are shared across processes')
        : options.jobLog?.error(
            { redis: 'down', reason },
            'Redis unreachable: rate limits fall back to per-process counts until it is back',
          ),
    );
  const onError = options.onWorkerError;
  const changeLog = new ChangeFeed(storage);
  const stores = new StoresService(storage);
  const tokens = new TokensService(storage);
  const productsRead = new ProductsReadPort(storage);
  const products = new ProductsService(storage, changeLog);
  // Totals and collection snapshots per store, kept while its change sequence stands.
  const listingTotals = new SeqCache();
  // The memory budgets (VITRINE_*_MB) are the whole group's: each of `vitrine serve`'s N API processes
  // keeps 1/N of each, so adding processes adds CPU, not index memory (README › Scaling out). A store
  // whose index alone is larger than a process's share is still kept (alone).
  const processes = isClusterWorker() ? Math.max(1, Number(process.env.VITRINE_PROCESS_COUNT ?? 1)) : 1;
  const share = (bytes: number) => Math.floor(bytes / processes);
  const productAttributes = new ProductAttributeIndex({
    storage,
    products: productsRead,
    changeLog,
    budgetBytes: share(config.attributeIndexBytes),
    onError,
  });
  const productQueries = new ProductQueries(storage, listingTotals, { attributes: productAttributes });
  const storeOwners = new StoreOwners(PROCESS_INDEX, processes, config.largeStoreProducts, {
    productsUpTo: (storeId, limit) => productQueries.productsUpTo(storeId, limit),
    onHandedBack: (storeId) => complements.unwant(storeId),
  });
  const productExport = new ProductExport(storage);
  const listingPages = new SeqCache('listing pages', share(config.listingCacheBytes));
  configureHeapCompaction({ minIndexBytes: config.heapCompactBytes });
  configureHeapGrowth(config.heapGrowthPercent);
  const assets = new AssetsService({
    storage,
    changeLog,
    listingTotals,
    listingPages,
    stores,
    products: productsRead,
    formats: config.assetFormats,
  });
  stores.setChannelUsage((store) => assets.channelUsage(store));
  const textIndex = createTextIndex(storage);
  const searchIndexer = new SearchIndexer(storage, changeLog, textIndex, productsRead, stores, onError);
  const productCards = new ProductCards({
    products: productsRead,
    changeLog,
    budgetBytes: share(config.cardIndexBytes),
  });
  const search = new SearchService({
    storage,
    textIndex,
    indexer: searchIndexer,
    products: productsRead,
    stores,
    cards: productCards,
    // Collections are created below; a listing asks for a collection's members only when served.
    collectionMembers: (store, id, options) => collections.queries.memberCodes(store, id, options),
    // Events are created below; signals are read only when a listing sorts by them.
    signals: (storeId) => events.signals.of(storeId),
    tasteOf: (store, shopperId, listing) => events.tasteOf(store, shopperId, listing),
    vocabularyBytes: share(config.searchVocabularyBytes),
    resultBytes: share(config.searchResultBytes),
    changes: changeLog,
    postingsBytes: share(config.searchPostingsBytes),
    postingsMinProducts: config.searchPostingsFrom,
    onError,
  });
  const mappingProfiles = new MappingProfiles(stores);
  const collections = new CollectionsService({
    storage,
    changeLog,
    snapshots: listingTotals,
    listingPages,
    products: productsRead,
    audiences: async (storeId, db) => vocabularyForStore(await stores.getStore(storeId, db)),
    // Events are created below; collection pages read them only when a collection sorts by a signal.
    signals: {
      quality: (store) => productCards.qualityOf(store),
      trend: (storeId) => events.signals.of(storeId),
      personal: async (store, shopperId) => {
        const listing = await productCards.listing(store);
        return (await events.tasteOf(store, shopperId, listing))?.byCode(listing);
      },
    },
    onError,
  });
  const complements = new ComplementsService(storage, changeLog, productsRead, stores, {
    indexBytes: share(config.complementsIndexBytes),
    onError,
    // Events are created below; complete the look asks for baskets only when a product has some.
    boughtWith: (store, productCode) => events.boughtWith(store, productCode),
  });
  const vocabulary = new VocabularyService(storage, changeLog, productsRead, stores, complements);
  const imports = new ImportsService(
    storage,
    products,
    stores,
    { dataDir: config.dataDir, allowPrivateFetch: config.allowPrivateFetch },
    onError,
    options.jobLog,
  );
  const modelPath = config.imageModelPath ?? DEFAULT_MODEL_PATH;
  const headPath = imageHeadPath(config);
  // Two vision threads: queries never wait behind images being embedded. The query thread ends when photo
  // queries stop a while (model and vectors reloaded on the next): each API process holds one, most hours see none.
  const queryVision = new VisionClient({ modelPath, headPath, threads: 1 }, config.visionIdleSeconds * 1000);
  // The indexing thread ends after a minute idle: a catalogue indexed, its memory goes back.
  const indexVision = new VisionClient({ modelPath, headPath, threads: 1 }, 60_000);
  const imageCatalog = new ImageCatalog(storage, changeLog, productsRead, assets, onError);
  const imageJobs = new ImageJobs(storage, changeLog, { maxAttempts: 4, baseDelayMs: config.imageRetryBaseMs });
  const media = new MediaService(storage, createMediaStore(config), { dataDir: config.dataDir });
  const imageWorker = new ImageWorker(imageJobs, indexVision, {
    allowPrivateFetch: config.allowPrivateFetch,
    localImage: (url) => media.localImage(url),
    onError: (error) => onError?.('visual.embed', error),
    log: options.jobLog,
    firstRunAfterMs: IMAGE_WORK_FIRST_RUN_MS,
  });
  const visualIndexes = new VisualIndexes(storage, changeLog, productsRead, imageCatalog, queryVision, {
    indexBytes: share(config.visualIndexBytes),
  });
  const visual = new VisualService(visualIndexes, queryVision, imageJobs, stores, imageCatalog);
  const thumbnails = new Thumbnails({
    dir: path.resolve(config.dataDir, 'thumbnails'),
    allowPrivateFetch: config.allowPrivateFetch,
    knowsImage: (storeId, url) => visual.knowsImage(storeId, url),
    localImage: (url) => media.localImage(url),
  });

  // The shipped tagger, read on first use (a checkout without models/tagger suggests nothing and says why).
  let tagger: Tagger | null | undefined;
  const tagging = new TaggingService({
    storage,
    stores,
    products: productsRead,
    writes: products,
    vocabularyOf: (store) => complements.vocabularyOf(store),
    images: (storeId, urls) => visual.storedImages(storeId, urls),
    tagger: () => {
      if (tagger === undefined) {
        try {
          tagger = Tagger.load();
        } catch {
          tagger = null;
        }
      }
      return tagger ?? undefined;
    },
    onError,
  });

  productQueries.setFixable((store) => tagging.fixable(store));

  const changesService = new ChangesService(storage, changeLog, {
    retentionHours: config.changeRetentionHours,
    internalConsumers: [searchIndexer.follower.consumer, collections.follower.consumer, imageCatalog.follower.consumer],
    onError,
    log: options.jobLog,
  });
  const freshness = new IndexFreshness({
    changeLog,
    consumers: {
      search: searchIndexer.follower.consumer,
      collections: collections.follower.consumer,
      photos: imageCatalog.follower.consumer,
    },
    imagesPending: (storeId) => imageJobs.pendingByStore(storeId),
    listingSeq: (storeId) => productCards.heldSeq(storeId),
    complementsSeq: (storeId) => complements.indexState(storeId)?.seq,
  });
  const events = new EventsService({
    storage,
    products: productsRead,
    stores,
    retentionDays: config.eventRetentionDays,
    trendHalfLifeHours: config.trendHalfLifeHours,
    signalsRefreshMs: config.signalsRefreshMs,
    onError,
  });
  const webhooks = new WebhooksService(storage, changeLog, stores, { allowPrivateFetch: config.allowPrivateFetch });
  const webhookDispatcher = new WebhookDispatcher(storage, changeLog, {
    ...config.webhooks,
    allowPrivateFetch: config.allowPrivateFetch,
    onError,
    log: options.jobLog,
  });

  // Every background job of a process, declared by its module; which process runs which is the
  // role table's (src/jobs/worker-roles.ts).
  const workers = new WorkerRegistry();
  registerSearchJobs(workers, { indexer: searchIndexer });
  registerCollectionsJobs(workers, { collections });
  registerComplementsJobs(workers, { complements });
  registerVisualJobs(workers, { catalog: imageCatalog, embedder: imageWorker });
  registerImportsJobs(workers, { imports });
  registerWebhooksJobs(workers, { dispatcher: webhookDispatcher });
  registerChangesJobs(workers, { changes: changesService });
  registerEventsJobs(workers, { events });
  registerTaggingJobs(workers, { tagging });

  return {
    config,
    storage,
    redis,
    redisHealth,
    listingCache: listingPages,
    changeLog,
    workers,
    stores,
    tokens,
    products,
    productQueries,
    storeOwners,
    productExport,
    productsRead,
    mappingProfiles,
    assets,
    searchIndexer,
    search,
    collections,
    complements,
    vocabulary,
    imports,
    imageCatalog,
    imageWorker,
    visual,
    tagging,
    media,
    thumbnails,
    changes: changesService,
    freshness,
    events,
    webhooks,
    webhookDispatcher,
    async close() {
      await workers.stop();
      visualIndexes.close();
      productCards.close();
      productAttributes.close();
      search.close();
      complements.close();
      listingPages.close();
      await Promise.all([queryVision.close(), indexVision.close()]);
      redis?.disconnect();
      await storage.close();
    },
  };
}
