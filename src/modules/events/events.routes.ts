import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../../http/envelope.js';
import { Envelope, standardErrors } from '../../http/schemas.js';
import type { EventsService } from './events.service.js';
import { clientIp } from '../../http/store-forwarding.js';
import { EventsBody, EventsResult, ProductAnalyticsSchema, SearchAnalyticsSchema } from './events.schemas.js';
import type { Store } from '../stores/store.js';
import { formatLimit, MAX_EVENTS_BATCH } from '../../catalog/limits.js';

export const eventsRoutes: FastifyPluginAsyncTypebox<{ events: EventsService }> = async (app, { events }) => {
  app.post(
    '/events',
    {
      config: { storeScoped: true, shopper: true },
      schema: {
        operationId: 'trackEvents',
        tags: ['signals'],
        summary: 'Record shopper events: views, clicks, add to cart, purchases, searches',
        description: `A batch of at most ${formatLimit(MAX_EVENTS_BATCH)} events (more: 413). Each is checked alone: a fault fails that event (error_info names its index, event_id and reason) and the others are stored. An event_id the store already has counts as a duplicate, so a retried batch counts once. shopper_id is stored only as a keyed hash; DELETE /admin/v1/stores/{store_uuid}/shoppers/{shopper_id} erases a shopper. Product events are folded into per-product, per-day counters. Publishable keys allowed.`,
        querystring: Type.Object({ store_uuid: Type.String() }),
        body: EventsBody,
        response: { 200: Envelope(EventsResult), ...standardErrors(413) },
      },
    },
    async (request) => ok(request, await events.record(request.store, request.body, clientIp(request))),
  );
};

export const eventsAdminRoutes: FastifyPluginAsyncTypebox<{
  events: EventsService;
  storeOf: (storeUuid: string) => Promise<Store>;
}> = async (app, { events, storeOf }) => {
  app.delete(
    '/stores/:store_uuid/shoppers/:shopper_id',
    {
      schema: {
        operationId: 'adminEraseShopper',
        tags: ['admin'],
        summary: "Erase a shopper (right to erasure): their events and what they added to the store's signals",
        params: Type.Object({ store_uuid: Type.String(), shopper_id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Envelope(Type.Object({ erased_events: Type.Integer() })), ...standardErrors() },
      },
    },
    async (request) =>
      ok(request, await events.eraseShopper(await storeOf(request.params.store_uuid), request.params.shopper_id)),
  );

  const period = Type.Object({
    from: Type.Optional(Type.String({ description: 'first day (YYYY-MM-DD), default 6 days before to' })),
    to: Type.Optional(Type.String({ description: 'last day (YYYY-MM-DD), default today' })),
  });
  const storeParams = Type.Object({ store_uuid: Type.String() });
  app.get(
    '/stores/:store_uuid/analytics/search',
    {
      schema: {
        operationId: 'adminSearchAnalytics',
        tags: ['admin'],
        summary:
          'What shoppers search for: top queries (searches, clicks, click-through, conversions), queries that found nothing, queries whose results nobody clicks',
        params: storeParams,
        querystring: period,
        response: { 200: Envelope(SearchAnalyticsSchema), ...standardErrors() },
      },
    },
    async (request) =>
      ok(
        request,
        await events.searchAnalytics(await storeOf(request.params.store_uuid), request.query.from, request.query.to),
      ),
  );
  app.get(
    '/stores/:store_uuid/analytics/products',
    {
      schema: {
        operationId: 'adminProductAnalytics',
        tags: ['admin'],
        summary: 'Trending products now, and the products most viewed over the period that nobody bought',
        params: storeParams,
        querystring: period,
        response: { 200: Envelope(ProductAnalyticsSchema), ...standardErrors() },
      },
    },
    async (request) =>
      ok(
        request,
        await events.productAnalytics(await storeOf(request.params.store_uuid), request.query.from, request.query.to),
      ),
  );
};
