import type { Command } from 'commander';
import { printResult } from '../output.js';
import { collect, withContainer, withStores } from '../command-context.js';

/** `vitrine store create|list|cors`. */
export function registerStoreCommands(program: Command): void {
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
    .option('--language <tag>', "the catalog's language: en, fr, de, es, it, nl, pt, sv or da", 'en')
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
        language: string;
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
            language: options.language,
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
    .command('language')
    .description(
      "a store's catalog language; --set changes it (the text index is rebuilt in the background by vitrine serve or vitrine worker)",
    )
    .requiredOption('--store <uuid>', 'store uuid')
    .option('--set <tag>', 'the new language: en, fr, de, es, it, nl, pt, sv or da')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; set?: string; json?: boolean }) => {
      const language = await withContainer((c) =>
        options.set === undefined
          ? c.vocabulary.language(options.store)
          : c.vocabulary.setLanguage(options.store, { language: options.set }),
      );
      printResult(
        !!options.json,
        language,
        `language: ${language.language}${language.reindexing ? ` (text search answers in ${language.index_language} until its index is rebuilt)` : ''}`,
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
}
