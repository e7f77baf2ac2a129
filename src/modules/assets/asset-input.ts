import { randomBytes } from 'node:crypto';
import {
  MAX_ASSET_NAME_LENGTH,
  MAX_PRODUCT_CODE_LENGTH as MAX_CODE_LENGTH,
  MAX_URL_LENGTH,
} from '../../catalog/limits.js';
import type { ChangeEntry } from '../../storage/change-feed.js';
import { NotFoundError } from '../../errors.js';
import type { Store } from '../stores/store.js';
import type { StoresService } from '../stores/stores.service.js';

// The per-item checks of the asset operations (CONTRACT §7): each failing item becomes an
// `error_info` entry naming its reason; the others go on.

export interface AssetFailure {
  index: number;
  parent_code: string;
  reason: string;
  details: string;
  name?: string;
  asset_id?: string;
}

export function newAssetId(): string {
  return `as_${randomBytes(12).toString('base64url')}`;
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A parent_code as given: a non-empty string within the product code limit, or a finite number as its text. */
export function codeOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '' && value.length <= MAX_CODE_LENGTH) return value;
  return undefined;
}

/** A given value as an error message quotes it. */
export const describe = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value).slice(0, 80));

/**
 * The store and channel an unlink or delete item names (store_uuid of the caller's workspace, a
 * channel of that store), or why it names none: the checks both operations make first.
 */
export async function resolveItemTarget(
  item: Record<string, unknown>,
  resolveStore: (value: unknown) => Promise<Store | undefined>,
  channelOf: (store: Store, requested: unknown) => string | undefined,
): Promise<{ store: Store; channel: string } | { reason: string; details: string }> {
  const store = await resolveStore(item.store_uuid);
  if (!store) return { reason: 'store_not_found', details: 'store not found' };
  const channel = channelOf(store, item.channel);
  if (channel === undefined)
    return {
      reason: 'unknown_channel',
      details: `channel ${describe(item.channel)} is not one of the store's channels`,
    };
  return { store, channel };
}

/** Why one `name -> url` of an item's assets cannot be linked, or undefined when it can. */
export function linkProblem(name: string, url: unknown): { reason: string; details: string } | undefined {
  if (name.trim() === '' || name.length > MAX_ASSET_NAME_LENGTH)
    return { reason: 'invalid_name', details: `asset names must be 1-${MAX_ASSET_NAME_LENGTH} characters` };
  if (!isHttpUrl(url))
    return {
      reason: 'invalid_url',
      details: `${name} must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters`,
    };
  return undefined;
}

/** One change per product whose asset links changed; its `fields` are the sales channels touched. */
export function channelsByParent(groups: Array<{ parent_code: string; channel: string }>): ChangeEntry[] {
  const channels = new Map<string, Set<string>>();
  for (const group of groups) {
    const set = channels.get(group.parent_code) ?? new Set<string>();
    set.add(group.channel);
    channels.set(group.parent_code, set);
  }
  return [...channels].map(([key, set]) => ({
    entity: 'asset',
    key,
    op: 'updated',
    status: null,
    fields: [...set].sort(),
  }));
}

/** Resolves each item's store_uuid within the caller's workspace once per request (unknown or foreign: undefined). */
export function storeResolver(stores: StoresService, workspaceId: string) {
  const cache = new Map<string, Promise<Store | undefined>>();
  return (value: unknown): Promise<Store | undefined> => {
    if (typeof value !== 'string' || value === '') return Promise.resolve(undefined);
    if (!cache.has(value))
      cache.set(
        value,
        stores.getStoreForWorkspace(workspaceId, value).catch((error) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        }),
      );
    return cache.get(value)!;
  };
}
