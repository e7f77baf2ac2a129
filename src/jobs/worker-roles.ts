/**
 * Which process runs each background worker: the one table `vitrine serve` and `vitrine worker`
 * read (README › Scaling out). Database work shared by every process (following the change log
 * into shared tables, queues, pruning) runs in one API process and in `vitrine worker` processes;
 * an API process's own in-memory indexes are kept warm in every API process.
 */

/**
 * `api`: `vitrine serve` (its first process when it runs several); `api-replica`: the other API
 * processes of a clustered `vitrine serve`; `worker`: `vitrine worker`.
 */
export type ProcessRole = 'api' | 'api-replica' | 'worker';

export interface WorkerPlacement {
  /** The module that declares it (`<module>.jobs.ts`). */
  readonly module: string;
  readonly roles: readonly ProcessRole[];
  /** `vitrine serve --no-worker` leaves it to `vitrine worker` processes. */
  readonly offloadable?: boolean;
}

export const WORKER_PLACEMENT: Readonly<Record<string, WorkerPlacement>> = {
  /** Follows the change log into the text index and its vocabulary. */
  'search.index': { module: 'search', roles: ['api'] },
  /** Follows product changes into rule collections' memberships. */
  'collections.refresh': { module: 'collections', roles: ['api'] },
  /** Keeps this process's complete-the-look indexes warm (in memory: every API process). */
  'complements.warm': { module: 'complements', roles: ['api', 'api-replica'] },
  /** Follows the change log into the image references and queues new images. */
  'visual.catalog': { module: 'visual', roles: ['api', 'worker'] },
  /** Fetches and embeds queued images (the CPU-heavy one). */
  'visual.embed': { module: 'visual', roles: ['api', 'worker'], offloadable: true },
  /** Runs queued catalog imports. */
  'imports.run': { module: 'imports', roles: ['api', 'worker'] },
  /** Delivers change events to webhook subscriptions. */
  'webhooks.deliver': { module: 'webhooks', roles: ['api', 'worker'] },
  /** Prunes the change log past its retention. */
  'changes.prune': { module: 'changes', roles: ['api'] },
  /** Fills missing type, colour and audience from photo suggestions above each store's thresholds. */
  'tagging.auto_apply': { module: 'tagging', roles: ['api', 'worker'] },
  /** Prunes shopper events and their daily counters past their retention. */
  'events.prune': { module: 'events', roles: ['api'] },
};

/** Whether a process of `role` runs the worker (`offload`: `vitrine serve --no-worker`). */
export function runsIn(placement: WorkerPlacement, role: ProcessRole, options: { offload?: boolean } = {}): boolean {
  if (!placement.roles.includes(role)) return false;
  return !(options.offload && role === 'api' && placement.offloadable);
}
