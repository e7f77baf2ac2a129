import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

// Vitrine as deployed (`vitrine serve`), on DATABASE_URL, on a free port.
const { app, container } = await startServer(loadConfig(process.env, { port: 0 }), () => {});
// API only (VITRINE_BENCH_NO_WORKERS): a benchmark of a read path on a freshly loaded catalog does not
// want the change followers indexing it meanwhile.
if (process.env.VITRINE_BENCH_NO_WORKERS === '1') await container.workers.stop();
const address = app.server.address();
process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : 0}\n`);
