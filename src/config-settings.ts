import fs from 'node:fs';
import os from 'node:os';
import type { Config } from './config.js';

// The table of every setting (CONTRACT §1): config.ts reads and checks through it, and README ›
// Running it is generated from it. A new setting is one row here and one field of Config.

const MB = 1024 * 1024;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const DEFAULT_ASSET_FORMATS = ['image', 'video', 'pdf', '3D', 'text'];

export { ConfigError, type Env, type MutableConfig, type Setting } from './config-setting.js';
import { ConfigError, parseBoolean, type MutableConfig, type Setting } from './config-setting.js';

function parseInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

const isInteger = (value: number, minimum: number, maximum = Number.MAX_SAFE_INTEGER) =>
  Number.isInteger(value) && value >= minimum && value <= maximum;

/** A whole-number setting stored at `get`/`set` (in `unit`s: MB are stored as bytes). */
function integer(
  variable: string,
  field: { get: (c: Config) => number; set: (c: MutableConfig, value: number) => void },
  fallback: number,
  bounds: { min: number; max?: number; requirement: string; unit?: number; defaultText?: string },
  meaning: string,
): Setting {
  const unit = bounds.unit ?? 1;
  return {
    variable,
    default: bounds.defaultText ?? `\`${fallback}\``,
    meaning,
    read: (env, c) => field.set(c, parseInteger(variable, env[variable], fallback) * unit),
    check: (c) => {
      const value = field.get(c);
      return isInteger(value / unit, bounds.min, bounds.max) ? undefined : { requirement: bounds.requirement, value };
    },
  };
}

/** A top-level number field of the config. */
const at = <K extends keyof Config>(key: K) => ({
  get: (c: Config) => c[key] as number,
  set: (c: MutableConfig, value: number) => ((c as Record<string, unknown>)[key] = value),
});
/** A number field of `webhooks`. */
const webhook = (key: keyof Config['webhooks']) => ({
  get: (c: Config) => c.webhooks[key],
  set: (c: MutableConfig, value: number) => ((c.webhooks as Record<string, number>)[key] = value),
});
const MB_UNIT = { unit: MB, requirement: 'must be at least 1', min: 1 };
/** A size in MB where 0 turns the thing off. */
const MB_OR_OFF = { unit: MB, min: 0, requirement: 'must be a whole number of MB, 0 or more' };
/** The group's memory budget of one kind of per-store index, in MB. */
const indexBudget = (variable: string, key: keyof Config, fallback: number, what: string) =>
  integer(
    variable,
    at(key),
    fallback,
    MB_UNIT,
    `memory budget of the per-store ${what} (the group's: each of N API processes keeps 1/N)`,
  );

export const SETTINGS: readonly Setting[] = [
  integer(
    'PORT',
    at('port'),
    8080,
    { min: 0, max: 65535, requirement: 'must be a port number from 0 to 65535' },
    'where the API listens (`--port`)',
  ),
  {
    variable: 'HOST',
    default: '`127.0.0.1`',
    meaning: 'the address the API listens on (`--host`); `0.0.0.0` for every interface',
    read: (env, c) => (c.host = env.HOST || '127.0.0.1'),
    check: (c) => (c.host !== '' ? undefined : { requirement: 'must not be empty', value: c.host }),
  },
  integer(
    'VITRINE_PROCESSES',
    at('processes'),
    os.availableParallelism(),
    { min: 1, max: 256, requirement: 'must be from 1 to 256', defaultText: 'one per core (`npm start`: 1)' },
    'API processes of `vitrine serve` sharing the port (`--processes N`); 1 for `sqlite::memory:`',
  ),
  integer(
    'VITRINE_LARGE_STORE_PRODUCTS',
    at('largeStoreProducts'),
    100_000,
    { min: 0, requirement: 'must be a whole number of products, 0 or more' },
    "with several API processes, a store with at least this many products is served by one of them (its own by the store's id; another while it restarts): its in-memory indexes are held once per machine, not once per process, and its calls use one core; `0`: every process serves every store (README › Scaling out)",
  ),
  {
    variable: 'DATABASE_URL',
    default: '`sqlite:./var/vitrine.db`',
    meaning: '`sqlite:<path>`, `sqlite::memory:` or `postgres://user@host:5432/db`',
    read: (env, c) => (c.databaseUrl = env.DATABASE_URL || 'sqlite:./var/vitrine.db'),
    check: (c) =>
      /^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(c.databaseUrl)
        ? undefined
        : { requirement: 'must start with sqlite:, postgres:// or postgresql://', value: c.databaseUrl },
  },
  {
    variable: 'DATABASE_READ_URLS',
    default: 'unset',
    meaning:
      "PostgreSQL read replicas, comma-separated `postgres://…`: GET requests read there once a replica has replayed the caller's own writes; writes stay on DATABASE_URL (README › Scaling out)",
    read: (env, c) =>
      (c.databaseReadUrls = (env.DATABASE_READ_URLS ?? '')
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean)),
    check: (c) => {
      const wrong = c.databaseReadUrls.find((url) => !/^postgres(ql)?:\/\//.test(url));
      if (wrong !== undefined) return { requirement: 'must be postgres://… URLs', value: wrong };
      if (c.databaseReadUrls.length > 0 && !/^postgres(ql)?:\/\//.test(c.databaseUrl))
        return { requirement: 'needs a PostgreSQL DATABASE_URL', value: c.databaseReadUrls.join(',') };
      return undefined;
    },
  },
  integer(
    'VITRINE_REPLICA_MAX_LAG_MS',
    at('replicaMaxLagMs'),
    2_000,
    { min: 0, max: 3_600_000, requirement: 'must be from 0 to 3600000' },
    'a read replica further behind the primary than this is skipped (and named by `/readyz`) until it catches up',
  ),
  {
    variable: 'REDIS_URL',
    default: 'unset',
    meaning: 'shared rate-limit counters across API processes',
    read: (env, c) => (c.redisUrl = env.REDIS_URL || undefined),
    check: (c) =>
      c.redisUrl === undefined || /^rediss?:\/\//.test(c.redisUrl)
        ? undefined
        : { requirement: 'must be redis://…', value: c.redisUrl },
  },
  {
    variable: 'VITRINE_ADMIN_TOKEN',
    default: 'unset',
    meaning: 'enables the operator API under `/admin/v1` (off when unset)',
    read: (env, c) => (c.adminToken = env.VITRINE_ADMIN_TOKEN || undefined),
  },
  integer(
    'VITRINE_RATE_LIMIT',
    at('rateLimitPerMinute'),
    1200,
    { min: 1, requirement: 'must be at least 1' },
    'requests per minute per API token (and per client IP for requests without a valid token)',
  ),
  integer(
    'VITRINE_PUBLISHABLE_RATE_LIMIT',
    at('publishableRateLimitPerMinute'),
    300,
    { min: 1, requirement: 'must be at least 1' },
    'requests per minute per publishable key **and shopper IP** (each browser gets its own budget)',
  ),
  {
    variable: 'VITRINE_ALLOW_PRIVATE_FETCH',
    default: '`false`',
    meaning: 'allow fetching images from loopback/private addresses (tests, local dev)',
    read: (env, c) =>
      (c.allowPrivateFetch = parseBoolean('VITRINE_ALLOW_PRIVATE_FETCH', env.VITRINE_ALLOW_PRIVATE_FETCH, false)),
  },
  {
    variable: 'VITRINE_ASSET_FORMATS',
    default: `\`${DEFAULT_ASSET_FORMATS.join(',')}\``,
    meaning: 'the accepted `asset_type` / `asset_format` values',
    read: (env, c) =>
      (c.assetFormats = env.VITRINE_ASSET_FORMATS
        ? env.VITRINE_ASSET_FORMATS.split(',')
            .map((format) => format.trim())
            .filter(Boolean)
        : DEFAULT_ASSET_FORMATS),
    check: (c) =>
      c.assetFormats.length > 0 ? undefined : { requirement: 'must name at least one format', value: c.assetFormats },
  },
  {
    variable: 'VITRINE_IMAGE_MODEL',
    default: 'shipped MobileNetV2',
    meaning:
      'path of an ONNX image model (`input` [N,3,224,224] → `embedding` [N,D]); changing it re-embeds every image',
    read: (env, c) => (c.imageModelPath = env.VITRINE_IMAGE_MODEL || undefined),
    // Checked here so that a wrong path stops `vitrine serve` at once, not the first search by photo.
    check: (c) =>
      c.imageModelPath === undefined || fs.existsSync(c.imageModelPath)
        ? undefined
        : { requirement: 'must be the path of an ONNX file', value: c.imageModelPath },
  },
  {
    variable: 'VITRINE_IMAGE_HEAD',
    default: 'shipped fashion head (none with another model)',
    meaning:
      '`head.json` of a head trained by `npm run train:visual-head`, or `none`; changing it re-embeds every image',
    read: (env, c) => (c.imageHeadPath = env.VITRINE_IMAGE_HEAD || undefined),
    check: (c) =>
      c.imageHeadPath === undefined || c.imageHeadPath === 'none' || fs.existsSync(c.imageHeadPath)
        ? undefined
        : { requirement: 'must be the path of a head.json, or none', value: c.imageHeadPath },
  },
  integer(
    'VITRINE_IMAGE_RETRY_MS',
    at('imageRetryBaseMs'),
    5000,
    { min: 0, requirement: 'must be 0 or more' },
    'first retry delay of a failed image fetch (then ×4; 4 attempts in all)',
  ),
  integer(
    'VITRINE_VISION_IDLE_SECONDS',
    at('visionIdleSeconds'),
    300,
    { min: 1, max: 86_400, requirement: 'must be from 1 to 86400' },
    "an API process's photo-query thread (the image model, 50–80 MB) ends after this long without a photo query; the next one starts it again and reloads the store's vectors",
  ),
  integer(
    'VITRINE_CHANGE_RETENTION_HOURS',
    at('changeRetentionHours'),
    168,
    { min: 1, requirement: 'must be at least 1' },
    'how long the change log keeps a change for `GET /v1/changes` and webhook replays (pruned every 10 min, never before the internal indexes read it)',
  ),
  integer(
    'VITRINE_EVENT_RETENTION_DAYS',
    at('eventRetentionDays'),
    90,
    { min: 1, requirement: 'must be at least 1' },
    'how long shopper events and their daily counters are kept (pruned every hour)',
  ),
  integer(
    'VITRINE_TREND_HALF_LIFE_HOURS',
    at('trendHalfLifeHours'),
    72,
    { min: 1, requirement: 'must be at least 1' },
    "the half-life of an event's weight in a product's trend score (the `trending` sort)",
  ),
  integer(
    'VITRINE_SIGNALS_REFRESH_MS',
    at('signalsRefreshMs'),
    1000,
    { min: 0, max: 3_600_000, requirement: 'must be from 0 to 3600000' },
    "how often each API process re-reads a store's daily event counters for the `trending` and `popular` sorts, trendScore and complete the look: events show within this long; each re-read reads every counter of the store (`0`: on every request that needs them)",
  ),
  integer(
    'VITRINE_WEBHOOK_TIMEOUT_MS',
    webhook('timeoutMs'),
    10_000,
    { min: 100, requirement: 'must be at least 100' },
    'a webhook receiver that has not answered by then: the attempt failed (retried)',
  ),
  integer(
    'VITRINE_WEBHOOK_RETRY_MS',
    webhook('retryBaseMs'),
    10_000,
    { min: 0, requirement: 'must be 0 or more' },
    'first retry delay of a failing webhook, doubling up to `VITRINE_WEBHOOK_RETRY_MAX_MS`, with jitter',
  ),
  {
    ...integer(
      'VITRINE_WEBHOOK_RETRY_MAX_MS',
      webhook('retryMaxMs'),
      3_600_000,
      { min: 0, requirement: '' },
      'the longest retry delay of a failing webhook',
    ),
    check: (c) =>
      isInteger(c.webhooks.retryMaxMs, c.webhooks.retryBaseMs)
        ? undefined
        : { requirement: 'must be at least VITRINE_WEBHOOK_RETRY_MS', value: c.webhooks.retryMaxMs },
  },
  integer(
    'VITRINE_WEBHOOK_GIVE_UP_HOURS',
    webhook('giveUpHours'),
    24,
    { min: 1, requirement: 'must be at least 1' },
    'a subscription failing for this long is disabled (the operator re-enables it)',
  ),
  integer(
    'VITRINE_WEBHOOK_BATCH',
    webhook('batchSize'),
    100,
    { min: 1, max: 1000, requirement: 'must be from 1 to 1000' },
    'events per webhook POST (1–1000)',
  ),
  indexBudget('VITRINE_VISUAL_INDEX_MB', 'visualIndexBytes', 1024, 'search-by-photo indexes'),
  indexBudget('VITRINE_COMPLEMENTS_INDEX_MB', 'complementsIndexBytes', 512, 'complete-the-look indexes'),
  indexBudget('VITRINE_SEARCH_VOCABULARY_MB', 'searchVocabularyBytes', 256, 'typo vocabularies of text search'),
  indexBudget(
    'VITRINE_CARD_INDEX_MB',
    'cardIndexBytes',
    128,
    'product listings (cards, attributes, families, sizes) that search and browse filter, facet, group and sort in',
  ),
  indexBudget(
    'VITRINE_ATTRIBUTE_INDEX_MB',
    'attributeIndexBytes',
    256,
    "attribute indexes (every product, any status) that the products listing's attribute filters and facets read, the console's Filters panel",
  ),
  integer(
    'VITRINE_SEARCH_RESULTS_MB',
    at('searchResultBytes'),
    32,
    MB_OR_OFF,
    "memory budget of the ranked result lists of recent queries kept while their store is unchanged (a listing page's next page, facet click or sort reuses its query's list; the group's: each of N API processes keeps 1/N); `0` turns it off",
  ),
  integer(
    'VITRINE_SEARCH_POSTINGS_MB',
    at('searchPostingsBytes'),
    256,
    MB_OR_OFF,
    "SQLite: memory budget of large stores' text ranking kept in memory (every word's products with their weights, about 115 MB a process for 1M products; the same bm25 as FTS5, scores included, without FTS5's cost per match; the group's: each of N API processes keeps 1/N); `0` turns it off",
  ),
  integer(
    'VITRINE_SEARCH_POSTINGS_FROM',
    at('searchPostingsFrom'),
    50_000,
    { min: 1, requirement: 'must be a whole number, at least 1' },
    'SQLite: the number of searchable products from which a store is ranked in memory (VITRINE_SEARCH_POSTINGS_MB); smaller stores are ranked by FTS5',
  ),
  integer(
    'VITRINE_LISTING_CACHE_MB',
    at('listingCacheBytes'),
    64,
    MB_OR_OFF,
    "memory budget of the asset listing pages kept while their store is unchanged (any catalog write of the store retires them at once, on every process; the group's: each of N API processes keeps 1/N); `0` turns it off",
  ),
  integer(
    'VITRINE_HEAP_COMPACT_MB',
    at('heapCompactBytes'),
    64,
    MB_OR_OFF,
    'an in-memory index build of at least this estimated size is followed by one compacting garbage collection when the build took 5 times its pause or more (a 1M-product store: 1.9 s after builds of 20 s and more, about 600 MB less RSS per API process); `0` turns it off',
  ),
  integer(
    'VITRINE_HEAP_GROWTH_PERCENT',
    at('heapGrowthPercent'),
    25,
    { min: 0, max: 1000, requirement: 'must be a whole number from 0 to 1000' },
    "how far (in %) a process's heap may grow past what its last full garbage collection kept before it collects again (V8's own factor goes up to 4×: touching 400 stores' indexes, the group's RSS was 2.8 GB with it, 2.0 GB at 50 %; touching 1,000 stores of 2,000 products, 2.65 GB at 50 %, 2.47 GB at 25 % for 7 % more time, 2.49 GB at 20 % for a third more); `0` leaves V8's own heuristics; `node --heap-growing-percent` wins",
  ),
  {
    variable: 'VITRINE_DATA_DIR',
    default: '`./var`',
    meaning: 'uploaded media (`media/`), admin import files and their rejects',
    read: (env, c) => (c.dataDir = env.VITRINE_DATA_DIR || './var'),
    check: (c) => (c.dataDir !== '' ? undefined : { requirement: 'must not be empty', value: c.dataDir }),
  },
  {
    variable: 'VITRINE_PUBLIC_URL',
    default: 'unset',
    meaning:
      "the address clients reach Vitrine at (`https://catalog.example.com`), for the URLs of uploaded media; unset: the request's address (API) or `http://HOST:PORT` (CLI)",
    read: (env, c) => (c.publicUrl = env.VITRINE_PUBLIC_URL ? env.VITRINE_PUBLIC_URL.replace(/\/+$/, '') : undefined),
    check: (c) =>
      c.publicUrl === undefined || /^https?:\/\/\S+$/.test(c.publicUrl)
        ? undefined
        : { requirement: 'must be an http(s) URL', value: c.publicUrl },
  },
  {
    variable: 'VITRINE_MEDIA_S3_BUCKET',
    default: 'unset',
    meaning:
      'keep uploaded media in this S3-compatible bucket instead of the local disk (with `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `VITRINE_MEDIA_S3_ENDPOINT` for MinIO/R2/…, `VITRINE_MEDIA_S3_REGION` default `us-east-1`, `VITRINE_MEDIA_S3_PREFIX` default `media/`)',
    read: (env, c) => {
      c.mediaS3 = env.VITRINE_MEDIA_S3_BUCKET
        ? {
            bucket: env.VITRINE_MEDIA_S3_BUCKET,
            ...(env.VITRINE_MEDIA_S3_ENDPOINT ? { endpoint: env.VITRINE_MEDIA_S3_ENDPOINT } : {}),
            region: env.VITRINE_MEDIA_S3_REGION || env.AWS_REGION || 'us-east-1',
            prefix: env.VITRINE_MEDIA_S3_PREFIX ?? 'media/',
            accessKeyId: env.AWS_ACCESS_KEY_ID ?? '',
            secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '',
          }
        : undefined;
      if (c.mediaS3 && (!c.mediaS3.accessKeyId || !c.mediaS3.secretAccessKey))
        throw new ConfigError('VITRINE_MEDIA_S3_BUCKET needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    },
    check: (c) =>
      c.mediaS3?.endpoint === undefined || /^https?:\/\//.test(c.mediaS3.endpoint)
        ? undefined
        : { requirement: 'must be an http(s) URL (VITRINE_MEDIA_S3_ENDPOINT)', value: c.mediaS3.endpoint },
  },
  {
    variable: 'LOG_LEVEL',
    default: '`info`',
    meaning: 'pino level; logs are JSON with `reqId`, tokens redacted',
    read: (env, c) => (c.logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel']),
    check: (c) =>
      LOG_LEVELS.includes(c.logLevel)
        ? undefined
        : { requirement: `must be one of ${LOG_LEVELS.join(', ')}`, value: c.logLevel },
  },
];
