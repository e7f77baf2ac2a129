import type { Command } from 'commander';
import { printResult } from '../output.js';
import { readJsonFile, withContainer } from '../command-context.js';

/** `vitrine mapping set`, `reindex`, `synonyms set` and `complements set`: a store's settings read from files. */
export function registerCatalogSettingsCommands(program: Command): void {
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
}
