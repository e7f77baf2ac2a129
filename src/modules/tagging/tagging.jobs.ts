import type { WorkerRegistry } from '../../jobs/workers.js';
import type { TaggingService } from './tagging.service.js';

/** `tagging.auto_apply`: writes confident suggestions to the fields products lack, where a store turned it on. */
export function registerTaggingJobs(workers: WorkerRegistry, deps: { tagging: TaggingService }) {
  workers.register(deps.tagging.autoApplier);
}
