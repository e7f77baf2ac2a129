import { Command, CommanderError, Help } from 'commander';
import { AppError } from '../errors.js';
import { VERSION } from '../version.js';
import { fail } from './output.js';
import { explainStartupError } from './startup-errors.js';
import { registerServeCommands } from './commands/serve.js';
import { registerImagesCommands } from './commands/images.js';
import { registerDatabaseCommands } from './commands/database.js';
import { registerStoreCommands } from './commands/stores.js';
import { registerTokenCommands } from './commands/tokens.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { registerCatalogSettingsCommands } from './commands/catalog-settings.js';
import { registerImportCommand } from './commands/import.js';
import { registerExportCommand } from './commands/export.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerVocabularyCommands } from './commands/vocabulary.js';
import { registerAnalyticsCommands } from './commands/analytics.js';

// The operator CLI (CONTRACT §2): one file per group of commands under commands/; each imports the
// modules it uses when it runs, so `vitrine --help`, `--version` and the store commands start fast.
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

// Registered in the order `vitrine --help` lists them.
registerServeCommands(program);
registerImagesCommands(program);
registerDatabaseCommands(program);
registerStoreCommands(program);
registerTokenCommands(program);
registerWebhookCommands(program);
registerCatalogSettingsCommands(program);
registerImportCommand(program);
registerExportCommand(program);
registerDemoCommand(program);
registerVocabularyCommands(program);
registerAnalyticsCommands(program);

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
