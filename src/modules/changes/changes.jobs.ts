import type { WorkerRegistry } from '../../jobs/workers.js';
import type { ChangesService } from './changes.service.js';

/** `changes.prune`: prunes the change log past its retention (never what a follower has not read). */
export function registerChangesJobs(workers: WorkerRegistry, deps: { changes: ChangesService }) {
  workers.register(deps.changes.pruner);
}
