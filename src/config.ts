import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { MAX_JSON_BODY_BYTES } from './catalog/limits.js';

const MB = 1024 * 1024;

/** Every setting of CONTRACT §1, with its default. This file is the only reader of process.env. */
const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  databaseUrl: Type.String({ pattern: '^(sqlite:|postgres://|postgresql://)' }),
  redisUrl: Type.Optional(Type.String({ minLength: 1 })),
  adminToken: Type.Optional(Type.String({ minLength: 1 })),
  rateLimitPerMinute: Type.Integer({ minimum: 1 }),
  /** Requests per minute of one shopper IP with one publishable key (VITRINE_PUBLISHABLE_RATE_LIMIT). */
  publishableRateLimitPerMinute: Type.Integer({ minimum: 1 }),
  allowPrivateFetch: Type.Boolean(),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  /** JSON bodies (CONTRACT §4: 10 MB). */
  bodyLimitBytes: Type.Integer({ minimum: 1 }),
  /** Where uploaded import files and their rejects are kept (VITRINE_DATA_DIR). */
  dataDir: Type.String({ minLength: 1 }),
  /** Asset formats accepted as asset_type / asset_format (catalog-api: loaded from configuration). */
  assetFormats: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  /** ONNX image model for search by photo (VITRINE_IMAGE_MODEL); unset: the shipped MobileNetV2. */
  imageModelPath: Type.Optional(Type.String({ minLength: 1 })),
  /** First retry delay of a failed image fetch (VITRINE_IMAGE_RETRY_MS); each retry waits 4× longer. */
  imageRetryBaseMs: Type.Integer({ minimum: 0 }),
  /**
   * Memory budgets of the per-store in-memory indexes (least recently used store evicted first,
   * rebuilt on demand): search by photo (VITRINE_VISUAL_INDEX_MB), complete the look
   * (VITRINE_COMPLEMENTS_INDEX_MB), text-search typo vocabularies (VITRINE_SEARCH_VOCABULARY_MB).
   */
  visualIndexBytes: Type.Integer({ minimum: 1 }),
  complementsIndexBytes: Type.Integer({ minimum: 1 }),
  searchVocabularyBytes: Type.Integer({ minimum: 1 }),
  /**
   * The address clients reach this service at (VITRINE_PUBLIC_URL), for the absolute URLs of
   * uploaded media; unset: the address of the request (API) or http://HOST:PORT (CLI).
   */
  publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  /** An S3-compatible bucket for uploaded media (VITRINE_MEDIA_S3_*); unset: the local disk under dataDir. */
  mediaS3: Type.Optional(
    Type.Object({
      bucket: Type.String({ minLength: 1 }),
      endpoint: Type.Optional(Type.String({ pattern: '^https?://' })),
      region: Type.String({ minLength: 1 }),
      prefix: Type.String(),
      accessKeyId: Type.String({ minLength: 1 }),
      secretAccessKey: Type.String({ minLength: 1 }),
    }),
  ),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;

export const DEFAULT_ASSET_FORMATS = ['image', 'video', 'pdf', '3D', 'text'];

export class ConfigError extends Error {}

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
  const config = {
    port: parseInteger('PORT', env.PORT, 8080),
    host: env.HOST || '127.0.0.1',
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
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimitBytes: MAX_JSON_BODY_BYTES,
    dataDir: env.VITRINE_DATA_DIR || './var',
    assetFormats: env.VITRINE_ASSET_FORMATS
      ? env.VITRINE_ASSET_FORMATS.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : DEFAULT_ASSET_FORMATS,
    imageModelPath: env.VITRINE_IMAGE_MODEL || undefined,
    imageRetryBaseMs: parseInteger('VITRINE_IMAGE_RETRY_MS', env.VITRINE_IMAGE_RETRY_MS, 5000),
    visualIndexBytes: parseInteger('VITRINE_VISUAL_INDEX_MB', env.VITRINE_VISUAL_INDEX_MB, 1024) * MB,
    complementsIndexBytes: parseInteger('VITRINE_COMPLEMENTS_INDEX_MB', env.VITRINE_COMPLEMENTS_INDEX_MB, 512) * MB,
    searchVocabularyBytes: parseInteger('VITRINE_SEARCH_VOCABULARY_MB', env.VITRINE_SEARCH_VOCABULARY_MB, 256) * MB,
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
  if (config.adminToken === undefined) delete config.adminToken;
  if (config.publicUrl === undefined) delete config.publicUrl;
  if (config.mediaS3 === undefined) delete config.mediaS3;
  if (config.mediaS3 && (!config.mediaS3.accessKeyId || !config.mediaS3.secretAccessKey))
    throw new ConfigError('VITRINE_MEDIA_S3_BUCKET needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  const firstError = Value.Errors(ConfigSchema, config).First();
  if (firstError) throw new ConfigError(`invalid configuration: ${firstError.path.slice(1)} ${firstError.message}`);
  return Object.freeze(config);
}
