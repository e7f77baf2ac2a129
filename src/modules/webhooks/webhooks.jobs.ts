import type { WorkerRegistry } from '../../jobs/workers.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';

/** `webhooks.deliver`: sends change events to webhook subscriptions (leases from the shared queue). */
export function registerWebhooksJobs(workers: WorkerRegistry, deps: { dispatcher: WebhookDispatcher }) {
  workers.register(deps.dispatcher);
}
