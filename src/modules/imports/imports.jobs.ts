import type { WorkerRegistry } from '../../jobs/workers.js';
import type { ImportsService } from './imports.service.js';

/** `imports.run`: runs queued catalog imports (uploaded or fetched files). */
export function registerImportsJobs(workers: WorkerRegistry, deps: { imports: ImportsService }) {
  workers.register(deps.imports.worker);
}
