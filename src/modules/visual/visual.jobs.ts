import type { WorkerRegistry } from '../../jobs/workers.js';
import type { ImageCatalog } from './image-catalog.js';
import type { ImageWorker } from './image-worker.js';

/**
 * `visual.catalog` follows the change log into the image references and queues new images;
 * `visual.embed` fetches and embeds them, woken at once when this process queued some.
 */
export function registerVisualJobs(workers: WorkerRegistry, deps: { catalog: ImageCatalog; embedder: ImageWorker }) {
  workers.register(deps.catalog.follower);
  workers.register(deps.embedder);
  deps.catalog.onQueued(() => workers.wake(deps.embedder.name));
}
