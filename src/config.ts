import fs from 'node:fs';
import os from 'node:os';
import { MAX_JSON_BODY_BYTES } from './catalog/limits.js';

const MB = 1024 * 1024;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Every setting of CONTRACT §1, with its default. This file is the only reader of process.env.
 * Checked by hand rather than with a schema library: each message names the environment variable to
 * fix, and the CLI starts without loading a validator (`vitrine store list` in well under 200 ms).
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** API processes of `vitrine serve` (VITRINE_PROCESSES, --processes); default: one per core. */
  readonly processes: number;
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…` (DATABASE_URL). */
  readonly databaseUrl: string;
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
  /**
   * Memory budgets of the per-store in-memory indexes (least recently used store evicted first,
   * rebuilt on demand): search by photo (VITRINE_VISUAL_INDEX_MB), complete the look
   * (VITRINE_COMPLEMENTS_INDEX_MB), text-search typo vocabularies (VITRINE_SEARCH_VOCABULARY_MB).
   */
  readonly visualIndexBytes: number;
  readonly complementsIndexBytes: number;
  readonly searchVocabularyBytes: number;
  /**
   * Memory budget of the listing pages each API process keeps while their store is unchanged
   * (VITRINE_LISTING_CACHE_MB; 0 turns the cache off).
   */
  readonly listingCacheBytes: number;
  /**
   * The address clients reach this service at (VITRINE_PUBLIC_URL), for the absolute URLs of
   * uploaded media; unset: the address of the request (API) or http://HOST:PORT (CLI).
   */
  readonly publicUrl?: string;
  /** How long the change log keeps a change for `GET /v1/changes` and webhook replays (VITRINE_CHANGE_RETENTION_HOURS). */
  readonly changeRetentionHours: number;
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

export const DEFAULT_ASSET_FORMATS = ['image', 'video', 'pdf', '3D', 'text'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

function parseInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Reads the environment once into a checked, frozen Config; tests build their own with `overrides`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const config: { -readonly [K in keyof Config]: Config[K] } = {
    port: parseInteger('PORT', env.PORT, 8080),
    host: env.HOST || '127.0.0.1',
    processes: parseInteger('VITRINE_PROCESSES', env.VITRINE_PROCESSES, os.availableParallelism()),
    databaseUrl: env.DATABASE_URL || 'sqlite:./var/vitrine.db',
    redisUrl: env.REDIS_URL || undefined,
    adminToken: env.VITRINE_ADMIN_TOKEN || undefined,
    rateLimitPerMinute: parseInteger('VITRINE_RATE_LIMIT', env.VITRINE_RATE_LIMIT, 1200),
    publishableRateLimitPerMinute: parseInteger(
      'VITRINE_PUBLISHABLE_RATE_LIMIT',
      env.VITRINE_PUBLISHABLE_RATE_LIMIT,
      300,
    ),
    allowPrivateFetch: parseBoolean('VITRINE_ALLOW_PRIVATE_FETCH', env.VITRINE_ALLOW_PRIVATE_FETCH, false),
    logLevel: (env.LOG_LEVEL || 'info') as Config['logLevel'],
    bodyLimitBytes: MAX_JSON_BODY_BYTES,
    dataDir: env.VITRINE_DATA_DIR || './var',
    assetFormats: env.VITRINE_ASSET_FORMATS
      ? env.VITRINE_ASSET_FORMATS.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : DEFAULT_ASSET_FORMATS,
    imageModelPath: env.VITRINE_IMAGE_MODEL || undefined,
    imageHeadPath: env.VITRINE_IMAGE_HEAD || undefined,
    imageRetryBaseMs: parseInteger('VITRINE_IMAGE_RETRY_MS', env.VITRINE_IMAGE_RETRY_MS, 5000),
    visualIndexBytes: parseInteger('VITRINE_VISUAL_INDEX_MB', env.VITRINE_VISUAL_INDEX_MB, 1024) * MB,
    complementsIndexBytes: parseInteger('VITRINE_COMPLEMENTS_INDEX_MB', env.VITRINE_COMPLEMENTS_INDEX_MB, 512) * MB,
    searchVocabularyBytes: parseInteger('VITRINE_SEARCH_VOCABULARY_MB', env.VITRINE_SEARCH_VOCABULARY_MB, 256) * MB,
    listingCacheBytes: parseInteger('VITRINE_LISTING_CACHE_MB', env.VITRINE_LISTING_CACHE_MB, 64) * MB,
    changeRetentionHours: parseInteger('VITRINE_CHANGE_RETENTION_HOURS', env.VITRINE_CHANGE_RETENTION_HOURS, 168),
    webhooks: {
      timeoutMs: parseInteger('VITRINE_WEBHOOK_TIMEOUT_MS', env.VITRINE_WEBHOOK_TIMEOUT_MS, 10_000),
      retryBaseMs: parseInteger('VITRINE_WEBHOOK_RETRY_MS', env.VITRINE_WEBHOOK_RETRY_MS, 10_000),
      retryMaxMs: parseInteger('VITRINE_WEBHOOK_RETRY_MAX_MS', env.VITRINE_WEBHOOK_RETRY_MAX_MS, 3_600_000),
      giveUpHours: parseInteger('VITRINE_WEBHOOK_GIVE_UP_HOURS', env.VITRINE_WEBHOOK_GIVE_UP_HOURS, 24),
      batchSize: parseInteger('VITRINE_WEBHOOK_BATCH', env.VITRINE_WEBHOOK_BATCH, 100),
    },
    publicUrl: env.VITRINE_PUBLIC_URL ? env.VITRINE_PUBLIC_URL.replace(/\/+$/, '') : undefined,
    mediaS3: env.VITRINE_MEDIA_S3_BUCKET
      ? {
          bucket: env.VITRINE_MEDIA_S3_BUCKET,
          ...(env.VITRINE_MEDIA_S3_ENDPOINT ? { endpoint: env.VITRINE_MEDIA_S3_ENDPOINT } : {}),
          region: env.VITRINE_MEDIA_S3_REGION || env.AWS_REGION || 'us-east-1',
          prefix: env.VITRINE_MEDIA_S3_PREFIX ?? 'media/',
          accessKeyId: env.AWS_ACCESS_KEY_ID ?? '',
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '',
        }
      : undefined,
    ...overrides,
  };
  if (config.redisUrl === undefined) delete config.redisUrl;
  if (config.imageModelPath === undefined) delete config.imageModelPath;
  if (config.imageHeadPath === undefined) delete config.imageHeadPath;
  if (config.adminToken === undefined) delete config.adminToken;
  if (config.publicUrl === undefined) delete config.publicUrl;
  if (config.mediaS3 === undefined) delete config.mediaS3;
  if (config.mediaS3 && (!config.mediaS3.accessKeyId || !config.mediaS3.secretAccessKey))
    throw new ConfigError('VITRINE_MEDIA_S3_BUCKET needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  checkConfig(config);
  return Object.freeze(config);
}

const check = (valid: boolean, variable: string, requirement: string, value: unknown) => {
  if (!valid) throw new ConfigError(`${variable} ${requirement}, got ${JSON.stringify(value)}`);
};
const isInteger = (value: number, minimum: number, maximum = Number.MAX_SAFE_INTEGER) =>
  Number.isInteger(value) && value >= minimum && value <= maximum;

/** What the parse step cannot promise (ranges, URL shapes, names), each error naming its variable. */
function checkConfig(c: Config) {
  check(isInteger(c.port, 0, 65535), 'PORT', 'must be a port number from 0 to 65535', c.port);
  check(c.host !== '', 'HOST', 'must not be empty', c.host);
  check(isInteger(c.processes, 1, 256), 'VITRINE_PROCESSES', 'must be from 1 to 256', c.processes);
  check(
    /^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(c.databaseUrl),
    'DATABASE_URL',
    'must start with sqlite:, postgres:// or postgresql://',
    c.databaseUrl,
  );
  check(c.redisUrl === undefined || /^rediss?:\/\//.test(c.redisUrl), 'REDIS_URL', 'must be redis://…', c.redisUrl);
  check(isInteger(c.rateLimitPerMinute, 1), 'VITRINE_RATE_LIMIT', 'must be at least 1', c.rateLimitPerMinute);
  check(
    isInteger(c.publishableRateLimitPerMinute, 1),
    'VITRINE_PUBLISHABLE_RATE_LIMIT',
    'must be at least 1',
    c.publishableRateLimitPerMinute,
  );
  check(LOG_LEVELS.includes(c.logLevel), 'LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`, c.logLevel);
  check(isInteger(c.bodyLimitBytes, 1), 'body limit', 'must be at least 1 byte', c.bodyLimitBytes);
  check(c.dataDir !== '', 'VITRINE_DATA_DIR', 'must not be empty', c.dataDir);
  check(c.assetFormats.length > 0, 'VITRINE_ASSET_FORMATS', 'must name at least one format', c.assetFormats);
  check(isInteger(c.imageRetryBaseMs, 0), 'VITRINE_IMAGE_RETRY_MS', 'must be 0 or more', c.imageRetryBaseMs);
  // Checked here so that a wrong path stops `vitrine serve` at once, not the first search by photo.
  check(
    c.imageModelPath === undefined || fs.existsSync(c.imageModelPath),
    'VITRINE_IMAGE_MODEL',
    'must be the path of an ONNX file',
    c.imageModelPath,
  );
  check(
    c.imageHeadPath === undefined || c.imageHeadPath === 'none' || fs.existsSync(c.imageHeadPath),
    'VITRINE_IMAGE_HEAD',
    'must be the path of a head.json, or none',
    c.imageHeadPath,
  );
  check(
    isInteger(c.changeRetentionHours, 1),
    'VITRINE_CHANGE_RETENTION_HOURS',
    'must be at least 1',
    c.changeRetentionHours,
  );
  check(
    isInteger(c.webhooks.timeoutMs, 100),
    'VITRINE_WEBHOOK_TIMEOUT_MS',
    'must be at least 100',
    c.webhooks.timeoutMs,
  );
  check(isInteger(c.webhooks.retryBaseMs, 0), 'VITRINE_WEBHOOK_RETRY_MS', 'must be 0 or more', c.webhooks.retryBaseMs);
  check(
    isInteger(c.webhooks.retryMaxMs, c.webhooks.retryBaseMs),
    'VITRINE_WEBHOOK_RETRY_MAX_MS',
    'must be at least VITRINE_WEBHOOK_RETRY_MS',
    c.webhooks.retryMaxMs,
  );
  check(
    isInteger(c.webhooks.giveUpHours, 1),
    'VITRINE_WEBHOOK_GIVE_UP_HOURS',
    'must be at least 1',
    c.webhooks.giveUpHours,
  );
  check(
    isInteger(c.webhooks.batchSize, 1, 1000),
    'VITRINE_WEBHOOK_BATCH',
    'must be from 1 to 1000',
    c.webhooks.batchSize,
  );
  check(isInteger(c.visualIndexBytes, 1), 'VITRINE_VISUAL_INDEX_MB', 'must be at least 1', c.visualIndexBytes);
  check(
    isInteger(c.complementsIndexBytes, 1),
    'VITRINE_COMPLEMENTS_INDEX_MB',
    'must be at least 1',
    c.complementsIndexBytes,
  );
  check(
    isInteger(c.searchVocabularyBytes, 1),
    'VITRINE_SEARCH_VOCABULARY_MB',
    'must be at least 1',
    c.searchVocabularyBytes,
  );
  check(
    isInteger(c.listingCacheBytes, 0),
    'VITRINE_LISTING_CACHE_MB',
    'must be a whole number of MB, 0 or more',
    c.listingCacheBytes,
  );
  check(
    c.publicUrl === undefined || /^https?:\/\/\S+$/.test(c.publicUrl),
    'VITRINE_PUBLIC_URL',
    'must be an http(s) URL',
    c.publicUrl,
  );
  check(
    c.mediaS3?.endpoint === undefined || /^https?:\/\//.test(c.mediaS3.endpoint),
    'VITRINE_MEDIA_S3_ENDPOINT',
    'must be an http(s) URL',
    c.mediaS3?.endpoint,
  );
}
