import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, CommanderError, Help, InvalidArgumentError } from 'commander';
// Only what every command needs is loaded up front: each command imports the modules it uses when it
// runs, so `vitrine --help`, `--version` and the store and token commands start in a blink.
import type { Config } from '../config.js';
import type { Container } from '../container.js';
import type { StorageHandle } from '../storage/database.js';
import type { StoresService } from '../modules/stores/stores.service.js';
import type { WebhookSubscription, WebhooksService } from '../modules/webhooks/webhooks.service.js';
import type { ImportMode, ImportSummary } from '../modules/imports/catalog-import.js';
import type { ImageFolderSummary } from '../modules/media/image-folder.js';
import type { ExportFormat } from '../modules/products/product-export.js';
import { AppError } from '../errors.js';
import { VERSION } from '../version.js';
import { createProgress, fail, printResult } from './output.js';
import { PRODUCT_STATUSES } from '../catalog/statuses.js';
import { formatOf, parseEncoding } from '../catalog/import-formats.js';

async function loadConfig(...args: Parameters<typeof import('../config.js').loadConfig>): Promise<Config> {
  return (await import('../config.js')).loadConfig(...args);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Reads the JSON file an operator command takes, or fails with one line. */
function readJsonFile(file: string, what: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return fail(`cannot read ${what} file ${file}: ${(error as Error).message}`);
  }
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError(`must be a number from 0 to 65535, got "${value}"`);
  return Number(value);
}

function parseSequence(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError(`must be a whole number of 1 or more, got "${value}"`);
  return Number(value);
}

function parseProcesses(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256)
    throw new InvalidArgumentError(`must be a number from 1 to 256, got "${value}"`);
  return Number(value);
}

/** Fails with EADDRINUSE (explained like any start-up error) when something already listens there. */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const net = await import('node:net');
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Runs one operator command against DATABASE_URL (schema brought up to date first), then closes. */
async function withContainer<T>(work: (container: Container) => Promise<T>): Promise<T> {
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
async function withStorage<T>(work: (storage: StorageHandle, config: Config) => Promise<T>): Promise<T> {
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
async function withStores<T>(work: (stores: StoresService) => Promise<T>): Promise<T> {
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

/** The webhook commands: the database, stores and webhooks modules only. */
async function withWebhooks<T>(work: (webhooks: WebhooksService) => Promise<T>): Promise<T> {
  const [{ StoresService }, { ChangeFeed }, { WebhooksService }] = await Promise.all([
    import('../modules/stores/stores.service.js'),
    import('../jobs/change-feed.js'),
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

const program = new Command('vitrine')
  .description('Vitrine: catalog management for fashion stores')
  .version(VERSION, '-V, --version', 'print the version')
  // Subcommands inherit this: options an operator must give say so in --help.
  .configureHelp({
    optionDescription: (option) =>
      option.mandatory ? `(required) ${option.description}` : new Help().optionDescription(option),
  })
  .showHelpAfterError(false)
  .exitOverride()
  .configureOutput({
    writeErr: (text) => process.stderr.write(text.startsWith('error: ') ? `vitrine: ${text.slice(7)}` : text),
  });

program
  .command('serve')
  .description('serve the HTTP API (migrates the schema first)')
  .option('--port <port>', 'HTTP port (default PORT or 8080)', parsePort)
  .option('--host <host>', 'bind address (default HOST or 127.0.0.1)')
  .option(
    '--processes <n>',
    'API processes sharing the port (default VITRINE_PROCESSES, else one per core; 1 for sqlite::memory:)',
    parseProcesses,
  )
  .option('--no-worker', 'do not fetch and embed catalogue images in this process (run `vitrine worker` instead)')
  .action(async (options: { port?: number; host?: string; processes?: number; worker: boolean }) => {
    const config = await loadConfig(process.env, {
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.host ? { host: options.host } : {}),
      ...(options.processes !== undefined ? { processes: options.processes } : {}),
    });
    const cluster = (await import('node:cluster')).default;
    // An in-memory database lives in one process: it cannot be shared.
    const processes = config.databaseUrl === 'sqlite::memory:' ? 1 : config.processes;
    if (cluster.isPrimary && processes > 1) {
      // A port in use must fail here, before N processes try it.
      await checkPortFree(config.host, config.port);
      process.env.VITRINE_PROCESS_COUNT = String(processes);
      const { runPrimary } = await import('../cluster.js');
      await runPrimary(config, processes);
      return;
    }
    const { startServer } = await import('../server.js');
    await startServer(config, undefined, { worker: options.worker });
    // A clustered process whose primary is gone stops too.
    if (cluster.isWorker) process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  });

program
  .command('worker')
  .description(
    'fetch and embed catalogue images (and run queued imports) without serving the API; run as many as you like against one PostgreSQL database',
  )
  .action(async () => {
    const { startWorker } = await import('../server.js');
    await startWorker(await loadConfig(process.env));
  });

const images = program.command('images').description('the image pipeline of search by photo');
images
  .command('status')
  .description("how many of a store's images are pending, indexed or failed, and why the last ones failed")
  .requiredOption('--store <uuid>', 'store UUID')
  .option('--failures <n>', 'how many recent failures to list', (v) => Number.parseInt(v, 10), 20)
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; failures: number; json?: boolean }) => {
    const status = await withContainer((c) => c.visual.status(options.store, options.failures));
    printResult(!!options.json, status, [
      `images: ${status.images}  indexed: ${status.indexed}  pending: ${status.pending} (retrying ${status.retrying})  failed: ${status.failed}`,
      ...status.failures.map((f) => `${f.state.padEnd(8)} ${f.attempts}× ${f.url}  ${f.error ?? ''}`),
    ]);
  });
images
  .command('retry')
  .description("queue a store's failed images again")
  .requiredOption('--store <uuid>', 'store UUID')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; json?: boolean }) => {
    const result = await withContainer((c) => c.visual.retryFailed(options.store));
    printResult(!!options.json, result, `${result.requeued} failed images queued again`);
  });

program
  .command('migrate')
  .description('create or update the database schema')
  .option('--json', 'print one JSON object')
  .action(async (options: { json?: boolean }) => {
    const applied = await withStores(async () => []);
    const config = await loadConfig();
    printResult(
      !!options.json,
      { migrated: true, applied },
      `schema up to date (${config.databaseUrl.split('@').pop()})`,
    );
  });

program
  .command('backup')
  .description('a consistent copy of the SQLite database while it serves (PostgreSQL: pg_dump, see README)')
  .argument('<file>', 'where to write the copy (a new file)')
  .option('--json', 'print one JSON object')
  .action(async (file: string, options: { json?: boolean }) => {
    const { backupSqlite } = await import('../storage/backup.js');
    const summary = backupSqlite((await loadConfig()).databaseUrl, file);
    printResult(
      !!options.json,
      summary,
      `backed up ${summary.products} products to ${summary.file} (${(summary.bytes / 1024 / 1024).toFixed(1)} MB, ${summary.seconds.toFixed(1)} s)`,
    );
  });

program
  .command('restore')
  .description('put a backup in place of the SQLite database (stop vitrine serve first)')
  .argument('<file>', 'a file made by vitrine backup')
  .option('--json', 'print one JSON object')
  .action(async (file: string, options: { json?: boolean }) => {
    const { restoreSqlite } = await import('../storage/backup.js');
    const summary = restoreSqlite(file, (await loadConfig()).databaseUrl);
    printResult(
      !!options.json,
      summary,
      `restored ${summary.products} products into ${summary.file}; the previous database is kept as ${summary.file}.before-restore`,
    );
  });

const store = program.command('store').description('stores');
store
  .command('create')
  .description('register a store (creates the workspace when none has that name) and issue a token')
  .requiredOption('--workspace-name <name>', 'workspace (company) name')
  .requiredOption('--name <store_name>', 'store name')
  .option('--website <url>', 'store website')
  .option('--country <code>', 'ISO country code, repeatable', collect, [])
  .option('--channel <code>', 'sales channel, repeatable; the first is the default', collect, [])
  .option('--taxonomy <name>', 'store taxonomy', 'fashion')
  .option('--linked-store <uuid>', 'a linked store')
  .option('--json', 'print one JSON object')
  .action(
    async (options: {
      workspaceName: string;
      name: string;
      website?: string;
      country: string[];
      channel: string[];
      taxonomy: string;
      linkedStore?: string;
      json?: boolean;
    }) => {
      const created = await withStores((stores) =>
        stores.createStore({
          workspaceName: options.workspaceName,
          name: options.name,
          website: options.website,
          countries: options.country,
          channels: options.channel,
          taxonomy: options.taxonomy,
          linkedStoreId: options.linkedStore,
        }),
      );
      printResult(!!options.json, created, [
        `workspace_id: ${created.workspace_id}`,
        `store_uuid:   ${created.store_uuid}`,
        `api_token:    ${created.api_token}`,
        'The token is shown only once; keep it safe.',
      ]);
    },
  );

store
  .command('list')
  .description('list every store')
  .option('--json', 'print one JSON object')
  .action(async (options: { json?: boolean }) => {
    const stores = await withStores((stores) => stores.listStores());
    printResult(
      !!options.json,
      { stores },
      stores.length === 0
        ? 'no stores yet'
        : stores.map(
            (s) =>
              `${s.store_uuid}  ${s.store_name}  workspace ${s.workspace_id}  channels ${Object.keys(s.channels).join(',')}`,
          ),
    );
  });

store
  .command('cors')
  .description('the browser origins allowed to call the API for a store (CORS); no option: show them')
  .requiredOption('--store <uuid>', 'store uuid')
  .option(
    '--origin <origin>',
    'an allowed origin such as https://shop.example, repeatable (replaces the list)',
    collect,
    [],
  )
  .option('--clear', 'allow no origin')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; origin: string[]; clear?: boolean; json?: boolean }) => {
    const origins = await withStores((stores) =>
      options.clear || options.origin.length > 0
        ? stores.setAllowedOrigins(options.store, options.clear ? [] : options.origin)
        : stores.allowedOrigins(options.store),
    );
    printResult(
      !!options.json,
      { store_uuid: options.store, allowed_origins: origins },
      origins.length > 0 ? origins.map((origin) => `allowed: ${origin}`) : 'no browser origin is allowed',
    );
  });

const token = program.command('token').description('API tokens');
token
  .command('create')
  .description('issue another token for a workspace, or a publishable key (--scope search) for storefronts')
  .requiredOption('--workspace <id>', 'workspace id')
  .option(
    '--scope <scope>',
    'full: every endpoint of every store of the workspace; search: a publishable key for the shopper endpoints of --store',
    'full',
  )
  .option('--store <uuid>', 'a store the publishable key works for, repeatable (--scope search)', collect, [])
  .option('--json', 'print one JSON object')
  .action(async (options: { workspace: string; scope: string; store: string[]; json?: boolean }) => {
    const created = await withStores((stores) =>
      stores.createToken(options.workspace, { scope: options.scope, storeIds: options.store }),
    );
    printResult(!!options.json, created, [
      `token_id:  ${created.token_id}`,
      `api_token: ${created.api_token}`,
      ...(created.scope === 'search'
        ? [
            `A publishable key for ${created.store_uuids!.join(', ')}: search, search by photo, similar, complementary, collections, store details only.`,
          ]
        : []),
      'The token is shown only once.',
    ]);
  });
token
  .command('revoke')
  .description('revoke a token at once')
  .argument('<token_id>', 'the token id printed by token create')
  .option('--json', 'print one JSON object')
  .action(async (tokenId: string, options: { json?: boolean }) => {
    const revoked = await withStores((stores) => stores.revokeToken(tokenId));
    printResult(!!options.json, revoked, `token ${tokenId} revoked`);
  });

const webhook = program
  .command('webhook')
  .description('webhook subscriptions: catalog changes pushed to other systems');
const describeWebhook = (w: WebhookSubscription) =>
  `${w.id}  ${w.state}${w.disabled_reason ? ` (${w.disabled_reason})` : ''}  ${w.url}  cursor ${w.cursor_sequence}${w.attempts > 0 ? `  failing: ${w.attempts} attempts, last ${w.last_error}` : ''}`;
webhook
  .command('add')
  .description("subscribe a URL to a store's catalog events from now on (the signing secret is shown once)")
  .requiredOption('--store <uuid>', 'store uuid')
  .requiredOption('--url <url>', 'http(s) URL receiving signed JSON POSTs')
  .option('--event <type>', 'an event type such as product.updated, repeatable (default: all)', collect, [])
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; url: string; event: string[]; json?: boolean }) => {
    const created = await withWebhooks((webhooks) =>
      webhooks.create(options.store, { url: options.url, event_types: options.event }),
    );
    printResult(!!options.json, created, [
      `webhook_id: ${created.id}`,
      `secret:     ${created.secret}`,
      `events:     ${created.event_types.join(', ')}`,
      'The secret is shown only once: the receiver checks X-Vitrine-Signature with it.',
    ]);
  });
webhook
  .command('list')
  .description("a store's webhook subscriptions with their health")
  .requiredOption('--store <uuid>', 'store uuid')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; json?: boolean }) => {
    const list = await withWebhooks((webhooks) => webhooks.list(options.store));
    printResult(!!options.json, { webhooks: list }, list.length > 0 ? list.map(describeWebhook) : 'no webhooks');
  });
webhook
  .command('remove')
  .description('remove a subscription and its delivery log')
  .argument('<webhook_id>', 'the id printed by webhook add')
  .option('--json', 'print one JSON object')
  .action(async (id: string, options: { json?: boolean }) => {
    const removed = await withWebhooks((webhooks) => webhooks.remove(id));
    printResult(!!options.json, removed, `webhook ${id} removed`);
  });
webhook
  .command('enable')
  .description('re-enable a disabled subscription (it resumes from its cursor)')
  .argument('<webhook_id>', 'the id printed by webhook add')
  .option('--json', 'print one JSON object')
  .action(async (id: string, options: { json?: boolean }) => {
    const enabled = await withWebhooks((webhooks) => webhooks.enable(id));
    printResult(!!options.json, enabled, describeWebhook(enabled));
  });
webhook
  .command('replay')
  .description('deliver a retained range of change sequences again (flagged replay)')
  .argument('<webhook_id>', 'the id printed by webhook add')
  .requiredOption('--from <seq>', 'first sequence', (value) => parseSequence(value))
  .option('--to <seq>', 'last sequence (default: the latest)', (value) => parseSequence(value))
  .option('--json', 'print one JSON object')
  .action(async (id: string, options: { from: number; to?: number; json?: boolean }) => {
    const replaying = await withWebhooks((webhooks) => webhooks.replay(id, { from: options.from, to: options.to }));
    printResult(
      !!options.json,
      replaying,
      `webhook ${id} will deliver sequences ${options.from}..${replaying.replay?.upto ?? '?'} again`,
    );
  });
webhook
  .command('deliveries')
  .description('the delivery log of a subscription, newest first')
  .argument('<webhook_id>', 'the id printed by webhook add')
  .option('--limit <n>', 'how many entries', (value) => parseSequence(value), 20)
  .option('--json', 'print one JSON object')
  .action(async (id: string, options: { limit: number; json?: boolean }) => {
    const log = await withWebhooks((webhooks) => webhooks.deliveries(id, options.limit));
    printResult(
      !!options.json,
      { deliveries: log },
      log.length > 0
        ? log.map(
            (d) =>
              `${d.at}  ${d.outcome}${d.status_code ? ` ${d.status_code}` : ''}  seq ${d.first_sequence}..${d.last_sequence} (${d.events} events${d.replay ? ', replay' : ''})${d.error ? `  ${d.error}` : ''}`,
          )
        : 'no deliveries yet',
    );
  });

const mapping = program.command('mapping').description('mapping profiles');
mapping
  .command('set')
  .description('replace a store\'s mapping profile with a JSON file {"fields": {...}, "required": [...]}')
  .requiredOption('--store <uuid>', 'store uuid')
  .requiredOption('--file <path>', 'mapping file')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; file: string; json?: boolean }) => {
    const parsed = readJsonFile(options.file, 'mapping');
    const profile = await withContainer((c) => c.stores.setMappingProfile(options.store, parsed));
    printResult(
      !!options.json,
      { store_uuid: options.store, mapping: profile },
      `mapping profile of store ${options.store} replaced (${Object.keys(profile.fields).length} fields, ${profile.required.length} required)`,
    );
  });

program
  .command('reindex')
  .description("rebuild a store's text search index from its products")
  .requiredOption('--store <uuid>', 'store uuid')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; json?: boolean }) => {
    const result = await withContainer((c) => c.searchIndexer.rebuild(options.store));
    printResult(
      !!options.json,
      { store_uuid: options.store, ...result },
      `indexed ${result.indexed} products in ${result.seconds.toFixed(2)} s`,
    );
  });

const synonyms = program.command('synonyms').description('search synonyms');
synonyms
  .command('set')
  .description('replace a store\'s synonyms with a JSON file {"synonyms": [["tee", "t-shirt"], …]}')
  .requiredOption('--store <uuid>', 'store uuid')
  .requiredOption('--file <path>', 'synonyms file')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; file: string; json?: boolean }) => {
    const parsed = readJsonFile(options.file, 'synonyms');
    const result = await withContainer((c) => c.stores.setSynonyms(options.store, parsed));
    printResult(
      !!options.json,
      { store_uuid: options.store, ...result },
      `synonyms of store ${options.store} replaced (${result.synonyms.length} groups)`,
    );
  });

/** Where a client on this machine reaches `vitrine serve` (a wildcard bind address is reached on loopback). */
function listenAddress(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** The base of media URLs the CLI writes: VITRINE_PUBLIC_URL, else the address `vitrine serve` listens on. */
async function cliMediaBase(config: Config): Promise<string> {
  const { mediaBaseUrl } = await import('../modules/media/media.service.js');
  return mediaBaseUrl(config.publicUrl ?? listenAddress(config));
}

const n = (value: number) => value.toLocaleString('en-US');

function summaryLines(summary: ImportSummary): string[] {
  const counts = (record: Record<string, number>) =>
    Object.entries(record)
      .map(([key, value]) => `${key} ${n(value)}`)
      .join(', ');
  return [
    `${n(summary.rows)} rows${summary.dry_run ? ' (dry run: nothing written)' : ''}: ${n(summary.inserted)} inserted, ${n(summary.updated)} updated, ${n(summary.unchanged)} unchanged, ${n(summary.failed)} failed in ${summary.seconds} s (${summary.mode})`,
    ...(summary.failed > 0 ? [`  rejected rows: ${counts(summary.failures)}`] : []),
    ...(Object.keys(summary.statuses).length > 0 ? [`  products by status: ${counts(summary.statuses)}`] : []),
    ...(summary.hint ? [summary.hint] : []),
  ];
}

function imageLines(images: ImageFolderSummary, dryRun: boolean): string[] {
  return [
    `${n(images.files)} image files: ${n(images.matched)} named a product, ${n(images.uploaded)} uploaded, ${n(images.products)} products ${dryRun ? 'would get' : 'got'} images, ${n(images.failed)} failed in ${images.seconds} s`,
    ...(images.failed > 0
      ? [
          `  failures: ${Object.entries(images.failures)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
        ]
      : []),
    ...(images.unmatched > 0
      ? [
          `  ${n(images.unmatched)} files name no product (expected {product_code}.jpg or {product_code}_2.jpg), e.g. ${images.unmatched_files.slice(0, 5).join(', ')}`,
        ]
      : []),
  ];
}

program
  .command('import')
  .description(
    "import a catalog file (.csv, .json array, .ndjson) through the store's mapping profile, and/or a folder of photos named {product_code}.jpg, {product_code}_2.jpg, …",
  )
  .requiredOption('--store <uuid>', 'store uuid')
  .argument('[file]', 'the catalog file')
  .option('--images <dir>', "upload the photos of this folder and set the matched products' Image URL n")
  .option(
    '--mode <mode>',
    'replace (default: each row is the whole product) or merge (only the fields in the file change)',
    'replace',
  )
  .option('--dry-run', 'report what would be inserted, updated, unchanged or rejected; write nothing')
  .option('--json', 'print the summary as one JSON object')
  .option('--rejects <file>', 'write every rejected row (NDJSON: line, product_code, reason, details, row)')
  .option('--delimiter <char>', 'CSV delimiter (default: detected from the header)')
  .option('--encoding <name>', 'text encoding: utf-8 (default), latin1, utf-16le')
  .action(
    async (
      file: string | undefined,
      options: {
        store: string;
        images?: string;
        mode: string;
        dryRun?: boolean;
        json?: boolean;
        rejects?: string;
        delimiter?: string;
        encoding?: string;
      },
    ) => {
      if (!file && !options.images) fail('name a catalog file, or a folder of photos with --images DIR');
      if (file && !fs.existsSync(file)) fail(`cannot read ${file}: no such file`);
      if (options.images && !fs.statSync(options.images, { throwIfNoEntry: false })?.isDirectory())
        fail(`--images ${options.images}: not a folder`);
      let encoding: BufferEncoding | undefined;
      let mode: ImportMode = 'replace';
      try {
        encoding = parseEncoding(options.encoding, '--encoding');
        mode = (await import('../modules/imports/imports.service.js')).parseImportMode(options.mode);
      } catch (error) {
        fail((error as Error).message.replace(/^mode /, '--mode '));
      }
      if (options.delimiter !== undefined && options.delimiter.replace('\\t', '\t').length !== 1)
        fail('--delimiter must be one character (\\t for tab)');
      const dryRun = options.dryRun === true;
      const rejects = options.rejects ? fs.createWriteStream(options.rejects) : undefined;
      const progress = createProgress();
      const [{ importCatalog }, { importImageFolder }] = await Promise.all([
        import('../modules/imports/catalog-import.js'),
        import('../modules/media/image-folder.js'),
      ]);
      try {
        const result = await withContainer(async (c) => {
          const store = await c.stores.getStore(options.store);
          const summary = file
            ? await importCatalog(c.products, store, file, {
                format: formatOf(file),
                mode,
                dryRun,
                delimiter: options.delimiter?.replace('\\t', '\t'),
                encoding,
                onReject: (reject) => rejects?.write(`${JSON.stringify(reject)}\n`),
                onProgress: progress.update,
              })
            : undefined;
          progress.stop();
          const uploads = createProgress('uploading', 'files');
          const images = options.images
            ? await importImageFolder({
                media: c.media,
                products: c.products,
                productsRead: c.productsRead,
                store,
                dir: options.images,
                baseUrl: await cliMediaBase(c.config),
                dryRun,
                onProgress: (done, total) => uploads.update(done, done, total),
              })
            : undefined;
          uploads.stop();
          return { summary, images };
        });
        progress.stop();
        const { summary, images } = result;
        if (options.json && summary?.hint) process.stderr.write(`${summary.hint}\n`);
        printResult(!!options.json, { ...(summary ?? {}), ...(images ? { images } : {}) }, [
          ...(summary ? summaryLines(summary) : []),
          ...(images ? imageLines(images, dryRun) : []),
        ]);
      } finally {
        progress.stop();
        await new Promise((resolve) => (rejects ? rejects.end(resolve) : resolve(undefined)));
      }
    },
  );

program
  .command('export')
  .description('write every product of a store, with all attributes and Status, to a file that imports back unchanged')
  .requiredOption('--store <uuid>', 'store uuid')
  .argument('<file>', 'the file to write (.ndjson or .csv; - for stdout)')
  .option('--format <format>', 'ndjson or csv (default: from the file name, else ndjson)')
  .option('--status <status>', 'only products with this status')
  .option('--json', 'print a summary as one JSON object')
  .action(async (file: string, options: { store: string; format?: string; status?: string; json?: boolean }) => {
    const { EXPORT_FORMATS } = await import('../modules/products/product-export.js');
    const format = (options.format ?? (file.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson')) as ExportFormat;
    if (!EXPORT_FORMATS.includes(format)) fail(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
    if (options.status !== undefined && !(PRODUCT_STATUSES as readonly string[]).includes(options.status))
      fail(`--status must be one of ${PRODUCT_STATUSES.join(', ')}, got "${options.status}"`);
    if (file === '-' && options.json) fail('--json needs a file: stdout carries the export');
    const started = performance.now();
    const result = await withContainer(async (c) => {
      const store = await c.stores.getStore(options.store);
      const out = file === '-' ? process.stdout : fs.createWriteStream(file);
      let bytes = 0;
      let lines = 0;
      const counted = async function* (pages: AsyncIterable<string>) {
        for await (const page of pages) {
          bytes += Buffer.byteLength(page);
          lines += page.split('\n').length - 1;
          yield page;
        }
      };
      await pipeline(Readable.from(counted(c.productExport.pages(store, { format, status: options.status }))), out, {
        end: file !== '-',
      });
      return { bytes, lines };
    });
    const products = format === 'csv' ? Math.max(result.lines - 1, 0) : result.lines;
    const seconds = Math.round((performance.now() - started) / 10) / 100;
    if (file !== '-')
      printResult(
        !!options.json,
        { file, format, products, bytes: result.bytes, seconds },
        `${n(products)} products written to ${file} (${format}, ${n(result.bytes)} bytes) in ${seconds} s`,
      );
  });

/** The shipped demo catalog (samples/demo, relative to the package). */
const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../samples/demo');

program
  .command('demo')
  .description(
    'create a demo store from the shipped sample catalog and photos, index the photos, and print a token and three requests to try',
  )
  .option('--json', 'print one JSON object')
  .action(async (options: { json?: boolean }) => {
    const catalog = path.join(DEMO_DIR, 'catalog.csv');
    if (!fs.existsSync(catalog)) fail(`the demo catalog is missing (${catalog})`);
    const [{ importCatalog }, { importImageFolder }] = await Promise.all([
      import('../modules/imports/catalog-import.js'),
      import('../modules/media/image-folder.js'),
    ]);
    const result = await withContainer(async (c) => {
      const created = await c.stores.createStore({
        workspaceName: 'Vitrine demo',
        name: 'Demo store',
        countries: [],
        channels: ['web'],
        taxonomy: 'fashion',
      });
      const store = await c.stores.getStore(created.store_uuid);
      const summary = await importCatalog(c.products, store, catalog, { format: 'csv' });
      const images = await importImageFolder({
        media: c.media,
        products: c.products,
        productsRead: c.productsRead,
        store,
        dir: path.join(DEMO_DIR, 'photos'),
        baseUrl: await cliMediaBase(c.config),
      });
      // Embed the photos now, so that search by photo answers as soon as the server is up.
      const embedding = createProgress('indexing photos', 'images');
      await c.imageCatalog.catchUp(store.id);
      let indexed = 0;
      for (;;) {
        const handled = await c.imageWorker.drain();
        indexed += handled;
        embedding.update(indexed, indexed, images.uploaded);
        if (handled === 0) break;
      }
      embedding.stop();
      const status = await c.visual.status(store.id, 5);
      return {
        created,
        summary,
        base: listenAddress(c.config),
        photos: { indexed: status.indexed, failed: status.failed },
      };
    });
    const { created, summary, base } = result;
    const auth = `-H "Authorization: Bearer ${created.api_token}"`;
    const store = created.store_uuid;
    const requests = [
      `curl -s ${auth} "${base}/v1/search?store_uuid=${store}&query=red+dress"`,
      `curl -s ${auth} -F image=@${path.join(DEMO_DIR, 'photos', 'DEMO-027.jpg')} "${base}/v1/visual-search?store_uuid=${store}&limit=5"`,
      `curl -s ${auth} "${base}/v1/complementary?store_uuid=${store}&product_code=DEMO-027&limit=3"`,
    ];
    printResult(
      !!options.json,
      {
        ...created,
        products: summary.inserted + summary.updated + summary.unchanged,
        photos: result.photos,
        try: requests,
        console: `${base}/console/`,
      },
      [
        `Demo store created: ${n(summary.inserted + summary.updated + summary.unchanged)} products, ${n(result.photos.indexed)} photos indexed for search by photo.`,
        `store_uuid: ${store}`,
        `api_token:  ${created.api_token}   (shown once)`,
        '',
        `Start the server (\`npx vitrine serve\` or \`npm start\`), then try:`,
        '',
        '# text search',
        requests[0],
        '# search by photo (a navy dress)',
        requests[1],
        '# complete the look for that dress',
        requests[2],
        '',
        `Or open the console at ${base}/console/ and sign in with the token.`,
      ],
    );
  });

const complements = program.command('complements').description('complete-the-look taxonomy');
complements
  .command('set')
  .description('replace a store\'s complement taxonomy with a JSON file {"groups": {...}, "complements": {...}}')
  .requiredOption('--store <uuid>', 'store uuid')
  .requiredOption('--file <path>', 'taxonomy file')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; file: string; json?: boolean }) => {
    const parsed = readJsonFile(options.file, 'taxonomy');
    const taxonomy = await withContainer((c) => c.recommendations.setTaxonomy(options.store, parsed));
    printResult(
      !!options.json,
      { store_uuid: options.store, groups: Object.keys(taxonomy.groups).length },
      `complement taxonomy of store ${options.store} replaced (${Object.keys(taxonomy.groups).length} groups)`,
    );
  });

/** `LABEL=VALUE` pairs of `vocabulary set` (an empty value removes the label's override). */
function labelPair(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const at = value.lastIndexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`must be LABEL=VALUE, got "${value}"`);
  return [...previous, [value.slice(0, at).trim(), value.slice(at + 1).trim()]];
}

const vocabulary = program
  .command('vocabulary')
  .description("how a store's category, department and colour labels resolve");
vocabulary
  .command('show')
  .description('list every category, department and colour label with its product count, what it resolved to and how')
  .requiredOption('--store <uuid>', 'store uuid')
  .option('--json', 'print one JSON object')
  .action(async (options: { store: string; json?: boolean }) => {
    const report = await withContainer((c) => c.vocabulary.report(options.store));
    const lines = [
      `categories (${report.categories.length}):`,
      ...report.categories.map((c) => {
        const placed =
          c.how === 'per product'
            ? JSON.stringify(c.groups ?? {})
            : `${c.group ?? 'unplaced'}${c.concept ? ` / ${c.concept}` : ''}`;
        return `  ${c.label || '(none)'}  ${c.products}  -> ${placed}  (${c.how})`;
      }),
      `departments (${report.departments.length}):`,
      ...report.departments.map((d) => `  ${d.label}  ${d.products}  -> ${d.audience ?? 'own audience'}  (${d.how})`),
      `colours (${report.colours.length}):`,
      ...report.colours.map(
        (c) =>
          `  ${c.label}  ${c.products}  -> ${c.family ? `${c.lightness} ${c.family}${c.neutral ? ', neutral' : ''}` : 'unplaced'}  (${c.how})`,
      ),
    ];
    printResult(!!options.json, report, lines.join('\n'));
  });
vocabulary
  .command('set')
  .description(
    'change a store\'s overrides: --category "Sleep Bag=NIGHTWEAR", --department "Divided=women", --colour "Mole=dark brown" (repeatable; LABEL= removes one), or replace them all with --file',
  )
  .requiredOption('--store <uuid>', 'store uuid')
  .option('--category <label=group>', 'category label -> complement group (or UNPLACED)', labelPair, [])
  .option(
    '--department <label=audience>',
    'department label -> women, men, girls, boys, kids, baby or unisex',
    labelPair,
    [],
  )
  .option('--colour <label=family>', 'colour label -> colour family, optionally after light/medium/dark', labelPair, [])
  .option(
    '--file <path>',
    'a JSON file {"categories": {…}, "departments": {…}, "colours": {…}} that replaces every override',
  )
  .option('--json', 'print one JSON object')
  .action(
    async (options: {
      store: string;
      category: Array<[string, string]>;
      department: Array<[string, string]>;
      colour: Array<[string, string]>;
      file?: string;
      json?: boolean;
    }) => {
      const fromFile = options.file ? readJsonFile(options.file, 'vocabulary') : undefined;
      const report = await withContainer(async (c) => {
        const current = (fromFile ?? (await c.vocabulary.overrides(options.store))) as Record<
          string,
          Record<string, string>
        >;
        const merged: Record<string, Record<string, string>> = { ...current };
        for (const [section, pairs] of [
          ['categories', options.category],
          ['departments', options.department],
          ['colours', options.colour],
        ] as const) {
          const next = { ...(merged[section] ?? {}) };
          for (const [label, value] of pairs) {
            for (const existing of Object.keys(next))
              if (existing.trim().toLowerCase() === label.toLowerCase()) delete next[existing];
            if (value !== '') next[label] = value;
          }
          merged[section] = next;
        }
        return c.vocabulary.setOverrides(options.store, merged);
      });
      const o = report.overrides;
      printResult(
        !!options.json,
        { store_uuid: report.store_uuid, overrides: o },
        `vocabulary overrides of store ${options.store}: ${Object.keys(o.categories).length} categories, ${Object.keys(o.departments).length} departments, ${Object.keys(o.colours).length} colours`,
      );
    },
  );

const DATABASE_CODES: Record<string, string> = {
  '28P01': 'authentication failed',
  '28000': 'authorization failed',
  '3D000': 'the database does not exist',
  '3F000': 'the schema does not exist',
};

/** A failure to start, in the operator's terms: the setting to fix, the address, the reason. */
function explainStartupError(
  error: Error & { code?: string; address?: string; hostname?: string; port?: number; syscall?: string },
) {
  const host = error.address ?? error.hostname;
  const where = host ? `${host}${error.port !== undefined ? `:${error.port}` : ''}` : '';
  if (error.code === 'EADDRINUSE') return `PORT: ${where} is already in use (choose another with PORT or --port)`;
  if (error.code === 'EACCES' && error.syscall === 'listen') return `PORT: not allowed to listen on ${where}`;
  if (error.syscall === 'connect' || error.syscall === 'getaddrinfo')
    return `DATABASE_URL: cannot connect to ${where || 'the database'} (${error.code ?? error.message})`;
  if (error.code === 'SQLITE_CANTOPEN') return `DATABASE_URL: cannot open the SQLite file (${error.message})`;
  if (error.code && DATABASE_CODES[error.code]) return `DATABASE_URL: ${DATABASE_CODES[error.code]} (${error.message})`;
  if (/timeout.*connect|connection terminated/i.test(error.message))
    return `DATABASE_URL: cannot connect (${error.message})`;
  return error.message;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander already printed its one-line message; help and version exit 0.
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  if (error instanceof AppError || (error as Error).name === 'ConfigError') fail((error as Error).message);
  fail(error instanceof Error ? explainStartupError(error) : String(error));
}
