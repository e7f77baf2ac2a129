import fs from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { Config } from '../config.js';
import type { Container } from '../container.js';
import type { StorageHandle } from '../storage/database.js';
import type { StoresService } from '../modules/stores/stores.service.js';
import type { TokensService } from '../modules/stores/tokens.service.js';
import type { WebhooksService } from '../modules/webhooks/webhooks.service.js';
import { fail } from './output.js';

// What the commands share: configuration, the database or the whole container for one command, and
// option parsers. Each helper imports the modules it needs when it runs, so `vitrine --help`,
// `--version` and the store and token commands start in a blink.

export async function loadConfig(...args: Parameters<typeof import('../config.js').loadConfig>): Promise<Config> {
  return (await import('../config.js')).loadConfig(...args);
}

/** Repeatable options: `--country FR --country DE`. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A count as an operator reads it: 44,424. */
export const formatCount = (value: number) => value.toLocaleString('en-US');

/** Reads the JSON file an operator command takes, or fails with one line. */
export function readJsonFile(file: string, what: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return fail(`cannot read ${what} file ${file}: ${(error as Error).message}`);
  }
}

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError(`must be a number from 0 to 65535, got "${value}"`);
  return Number(value);
}

export function parseSequence(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError(`must be a whole number of 1 or more, got "${value}"`);
  return Number(value);
}

export function parseProcesses(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256)
    throw new InvalidArgumentError(`must be a number from 1 to 256, got "${value}"`);
  return Number(value);
}

/** Fails with EADDRINUSE (explained like any start-up error) when something already listens there. */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const net = await import('node:net');
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Runs one operator command against DATABASE_URL (schema brought up to date first), then closes. */
export async function withContainer<T>(work: (container: Container) => Promise<T>): Promise<T> {
  const [{ createContainer }, { migrateToLatest }] = await Promise.all([
    import('../container.js'),
    import('../storage/migrate.js'),
  ]);
  const container = createContainer(await loadConfig(process.env, { logLevel: 'silent' }));
  try {
    await migrateToLatest(container.storage);
    return await work(container);
  } finally {
    await container.close();
  }
}

/** Opens DATABASE_URL with the schema brought up to date, runs `work`, closes: the light commands' shared path. */
export async function withStorage<T>(work: (storage: StorageHandle, config: Config) => Promise<T>): Promise<T> {
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
    import('../storage/database.js'),
    import('../storage/migrate.js'),
  ]);
  const config = await loadConfig(process.env, { logLevel: 'silent' });
  const storage = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(storage);
    return await work(storage, config);
  } finally {
    await storage.close();
  }
}

/** The store and token commands: the database and the stores module only (no search, images or server). */
export async function withStores<T>(work: (stores: StoresService) => Promise<T>): Promise<T> {
  const [{ StoresService }, { channelUsage }] = await Promise.all([
    import('../modules/stores/stores.service.js'),
    import('../modules/assets/assets.repository.js'),
  ]);
  return withStorage((storage) => {
    const stores = new StoresService(storage);
    stores.setChannelUsage((store) => channelUsage(storage.db, store.id));
    return work(stores);
  });
}

/** The token commands: the database and the tokens of the stores module only. */
export async function withTokens<T>(work: (tokens: TokensService) => Promise<T>): Promise<T> {
  const { TokensService } = await import('../modules/stores/tokens.service.js');
  return withStorage((storage) => work(new TokensService(storage)));
}

/** The webhook commands: the database, stores and webhooks modules only. */
export async function withWebhooks<T>(work: (webhooks: WebhooksService) => Promise<T>): Promise<T> {
  const [{ StoresService }, { ChangeFeed }, { WebhooksService }] = await Promise.all([
    import('../modules/stores/stores.service.js'),
    import('../storage/change-feed.js'),
    import('../modules/webhooks/webhooks.service.js'),
  ]);
  return withStorage((storage, config) =>
    work(
      new WebhooksService(storage, new ChangeFeed(storage), new StoresService(storage), {
        allowPrivateFetch: config.allowPrivateFetch,
      }),
    ),
  );
}

export function listenAddress(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** The base of media URLs the CLI writes: VITRINE_PUBLIC_URL, else the address `vitrine serve` listens on. */
export async function cliMediaBase(config: Config): Promise<string> {
  const { mediaBaseUrl } = await import('../modules/media/media.service.js');
  return mediaBaseUrl(config.publicUrl ?? listenAddress(config));
}
