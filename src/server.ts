import closeWithGrace from 'close-with-grace';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { compileShopperSerializers } from './http/lazy-serializers.js';
import { buildLanguageTables } from './languages/languages.js';
import { createContainer, type Container } from './container.js';
import type { Config } from './config.js';
import { migrateToLatest } from './storage/migrate.js';
import { isClusterWorker, PROCESS_INDEX, reportReady } from './cluster/messages.js';
import { listenForPeers } from './cluster/store-owners.js';

export interface RunningServer {
  app: FastifyInstance;
  container: Container;
  url: string;
}

/**
 * Opens the database, brings the schema up to date, prints where it listens, and serves until
 * SIGTERM/SIGINT: in-flight requests finish, then the database is closed.
 */
export async function startServer(
  config: Config,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  options: { worker?: boolean } = {},
): Promise<RunningServer> {
  const log = pino({ level: config.logLevel });
  const onWorkerError = (worker: string, err: unknown) => log.error({ err, worker }, 'background work failed');
  const container = createContainer(config, { onWorkerError, jobLog: log });
  await migrateToLatest(container.storage);
  await container.redisHealth?.ready();
  const app = await buildApp(container);
  await app.ready();
  // Before taking calls, what a shopper's first call would otherwise wait for: the shopper routes' answers
  // compiled, and the other languages' vocabulary tables (the first store whose labels need them built
  // them inside its request, 100–150 ms). Done in the background once listening, it held the first
  // calls of a restarted group back instead (a cold store's first search 191 → 274 ms server-side).
  await compileShopperSerializers(app);
  await buildLanguageTables();
  // The private port first: the other processes learn it before this one takes calls.
  const peerServer = await listenForPeers(container.storeOwners, PROCESS_INDEX, (req, res) => app.routing(req, res));
  // Then the public port: a port in use fails here, before anything claims the service is up.
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const banner = [
    `Vitrine serving the catalog API on ${url} (database ${container.storage.description}${isClusterWorker() ? `, ${process.env.VITRINE_PROCESS_COUNT ?? '?'} API processes` : ''})`,
    `Create a store and its API token: npx vitrine store create --workspace-name "My Company" --name "My Store" --json`,
    `Then: curl -H "Authorization: Bearer <api_token>" "${url}/v1/stores?store_uuid=<store_uuid>"   (API docs: ${url}/docs)`,
  ];
  // Clustered (`--processes N`), process 0's banner is printed by the primary once every API process
  // listens: until then the first requests all land on the processes already up, beside the others' start.
  if (!isClusterWorker()) banner.forEach((line) => print(line));
  reportReady(PROCESS_INDEX === 0 ? banner : undefined);
  // Which workers run here is the role table's (src/jobs/worker-roles.ts): the shared work in the
  // first API process, in-memory indexes in every one; --no-worker leaves embedding to `vitrine worker`.
  await container.workers.start(
    PROCESS_INDEX === 0 ? 'api' : 'api-replica',
    { offload: options.worker === false },
    onWorkerError,
  );
  closeWithGrace({ delay: 10_000 }, async ({ err, signal }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    peerServer?.close();
    peerServer?.closeIdleConnections();
    await app.close();
    await container.close();
  });
  return { app, container, url };
}

/**
 * `vitrine worker`: the background work without the HTTP API. It follows the change log for new
 * catalogue images, fetches and embeds them, and runs queued imports; several workers (and serving
 * processes) share one PostgreSQL queue without taking the same image twice.
 */
export async function startWorker(
  config: Config,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<Container> {
  const log = pino({ level: config.logLevel });
  const onWorkerError = (worker: string, err: unknown) => log.error({ err, worker }, 'background work failed');
  const container = createContainer(config, { onWorkerError, jobLog: log });
  await migrateToLatest(container.storage);
  print(`Vitrine worker: ${container.workers.names('worker').join(', ')} (database ${container.storage.description})`);
  await container.workers.start('worker', {}, onWorkerError);
  closeWithGrace({ delay: 15_000 }, async ({ err, signal }) => {
    if (err) log.error({ err }, 'shutting down after an error');
    else log.info({ signal }, 'shutting down');
    await container.close();
  });
  return container;
}
