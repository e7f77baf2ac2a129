import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

// Vitrine as deployed (`vitrine serve`), on DATABASE_URL, on a free port.
const { app } = await startServer(loadConfig(process.env, { port: 0 }), () => {});
const address = app.server.address();
process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : 0}\n`);
