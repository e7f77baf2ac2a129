import { Type } from '@sinclair/typebox';
import { component } from '../../http/components.js';
import { CHANGE_KINDS, EVENT_TYPES, PUBLIC_ENTITIES } from './change-events.js';
import { PageLimit } from '../../catalog/paging.js';
import { MAX_CHANGES_PAGE } from '../../catalog/limits.js';

export const ChangeEventSchema = component(
  'ChangeEvent',
  Type.Object(
    {
      id: Type.String({ description: 'event id, stable across deliveries and replays: `<store_uuid>:<sequence>`' }),
      type: Type.Union(
        EVENT_TYPES.map((type) => Type.Literal(type)),
        { description: '`<entity>.<kind>`' },
      ),
      sequence: Type.Integer({ description: "the change's place in the store's log (strictly increasing)" }),
      time: Type.String({ format: 'date-time', description: 'when the change was committed' }),
      store_uuid: Type.String(),
      entity: Type.Union(PUBLIC_ENTITIES.map((entity) => Type.Literal(entity))),
      code: Type.String({
        description: 'product code (product; asset: the product whose asset links changed) or collection id',
      }),
      kind: Type.Union(CHANGE_KINDS.map((kind) => Type.Literal(kind))),
      status: Type.Union([Type.String(), Type.Null()], {
        description: "the entity's status after the change; null when deleted and for asset links",
      }),
      fields: Type.Union([Type.Array(Type.String()), Type.Null()], {
        description:
          'changed field names (Status among them when the status changed; every field of a new product); asset: the sales channels whose links changed',
      }),
    },
    { description: 'one catalog change, as GET /v1/changes lists it and webhooks deliver it' },
  ),
);

export const ChangesQuery = Type.Object({
  store_uuid: Type.String({ description: 'the store, from `vitrine store create`' }),
  after: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'the last sequence the caller has seen (0: from the oldest retained change)',
  }),
  limit: PageLimit(MAX_CHANGES_PAGE, 100),
});

export const ChangesPageSchema = component(
  'ChangesPage',
  Type.Object({
    changes: Type.Array(ChangeEventSchema),
    next_after: Type.Integer({ description: 'pass as `after` for the next page (the last sequence read)' }),
    latest_sequence: Type.Integer({ description: "the store's latest sequence when the page was read" }),
    oldest_sequence: Type.Integer({ description: 'the oldest sequence still retained' }),
    has_more: Type.Boolean(),
  }),
);

export const GoneErrorSchema = component(
  'CursorGone',
  Type.Object(
    {
      status: Type.Object({ code: Type.Literal(-1), message: Type.String(), request_id: Type.String() }),
      data: Type.Object({
        oldest_sequence: Type.Integer({ description: 'resume from `after = oldest_sequence - 1`' }),
      }),
    },
    { description: 'the cursor is older than the retention: changes after it were pruned' },
  ),
);
