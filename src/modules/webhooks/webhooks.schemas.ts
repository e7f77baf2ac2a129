import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { EVENT_TYPES } from '../changes/change-events.js';
import { ChangeEventSchema } from '../changes/changes.schemas.js';
import { PageLimit } from '../../catalog/paging.js';

const EventTypeList = Type.Array(Type.String(), {
  maxItems: 50,
  description: `event types to deliver (default: all): ${EVENT_TYPES.join(', ')}`,
});

export const WebhookInputSchema = component(
  'WebhookInput',
  Type.Object(
    {
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'http(s) URL receiving the POSTs; loopback, private, link-local and metadata addresses are refused unless VITRINE_ALLOW_PRIVATE_FETCH=true',
      }),
      event_types: Type.Optional(EventTypeList),
    },
    { additionalProperties: false },
  ),
);

const SubscriptionFields = {
  id: Type.String({ description: '`wh_…`' }),
  store_uuid: Type.String(),
  url: Type.String(),
  event_types: Type.Array(Type.String()),
  state: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  cursor_sequence: Type.Integer({ description: 'the last sequence delivered (or rejected by the receiver)' }),
  replay: Type.Union([Type.Object({ after: Type.Integer(), upto: Type.Integer() }), Type.Null()], {
    description: 'a replay in progress: delivered up to `after`, ends at `upto`',
  }),
  attempts: Type.Integer({ description: 'failed attempts in a row' }),
  failing_since: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: Type.String(),
  last_success_at: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
};

export const WebhookSubscriptionSchema = component('WebhookSubscription', Type.Object(SubscriptionFields));

export const CreatedWebhookSchema = component(
  'CreatedWebhook',
  Type.Object({
    ...SubscriptionFields,
    secret: Type.String({
      description: 'the signing secret (`whsec_…`), shown only in this answer: keep it with the receiver',
    }),
  }),
);

export const WebhookDeliverySchema = component(
  'WebhookDelivery',
  Type.Object({
    id: Type.String(),
    first_sequence: Type.Integer(),
    last_sequence: Type.Integer(),
    events: Type.Integer(),
    replay: Type.Boolean(),
    attempt: Type.Integer(),
    outcome: Type.Union(
      ['delivered', 'failed', 'rejected', 'skipped', 'disabled'].map((outcome) => Type.Literal(outcome)),
      {
        description:
          'delivered (2xx); failed (will be retried); rejected (4xx other than 408/429: not retried); skipped (no longer retained); disabled (410)',
      },
    ),
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    duration_ms: Type.Integer(),
    at: Type.String(),
  }),
);

/** What a receiver gets: documented here so that clients can type their handler. */
export const WebhookPayloadSchema = component(
  'WebhookPayload',
  Type.Object(
    {
      delivery_id: Type.String({ description: 'this POST (a retry of the same events gets a new one)' }),
      store_uuid: Type.String(),
      replay: Type.Boolean({ description: 'true when the operator asked for these events again' }),
      events: Type.Array(ChangeEventSchema, {
        description: 'up to VITRINE_WEBHOOK_BATCH events (default 100) in sequence order; de-duplicate on `id`',
      }),
    },
    {
      description:
        'The JSON body of each webhook POST, signed with X-Vitrine-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>',
    },
  ),
);

export const WebhookParams = Type.Object({ store_uuid: Type.String(), webhook_id: Type.String() });

export const ReplayBody = Type.Object(
  {
    from: Type.Integer({ minimum: 1, description: 'first sequence to deliver again' }),
    to: Type.Optional(Type.Integer({ minimum: 1, description: 'last sequence (default: the latest)' })),
  },
  { additionalProperties: false },
);

export const DeliveriesQuery = Type.Object({
  limit: PageLimit(1000, 100),
});

export const RemovedWebhookSchema = Type.Object({ id: Type.String(), removed: Type.Literal(true) });
