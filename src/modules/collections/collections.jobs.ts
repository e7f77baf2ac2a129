import type { WorkerRegistry } from '../../jobs/workers.js';
import type { CollectionsService } from './collections.service.js';

/** `collections.refresh`: follows product changes into live rule collections' members. */
export function registerCollectionsJobs(workers: WorkerRegistry, deps: { collections: CollectionsService }) {
  workers.register(deps.collections.follower);
}
