import type { WorkerRegistry } from '../../jobs/workers.js';
import type { SearchIndexer } from './search-indexer.js';

/** `search.index`: follows the change log into the store's text index and typo vocabulary. */
export function registerSearchJobs(workers: WorkerRegistry, deps: { indexer: SearchIndexer }) {
  workers.register(deps.indexer.follower);
}
