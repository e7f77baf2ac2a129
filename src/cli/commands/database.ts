import type { Command } from 'commander';
import { printResult } from '../output.js';
import { loadConfig, withStores } from '../command-context.js';

/** `vitrine migrate`, `backup` and `restore`: the database itself. */
export function registerDatabaseCommands(program: Command): void {
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
      const { backupSqlite } = await import('../../storage/backup.js');
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
      const { restoreSqlite } = await import('../../storage/backup.js');
      const summary = restoreSqlite(file, (await loadConfig()).databaseUrl);
      printResult(
        !!options.json,
        summary,
        `restored ${summary.products} products into ${summary.file}; the previous database is kept as ${summary.file}.before-restore`,
      );
    });
}
