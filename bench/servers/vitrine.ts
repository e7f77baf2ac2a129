import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { createContainer } from '../../src/container.js';
import { buildApp } from '../../src/app.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

// Vitrine as deployed (`vitrine serve`), on DATABASE_URL, on a free port. With
// VITRINE_BENCH_NO_WORKERS=1, the API alone: a benchmark of a read path on a freshly loaded catalog
// does not want the change followers indexing it meanwhile.
const config = loadConfig(process.env, { port: 0 });
let port = 0;
if (process.env.VITRINE_BENCH_NO_WORKERS === '1') {
  const container = createContainer(config);
  await migrateToLatest(container.storage);
  const app = await buildApp(container, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
  process.on('SIGTERM', () => {
    void app
      .close()
      .then(() => container.close())
      .then(() => process.exit(0));
  });
} else {
  const { app } = await startServer(config, () => {});
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
}
process.stdout.write(`READY ${port}\n`);
