import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { importCatalog } from '../../src/modules/imports/catalog-import.js';
import { formatOf } from '../../src/catalog/import-formats.js';

// One import as `vitrine import` runs it, in its own process, reporting its summary and peak RSS.
const container = createContainer(loadConfig(process.env, { logLevel: 'silent' }));
await migrateToLatest(container.storage);
const store = await container.stores.getStore(process.env.BENCH_STORE!);
const file = process.env.BENCH_FILE!;
const summary = await importCatalog(container.products, store, file, { format: formatOf(file) });
await container.close();
process.stdout.write(
  `RESULT ${JSON.stringify({ summary, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
);
