import fs from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { createContainer, type Container } from '../container.js';
import { migrateToLatest } from '../storage/migrate.js';
import { startServer, startWorker } from '../server.js';
import { AppError } from '../errors.js';
import { createProgress, fail, printResult } from './output.js';
import { importCatalog } from '../modules/imports/catalog-import.js';
import { formatOf, parseEncoding } from '../catalog/import-formats.js';

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

/** Runs one operator command against DATABASE_URL (schema brought up to date first), then closes. */
async function withContainer<T>(work: (container: Container) => Promise<T>): Promise<T> {
  const container = createContainer(loadConfig(process.env, { logLevel: 'silent' }));
  try {
    await migrateToLatest(container.storage);
    return await work(container);
  } finally {
    await container.close();
  }
}

const program = new Command('vitrine')
  .description('Vitrine: catalog management for fashion stores')
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
  .option('--no-worker', 'do not fetch and embed catalogue images in this process (run `vitrine worker` instead)')
  .action(async (options: { port?: number; host?: string; worker: boolean }) => {
    const config = loadConfig(process.env, {
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.host ? { host: options.host } : {}),
    });
    await startServer(config, undefined, { worker: options.worker });
  });

program
  .command('worker')
  .description(
    'fetch and embed catalogue images (and run queued imports) without serving the API; run as many as you like against one PostgreSQL database',
  )
  .action(async () => {
    await startWorker(loadConfig(process.env));
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
    const applied = await withContainer(async () => []);
    const config = loadConfig();
    printResult(
      !!options.json,
      { migrated: true, applied },
      `schema up to date (${config.databaseUrl.split('@').pop()})`,
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
      const created = await withContainer((c) =>
        c.stores.createStore({
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
    const stores = await withContainer((c) => c.stores.listStores());
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

const token = program.command('token').description('API tokens');
token
  .command('create')
  .description('issue another token for a workspace')
  .requiredOption('--workspace <id>', 'workspace id')
  .option('--json', 'print one JSON object')
  .action(async (options: { workspace: string; json?: boolean }) => {
    const created = await withContainer((c) => c.stores.createToken(options.workspace));
    printResult(!!options.json, created, [
      `token_id:  ${created.token_id}`,
      `api_token: ${created.api_token}`,
      'The token is shown only once.',
    ]);
  });
token
  .command('revoke')
  .description('revoke a token at once')
  .argument('<token_id>', 'the token id printed by token create')
  .option('--json', 'print one JSON object')
  .action(async (tokenId: string, options: { json?: boolean }) => {
    const revoked = await withContainer((c) => c.stores.revokeToken(tokenId));
    printResult(!!options.json, revoked, `token ${tokenId} revoked`);
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

program
  .command('import')
  .description("import a catalog file (.csv, .json array, .ndjson) through the store's mapping profile")
  .requiredOption('--store <uuid>', 'store uuid')
  .argument('<file>', 'the catalog file')
  .option('--json', 'print the summary as one JSON object')
  .option('--rejects <file>', 'write every rejected row (NDJSON: line, product_code, reason, details, row)')
  .option('--delimiter <char>', 'CSV delimiter (default: detected from the header)')
  .option('--encoding <name>', 'text encoding: utf-8 (default), latin1, utf-16le')
  .action(
    async (
      file: string,
      options: { store: string; json?: boolean; rejects?: string; delimiter?: string; encoding?: string },
    ) => {
      if (!fs.existsSync(file)) fail(`cannot read ${file}: no such file`);
      let encoding: BufferEncoding | undefined;
      try {
        encoding = parseEncoding(options.encoding, '--encoding');
      } catch (error) {
        fail((error as Error).message);
      }
      if (options.delimiter !== undefined && options.delimiter.replace('\\t', '\t').length !== 1)
        fail('--delimiter must be one character (\\t for tab)');
      const rejects = options.rejects ? fs.createWriteStream(options.rejects) : undefined;
      const progress = createProgress();
      try {
        const summary = await withContainer(async (c) => {
          const store = await c.stores.getStore(options.store);
          return importCatalog(c.products, store, file, {
            format: formatOf(file),
            delimiter: options.delimiter?.replace('\\t', '\t'),
            encoding,
            onReject: (reject) => rejects?.write(`${JSON.stringify(reject)}\n`),
            onProgress: progress.update,
          });
        });
        progress.stop();
        printResult(!!options.json, summary, [
          `${summary.rows} rows: ${summary.inserted} inserted, ${summary.updated} updated, ${summary.failed} failed in ${summary.seconds} s`,
          ...Object.entries(summary.failures).map(([reason, n]) => `  ${reason}: ${n}`),
        ]);
      } finally {
        progress.stop();
        await new Promise((resolve) => (rejects ? rejects.end(resolve) : resolve(undefined)));
      }
    },
  );

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

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander already printed its one-line message; help and version exit 0.
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  if (error instanceof AppError || error instanceof ConfigError) fail(error.message);
  fail(error instanceof Error ? `${error.message}` : String(error));
}
