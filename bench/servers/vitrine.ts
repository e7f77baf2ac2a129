import cluster from 'node:cluster';
import net from 'node:net';
import { PROCESS_INDEX, reportReady } from '../../src/cluster/messages.js';
import { runPrimary } from '../../src/cluster/primary.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { createContainer } from '../../src/container.js';
import { buildApp } from '../../src/app.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

// Vitrine as deployed (`vitrine serve`), on DATABASE_URL, on a free port. With
// VITRINE_BENCH_NO_WORKERS=1, the API alone: a benchmark of a read path on a freshly loaded catalog
// does not want the change followers indexing it meanwhile.
// Clustered like `vitrine serve` (VITRINE_PROCESSES, default one per core): the primary picks the
// port, the API processes share it, and process 0 says READY.
if (cluster.isPrimary && !process.env.BENCH_PORT) {
  const free = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => free.once('listening', resolve));
  process.env.BENCH_PORT = String((free.address() as net.AddressInfo).port);
  await new Promise((resolve) => free.close(resolve));
}
const config = loadConfig(process.env, { port: Number(process.env.BENCH_PORT) });
if (cluster.isPrimary && config.processes > 1) {
  process.env.VITRINE_PROCESS_COUNT = String(config.processes);
  await runPrimary(config, config.processes);
} else await serve();

async function serve() {
  let port = 0;
  if (process.env.VITRINE_BENCH_NO_WORKERS === '1') {
    const container = createContainer(config);
    await migrateToLatest(container.storage);
    const app = await buildApp(container, { logger: false });
    await app.listen({ port: config.port, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    reportReady();
    process.on('SIGTERM', () => {
      void app
        .close()
        .then(() => container.close())
        .then(() => process.exit(0));
    });
  } else {
    // VITRINE_BENCH_NO_EMBED=1: `vitrine serve --no-worker` (image embedding left to a `vitrine worker`
    // the bench does not start), for benches of other paths over a catalog whose images are unreachable.
    const { app } = await startServer(config, () => {}, { worker: process.env.VITRINE_BENCH_NO_EMBED !== '1' });
    const address = app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  }
  if (PROCESS_INDEX === 0) process.stdout.write(`READY ${port}\n`);
}
