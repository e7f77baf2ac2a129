import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import {
  formatLimit,
  MAX_EVENT_AGE_DAYS,
  MAX_EVENT_ID_LENGTH,
  MAX_EVENT_LEAD_MINUTES,
  MAX_EVENTS_BATCH,
} from '../../catalog/limits.js';
import { EVENT_TYPES } from './event-input.js';

const field = (description: string) => Type.Optional(Type.Unknown({ description }));

/** Items are checked one by one (each fault fails its item only), so the schema describes and does not refuse. */
export const EventsBody = Type.Array(
  component(
    'ShopperEvent',
    Type.Object(
      {
        event_id: field(
          `string (client-chosen, 1 to ${formatLimit(MAX_EVENT_ID_LENGTH)} characters): a retry with the same id counts once`,
        ),
        type: field(`string, one of ${EVENT_TYPES.join(', ')}`),
        product_code: field('string: the product (view, click, add_to_cart, purchase); must be in the catalog'),
        shopper_id: field("string: stored only as a keyed hash (the store's secret); erasable"),
        session_id: field('string'),
        query: field('string: the search that led here (search: required)'),
        hits: field('integer ≥ 0: results the search showed (search: required)'),
        position: field('integer ≥ 1: the result position clicked'),
        quantity: field('integer ≥ 1'),
        price: field('number ≥ 0'),
        time: field(
          `ISO 8601 date-time (default: now); more than ${MAX_EVENT_AGE_DAYS} days ago: too_old; more than ${MAX_EVENT_LEAD_MINUTES} minutes ahead: in_the_future`,
        ),
      },
      { additionalProperties: true },
    ),
  ),
  { description: `a batch of shopper events (at most ${formatLimit(MAX_EVENTS_BATCH)}; more: 413)` },
);

export const EventsResult = component(
  'EventsResult',
  Type.Object({
    accepted: Type.Integer(),
    duplicate: Type.Integer({ description: 'events whose event_id the store already had (retries)' }),
    rejected: Type.Integer(),
    error_info: Type.Array(
      Type.Object({
        index: Type.Integer(),
        event_id: Type.String(),
        reason: Type.String({
          description:
            'invalid_event, invalid_event_id, invalid_type, invalid_time, too_old, in_the_future, invalid_field, missing_query, missing_product, unknown_product',
        }),
        details: Type.String(),
      }),
    ),
  }),
);

const QueryCount = Type.Object({ query: Type.String(), searches: Type.Integer() });
export const SearchAnalyticsSchema = component(
  'SearchAnalytics',
  Type.Object({
    from: Type.String(),
    to: Type.String(),
    top_queries: Type.Array(
      Type.Object({
        query: Type.String({ description: 'folded case and spaces' }),
        searches: Type.Integer(),
        clicks: Type.Integer({ description: 'click events naming the query' }),
        click_through: Type.Number({
          description:
            'searches followed by a click: the sessions (else shoppers) that clicked a result of the query, over its searches; 0 to 1',
        }),
        conversions: Type.Integer({ description: 'add_to_cart and purchase events naming the query' }),
      }),
    ),
    zero_result_queries: Type.Array(QueryCount, { description: 'searches that showed no hit' }),
    unclicked_queries: Type.Array(QueryCount, {
      description: 'queries searched at least 3 times with hits and never clicked',
    }),
  }),
);

export const ProductAnalyticsSchema = component(
  'ProductAnalytics',
  Type.Object({
    from: Type.String(),
    to: Type.String(),
    trending: Type.Array(Type.Object({ product_code: Type.String(), trend: Type.Number() }), {
      description: 'the trend score now (the trending sort)',
    }),
    viewed_not_bought: Type.Array(
      Type.Object({
        product_code: Type.String(),
        views: Type.Integer(),
        clicks: Type.Integer(),
        carts: Type.Integer(),
      }),
    ),
  }),
);
