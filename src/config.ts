import { MAX_JSON_BODY_BYTES } from './catalog/limits.js';
import { ConfigError, LOG_LEVELS, SETTINGS } from './config-settings.js';

export { ConfigError, DEFAULT_ASSET_FORMATS, LOG_LEVELS, SETTINGS, type Setting } from './config-settings.js';

/**
 * Every setting of CONTRACT §1, with its default. This file is the only reader of process.env, and
 * SETTINGS below is the one table of them: each row reads its variable, checks it (the message names
 * the variable to fix) and documents it; README › Running it is generated from it
 * (`npm run settings`, checked by test/unit/config-settings.test.ts). Checked by hand rather than with
 * a schema library, so the CLI starts without loading a validator.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** API processes of `vitrine serve` (VITRINE_PROCESSES, --processes); default: one per core. */
  readonly processes: number;
  /**
   * A store with at least this many products is served by one API process of `vitrine serve`
   * (VITRINE_LARGE_STORE_PRODUCTS): its in-memory indexes are held once, not once per process. 0: off.
   */
  readonly largeStoreProducts: number;
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…` (DATABASE_URL). */
  readonly databaseUrl: string;
  /** PostgreSQL read replicas (DATABASE_READ_URLS); empty: every read goes to DATABASE_URL. */
  readonly databaseReadUrls: readonly string[];
  /** A replica further behind than this is skipped (VITRINE_REPLICA_MAX_LAG_MS). */
  readonly replicaMaxLagMs: number;
  readonly redisUrl?: string;
  readonly adminToken?: string;
  readonly rateLimitPerMinute: number;
  /** Requests per minute of one shopper IP with one publishable key (VITRINE_PUBLISHABLE_RATE_LIMIT). */
  readonly publishableRateLimitPerMinute: number;
  readonly allowPrivateFetch: boolean;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** JSON bodies (CONTRACT §4: 10 MB). */
  readonly bodyLimitBytes: number;
  /** Where uploaded import files, their rejects and uploaded media are kept (VITRINE_DATA_DIR). */
  readonly dataDir: string;
  /** Asset formats accepted as asset_type / asset_format (catalog-api: loaded from configuration). */
  readonly assetFormats: readonly string[];
  /** ONNX image model for search by photo (VITRINE_IMAGE_MODEL); unset: the shipped MobileNetV2. */
  readonly imageModelPath?: string;
  /**
   * Head on top of the image model (VITRINE_IMAGE_HEAD: a head.json path, or `none`); unset: the
   * shipped fashion head with the shipped model, none with another model.
   */
  readonly imageHeadPath?: string;
  /** First retry delay of a failed image fetch (VITRINE_IMAGE_RETRY_MS); each retry waits 4× longer. */
  readonly imageRetryBaseMs: number;
  /** The photo-query thread ends after this long without a photo query (VITRINE_VISION_IDLE_SECONDS). */
  readonly visionIdleSeconds: number;
  /**
   * Memory budgets of the per-store in-memory indexes (least recently used store evicted first,
   * rebuilt on demand): search by photo (VITRINE_VISUAL_INDEX_MB), complete the look
   * (VITRINE_COMPLEMENTS_INDEX_MB), text-search typo vocabularies (VITRINE_SEARCH_VOCABULARY_MB).
   */
  readonly visualIndexBytes: number;
  readonly complementsIndexBytes: number;
  readonly searchVocabularyBytes: number;
  /** Memory budget of the per-store product cards of text search hits (VITRINE_CARD_INDEX_MB). */
  readonly cardIndexBytes: number;
  /** Memory budget of the per-store attribute indexes of the products listing (VITRINE_ATTRIBUTE_INDEX_MB). */
  readonly attributeIndexBytes: number;
  readonly searchResultBytes: number;
  /**
   * Memory budget of large stores' text ranking kept in memory (VITRINE_SEARCH_POSTINGS_MB; 0 turns it
   * off) and the store size from which a store gets one (VITRINE_SEARCH_POSTINGS_FROM). SQLite only.
   */
  readonly searchPostingsBytes: number;
  readonly searchPostingsFrom: number;
  /**
   * Memory budget of the listing pages each API process keeps while their store is unchanged
   * (VITRINE_LISTING_CACHE_MB; 0 turns the cache off).
   */
  readonly listingCacheBytes: number;
  /** Index builds of at least this many bytes may be followed by a compacting collection (VITRINE_HEAP_COMPACT_MB; 0: never). */
  readonly heapCompactBytes: number;
  /** How far (%) the heap grows past what the last full collection kept before the next (VITRINE_HEAP_GROWTH_PERCENT; 0: V8's own). */
  readonly heapGrowthPercent: number;
  /**
   * The address clients reach this service at (VITRINE_PUBLIC_URL), for the absolute URLs of
   * uploaded media; unset: the address of the request (API) or http://HOST:PORT (CLI).
   */
  readonly publicUrl?: string;
  /** How long the change log keeps a change for `GET /v1/changes` and webhook replays (VITRINE_CHANGE_RETENTION_HOURS). */
  readonly changeRetentionHours: number;
  readonly eventRetentionDays: number;
  readonly trendHalfLifeHours: number;
  /** How often a process re-reads a store's event counters for the signals (VITRINE_SIGNALS_REFRESH_MS). */
  readonly signalsRefreshMs: number;
  /** Webhook delivery: answer timeout, first retry delay (doubling, with jitter, up to an hour), events per POST. */
  readonly webhooks: {
    readonly timeoutMs: number;
    readonly retryBaseMs: number;
    readonly retryMaxMs: number;
    readonly giveUpHours: number;
    readonly batchSize: number;
  };
  /** An S3-compatible bucket for uploaded media (VITRINE_MEDIA_S3_*); unset: the local disk under dataDir. */
  readonly mediaS3?: {
    readonly bucket: string;
    readonly endpoint?: string;
    readonly region: string;
    readonly prefix: string;
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
  };
}

type Env = NodeJS.ProcessEnv;
type MutableConfig = { -readonly [K in keyof Config]: Config[K] };

/** Reads the environment once into a checked, frozen Config; tests build their own with `overrides`. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const config = { bodyLimitBytes: MAX_JSON_BODY_BYTES, webhooks: {} } as MutableConfig;
  for (const setting of SETTINGS) setting.read(env, config);
  Object.assign(config, overrides);
  for (const key of ['redisUrl', 'imageModelPath', 'imageHeadPath', 'adminToken', 'publicUrl', 'mediaS3'] as const)
    if (config[key] === undefined) delete config[key];
  for (const setting of SETTINGS) {
    const failed = setting.check?.(config);
    if (failed) throw new ConfigError(`${setting.variable} ${failed.requirement}, got ${JSON.stringify(failed.value)}`);
  }
  if (!Number.isInteger(config.bodyLimitBytes) || config.bodyLimitBytes < 1)
    throw new ConfigError(`body limit must be at least 1 byte, got ${config.bodyLimitBytes}`);
  return Object.freeze(config);
}

/** README › Running it: the settings as a Markdown table, generated from SETTINGS. */
export function settingsTable(): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| variable | default | meaning |',
    '|---|---|---|',
    ...SETTINGS.map((s) => `| \`${s.variable}\` | ${escape(s.default)} | ${escape(s.meaning)} |`),
  ].join('\n');
}
