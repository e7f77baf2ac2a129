import type { Command } from 'commander';
import { printResult } from '../output.js';
import { loadConfig } from '../command-context.js';

/** `vitrine migrate`, `backup` and `restore`: the database itself. */
export function registerDatabaseCommands(program: Command): void {
  program
    .command('migrate')
    .description('create or update the database schema')
    .option('--dry-run', 'list the migrations that would run, and run none')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean; dryRun?: boolean }) => {
      const config = await loadConfig(process.env, { logLevel: 'silent' });
      const [{ openDatabase }, { migrateToLatest, pendingMigrations }] = await Promise.all([
        import('../../storage/database.js'),
        import('../../storage/migrate.js'),
      ]);
      const storage = openDatabase(config.databaseUrl);
      try {
        const where = config.databaseUrl.split('@').pop();
        if (options.dryRun) {
          const pending = await pendingMigrations(storage);
          printResult(
            !!options.json,
            { migrated: false, pending },
            pending.length === 0 ? `schema up to date (${where})` : `would run: ${pending.join(', ')} (${where})`,
          );
          return;
        }
        const applied = await migrateToLatest(storage);
        printResult(
          !!options.json,
          { migrated: true, applied },
          applied.length === 0 ? `schema up to date (${where})` : `ran ${applied.join(', ')} (${where})`,
        );
      } finally {
        await storage.close();
      }
    });

  program
    .command('backup')
    .description(
      'a consistent copy of the database while it serves: SQLite a file (VACUUM INTO), PostgreSQL pg_dump in its custom format',
    )
    .argument('<file>', 'where to write the copy (a new file)')
    .option('--json', 'print one JSON object')
    .action(async (file: string, options: { json?: boolean }) => {
      const { databaseUrl } = await loadConfig();
      const summary = databaseUrl.startsWith('sqlite:')
        ? (await import('../../storage/backup.js')).backupSqlite(databaseUrl, file)
        : await (await import('../../storage/postgres-backup.js')).backupPostgres(databaseUrl, file);
      printResult(
        !!options.json,
        summary,
        `backed up ${summary.products} products to ${summary.file} (${(summary.bytes / 1024 / 1024).toFixed(1)} MB, ${summary.seconds.toFixed(1)} s)`,
      );
    });

  program
    .command('restore')
    .description(
      'SQLite: put a backup in place of the database (stop vitrine serve first); PostgreSQL: load it into an empty database',
    )
    .argument('<file>', 'a file made by vitrine backup')
    .option('--json', 'print one JSON object')
    .action(async (file: string, options: { json?: boolean }) => {
      const { databaseUrl } = await loadConfig();
      if (databaseUrl.startsWith('sqlite:')) {
        const summary = (await import('../../storage/backup.js')).restoreSqlite(file, databaseUrl);
        printResult(
          !!options.json,
          summary,
          `restored ${summary.products} products into ${summary.file}; the previous database is kept as ${summary.file}.before-restore`,
        );
        return;
      }
      const summary = await (await import('../../storage/postgres-backup.js')).restorePostgres(file, databaseUrl);
      printResult(!!options.json, summary, `restored ${summary.products} products from ${summary.file}`);
    });
}
