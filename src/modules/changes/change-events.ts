import type { Change, ChangeEntity } from '../../storage/change-feed.js';

/**
 * The public face of the change log: what `GET /v1/changes` and webhooks publish. Internal entries
 * (image embeddings, vocabulary re-readings that change no stored field) stay internal.
 */
export const PUBLIC_ENTITIES = ['product', 'asset', 'collection'] as const satisfies readonly ChangeEntity[];
export type PublicEntity = (typeof PUBLIC_ENTITIES)[number];

export const CHANGE_KINDS = ['created', 'updated', 'status_changed', 'deleted'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Every event type a webhook can subscribe to: `<entity>.<kind>`. */
export const EVENT_TYPES = [
  'product.created',
  'product.updated',
  'product.status_changed',
  'product.deleted',
  'asset.updated',
  'collection.created',
  'collection.updated',
  'collection.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface ChangeEvent {
  /** Stable across deliveries and replays: `<store_uuid>:<sequence>` (de-duplicate on it). */
  id: string;
  type: EventType;
  sequence: number;
  time: string;
  store_uuid: string;
  entity: PublicEntity;
  /** The product code (product; asset: the product whose asset links changed) or collection id. */
  code: string;
  kind: ChangeKind;
  /** The entity's status after the change (null when deleted, and for asset links). */
  status: string | null;
  /** Changed field names; asset: the sales channels whose links changed; null on entries older than the feed. */
  fields: string[] | null;
}

export function isPublic(change: Change): boolean {
  if (!(PUBLIC_ENTITIES as readonly string[]).includes(change.entity)) return false;
  // A product "update" that changed no stored field (a vocabulary override re-reading it) is internal.
  return !(change.entity === 'product' && change.op === 'updated' && change.fields?.length === 0);
}

export function kindOf(change: Change): ChangeKind {
  if (change.entity === 'product' && change.op === 'updated' && change.fields?.includes('Status'))
    return 'status_changed';
  return change.op;
}

/** The public event of a change-log entry (call isPublic first). */
export function toEvent(storeUuid: string, change: Change): ChangeEvent {
  const entity = change.entity as PublicEntity;
  const kind = kindOf(change);
  return {
    id: `${storeUuid}:${change.seq}`,
    type: `${entity}.${kind}` as EventType,
    sequence: change.seq,
    time: change.createdAt,
    store_uuid: storeUuid,
    entity,
    code: change.key,
    kind,
    status: change.status,
    fields: change.fields ?? null,
  };
}
