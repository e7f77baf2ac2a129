import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import { StoreUuidParams } from '../stores/stores.schemas.js';
import type { WebhooksService } from './webhooks.service.js';
import {
  CreatedWebhookSchema,
  DeliveriesQuery,
  RemovedWebhookSchema,
  ReplayBody,
  WebhookDeliverySchema,
  WebhookInputSchema,
  WebhookParams,
  WebhookSubscriptionSchema,
} from './webhooks.schemas.js';

const tags = ['admin', 'webhooks'];

/** Webhook subscriptions of a store (the operator API; `vitrine webhook …` does the same). */
export const webhooksAdminRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (
  app,
  { webhooks },
) => {
  app.post(
    '/stores/:store_uuid/webhooks',
    {
      schema: {
        operationId: 'adminCreateWebhook',
        tags,
        summary: "Subscribe a URL to the store's catalog events (the secret is shown once)",
        description:
          'Events from now on are POSTed as a WebhookPayload, signed with X-Vitrine-Signature. Delivery is at least once, in sequence order; failures are retried with exponential backoff and jitter for 24 h (VITRINE_WEBHOOK_GIVE_UP_HOURS), then the subscription is disabled; a 410 disables it at once; other 4xx (but 408 and 429) are logged and not retried. Redirects are not followed.',
        params: StoreUuidParams,
        body: WebhookInputSchema,
        response: { 201: Envelope(CreatedWebhookSchema), ...standardErrors() },
      },
    },
    async (request, reply) =>
      reply.code(201).send(ok(request, await webhooks.create(request.params.store_uuid, request.body))),
  );

  app.get(
    '/stores/:store_uuid/webhooks',
    {
      schema: {
        operationId: 'adminListWebhooks',
        tags,
        summary: "A store's webhook subscriptions with their health",
        params: StoreUuidParams,
        response: { 200: Envelope(Type.Array(WebhookSubscriptionSchema)), ...standardErrors() },
      },
    },
    async (request) => ok(request, await webhooks.list(request.params.store_uuid)),
  );

  app.get(
    '/stores/:store_uuid/webhooks/:webhook_id',
    {
      schema: {
        operationId: 'adminGetWebhook',
        tags,
        summary: 'One webhook subscription',
        params: WebhookParams,
        response: { 200: Envelope(WebhookSubscriptionSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await webhooks.get(request.params.webhook_id, request.params.store_uuid)),
  );

  app.delete(
    '/stores/:store_uuid/webhooks/:webhook_id',
    {
      schema: {
        operationId: 'adminRemoveWebhook',
        tags,
        summary: 'Remove a webhook subscription and its delivery log',
        params: WebhookParams,
        response: { 200: Envelope(RemovedWebhookSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await webhooks.remove(request.params.webhook_id, request.params.store_uuid)),
  );

  app.get(
    '/stores/:store_uuid/webhooks/:webhook_id/deliveries',
    {
      schema: {
        operationId: 'adminListWebhookDeliveries',
        tags,
        summary: 'The delivery log of a subscription, newest first (the last 1,000 are kept)',
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: Envelope(Type.Array(WebhookDeliverySchema)), ...standardErrors() },
      },
    },
    async (request) =>
      ok(request, await webhooks.deliveries(request.params.webhook_id, request.query.limit, request.params.store_uuid)),
  );

  app.post(
    '/stores/:store_uuid/webhooks/:webhook_id/replay',
    {
      schema: {
        operationId: 'adminReplayWebhook',
        tags,
        summary: 'Deliver a retained range of sequences again (flagged replay: true)',
        params: WebhookParams,
        body: ReplayBody,
        response: { 200: Envelope(WebhookSubscriptionSchema), ...standardErrors() },
      },
    },
    async (request) =>
      ok(request, await webhooks.replay(request.params.webhook_id, request.body, request.params.store_uuid)),
  );

  app.post(
    '/stores/:store_uuid/webhooks/:webhook_id/enable',
    {
      schema: {
        operationId: 'adminEnableWebhook',
        tags,
        summary: 'Re-enable a disabled subscription: it resumes from its cursor at once',
        params: WebhookParams,
        response: { 200: Envelope(WebhookSubscriptionSchema), ...standardErrors() },
      },
    },
    async (request) => ok(request, await webhooks.enable(request.params.webhook_id, request.params.store_uuid)),
  );
};
