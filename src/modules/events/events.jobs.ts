import type { WorkerRegistry } from '../../jobs/workers.js';
import type { EventsService } from './events.service.js';

/** `events.prune`: drops shopper events and daily counters past VITRINE_EVENT_RETENTION_DAYS. */
export function registerEventsJobs(workers: WorkerRegistry, deps: { events: EventsService }) {
  workers.register(deps.events.pruner);
}
