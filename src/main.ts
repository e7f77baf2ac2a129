import { loadConfig } from './config.js';
import { startServer } from './server.js';

// `npm start`: serve the API with configuration from the environment (CONTRACT §1).
try {
  await startServer(loadConfig());
} catch (error) {
  process.stderr.write(`vitrine: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
