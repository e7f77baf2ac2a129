import type { WorkerRegistry } from '../../jobs/workers.js';
import type { ComplementsService } from './complements.service.js';

/** `complements.warm`: keeps this process's complete-the-look indexes of moving stores warm. */
export function registerComplementsJobs(workers: WorkerRegistry, deps: { complements: ComplementsService }) {
  workers.register(deps.complements.worker);
}
