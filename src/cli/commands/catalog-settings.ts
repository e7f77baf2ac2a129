import type { Command } from 'commander';
import type { Container } from '../../container.js';
import { printResult } from '../output.js';
import { readJsonFile, withContainer } from '../command-context.js';

/**
 * `<noun> set --store --file`: replaces one of a store's settings with a JSON file, through the
 * module that owns it; prints what was stored (--json) or one line saying what changed.
 */
function fileSettingCommand<T>(
  program: Command,
  setting: { noun: string; about: string; file: string; shape: string },
  apply: (container: Container, storeUuid: string, parsed: unknown) => Promise<T>,
  report: (stored: T, storeUuid: string) => { json: object; line: string },
): Command {
  const group = program.command(setting.noun).description(setting.about);
  group
    .command('set')
    .description(`replace a store's ${setting.about} with a JSON file ${setting.shape}`)
    .requiredOption('--store <uuid>', 'store uuid')
    .requiredOption('--file <path>', `${setting.file} file`)
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; file: string; json?: boolean }) => {
      const parsed = readJsonFile(options.file, setting.file);
      const stored = await withContainer((c) => apply(c, options.store, parsed));
      const { json, line } = report(stored, options.store);
      printResult(!!options.json, json, line);
    });
  return group;
}

/** `vitrine mapping set`, `reindex`, `synonyms set`, `search-rules show|set` and `complements set`: a store's settings. */
export function registerCatalogSettingsCommands(program: Command): void {
  fileSettingCommand(
    program,
    { noun: 'mapping', about: 'mapping profile', file: 'mapping', shape: '{"fields": {...}, "required": [...]}' },
    (c, store, parsed) => c.mappingProfiles.set(store, parsed),
    (profile, store) => ({
      json: { store_uuid: store, mapping: profile },
      line: `mapping profile of store ${store} replaced (${Object.keys(profile.fields).length} fields, ${profile.required.length} required)`,
    }),
  );

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

  fileSettingCommand(
    program,
    { noun: 'synonyms', about: 'search synonyms', file: 'synonyms', shape: '{"synonyms": [["tee", "t-shirt"], …]}' },
    (c, store, parsed) => c.search.setSynonyms(store, parsed),
    (result, store) => ({
      json: { store_uuid: store, ...result },
      line: `synonyms of store ${store} replaced (${result.synonyms.length} groups)`,
    }),
  );

  fileSettingCommand(
    program,
    {
      noun: 'search-rules',
      about: 'merchandising rules (search and browse)',
      file: 'rules',
      shape: '{"rules": [{"id", "when", "pin", "hide", "boost", "bury", "active_from", "active_until"}, …]}',
    },
    (c, store, parsed) => c.search.setRules(store, parsed),
    (result, store) => ({
      json: { store_uuid: store, ...result },
      line: `merchandising rules of store ${store} replaced (${result.rules.length} rules)`,
    }),
  )
    .command('show')
    .description("print a store's merchandising rules as JSON (the file `search-rules set` takes)")
    .requiredOption('--store <uuid>', 'store uuid')
    .action(async (options: { store: string }) => {
      const rules = await withContainer((c) => c.search.getRules(options.store));
      process.stdout.write(`${JSON.stringify(rules, null, 2)}\n`);
    });

  fileSettingCommand(
    program,
    {
      noun: 'complements',
      about: 'complete-the-look taxonomy',
      file: 'taxonomy',
      shape: '{"groups": {...}, "complements": {...}}',
    },
    (c, store, parsed) => c.complements.setTaxonomy(store, parsed),
    (taxonomy, store) => ({
      json: { store_uuid: store, groups: Object.keys(taxonomy.groups).length },
      line: `complement taxonomy of store ${store} replaced (${Object.keys(taxonomy.groups).length} groups)`,
    }),
  );
}
