import {
  formatLimit,
  MAX_EVENT_AGE_DAYS,
  MAX_EVENT_ID_LENGTH,
  MAX_EVENT_LEAD_MINUTES,
  MAX_PRODUCT_CODE_LENGTH,
} from '../../catalog/limits.js';

/** What a shopper did: the product events (signals read them) and a search. */
export const PRODUCT_EVENT_TYPES = ['view', 'click', 'add_to_cart', 'purchase'] as const;
export const EVENT_TYPES = [...PRODUCT_EVENT_TYPES, 'search'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One event as checked: what is stored (the shopper id still clear; the service hashes it). */
export interface EventInput {
  index: number;
  eventId: string;
  type: EventType;
  productCode: string | null;
  shopperId: string | null;
  sessionId: string | null;
  query: string | null;
  hits: number | null;
  position: number | null;
  quantity: number | null;
  price: number | null;
  occurredAt: Date;
}

export interface EventFailure {
  index: number;
  event_id: string;
  reason: string;
  details: string;
}

const MAX_ID_LENGTH = MAX_EVENT_ID_LENGTH;
const MAX_EVENT_QUERY_LENGTH = 1000;

const text = (value: unknown, max: number): string | null | undefined =>
  value === undefined || value === null
    ? null
    : typeof value === 'string' && value.trim() !== '' && value.length <= max
      ? value.trim()
      : undefined;
const count = (value: unknown, min: number): number | null | undefined =>
  value === undefined || value === null
    ? null
    : Number.isInteger(value) && (value as number) >= min
      ? (value as number)
      : undefined;

/**
 * Checks one event of a batch, alone (whether its product exists is the service's): every fault
 * fails this item with a stable reason and the others go on.
 */
export function checkEvent(
  raw: unknown,
  index: number,
  now: Date,
): { ok: true; event: EventInput } | { ok: false; failure: EventFailure } {
  const item = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const eventId = text(item.event_id, MAX_ID_LENGTH);
  const fail = (reason: string, details: string) => ({
    ok: false as const,
    failure: {
      index,
      event_id: typeof item.event_id === 'string' ? item.event_id.slice(0, MAX_ID_LENGTH) : '',
      reason,
      details,
    },
  });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return fail('invalid_event', 'an event must be an object');
  if (!eventId)
    return fail(
      'invalid_event_id',
      `event_id must be a non-empty string of at most ${formatLimit(MAX_ID_LENGTH)} characters`,
    );
  if (typeof item.type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(item.type))
    return fail('invalid_type', `type must be one of ${EVENT_TYPES.join(', ')}; got ${JSON.stringify(item.type)}`);
  const type = item.type as EventType;
  let occurredAt = now;
  if (item.time !== undefined && item.time !== null) {
    const parsed = typeof item.time === 'string' ? new Date(item.time) : new Date(Number.NaN);
    if (Number.isNaN(parsed.getTime())) return fail('invalid_time', 'time must be an ISO 8601 date-time');
    if (now.getTime() - parsed.getTime() > MAX_EVENT_AGE_DAYS * 86_400_000)
      return fail('too_old', `time is more than ${MAX_EVENT_AGE_DAYS} days ago`);
    if (parsed.getTime() - now.getTime() > MAX_EVENT_LEAD_MINUTES * 60_000)
      return fail('in_the_future', `time is more than ${MAX_EVENT_LEAD_MINUTES} minutes ahead of the server's clock`);
    occurredAt = parsed;
  }
  const shopperId = text(item.shopper_id, MAX_ID_LENGTH);
  const sessionId = text(item.session_id, MAX_ID_LENGTH);
  if (shopperId === undefined)
    return fail(
      'invalid_field',
      `shopper_id must be a non-empty string of at most ${formatLimit(MAX_ID_LENGTH)} characters`,
    );
  if (sessionId === undefined)
    return fail(
      'invalid_field',
      `session_id must be a non-empty string of at most ${formatLimit(MAX_ID_LENGTH)} characters`,
    );
  const query = text(item.query, MAX_EVENT_QUERY_LENGTH);
  if (query === undefined)
    return fail(
      'invalid_field',
      `query must be a non-empty string of at most ${formatLimit(MAX_EVENT_QUERY_LENGTH)} characters`,
    );
  const common = { index, eventId, type, shopperId, sessionId, query, occurredAt };
  if (type === 'search') {
    const hits = count(item.hits, 0);
    if (!query) return fail('missing_query', 'a search event names its query');
    if (hits === null || hits === undefined)
      return fail('invalid_field', 'hits (the number of results shown) must be an integer, 0 or more');
    return { ok: true, event: { ...common, productCode: null, hits, position: null, quantity: null, price: null } };
  }
  const productCode = text(item.product_code, MAX_PRODUCT_CODE_LENGTH);
  if (!productCode) return fail('missing_product', `a ${type} event names its product_code`);
  const position = count(item.position, 1);
  const quantity = count(item.quantity, 1);
  if (position === undefined)
    return fail('invalid_field', 'position must be an integer, 1 or more (1 = the first result)');
  if (quantity === undefined) return fail('invalid_field', 'quantity must be an integer, 1 or more');
  const price = item.price === undefined || item.price === null ? null : item.price;
  if (price !== null && (typeof price !== 'number' || !Number.isFinite(price) || price < 0))
    return fail('invalid_field', 'price must be a number, 0 or more');
  return { ok: true, event: { ...common, productCode, hits: null, position, quantity, price } };
}
