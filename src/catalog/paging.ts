import { Type, type TInteger } from '@sinclair/typebox';

/**
 * Paging bounds of every listing (CONTRACT §4), and the one schema that writes them. A route's
 * `offset`/`limit` come from here, so a bound changed here changes the validation, the 422 message
 * and /openapi.json together.
 */
export interface PagingBounds {
  readonly maxLimit: number;
  readonly defaultLimit: number;
  /** The deepest offset served; ranked results past it are not worth computing. */
  readonly maxOffset: number;
}

/** The largest offset a database takes as a 32-bit integer. */
export const MAX_OFFSET = 2_147_483_647;

/** Ranked results: text search, search by photo, similar products. */
export const RANKED_PAGING: PagingBounds = { maxLimit: 100, defaultLimit: 20, maxOffset: 10_000 };
/** Stored listings: products by status, failures, collections and their members. */
export const LISTING_PAGING: PagingBounds = { maxLimit: 1000, defaultLimit: 100, maxOffset: MAX_OFFSET };
/** Asset listings page by parent_code group. */
export const ASSET_GROUP_PAGING: PagingBounds = { maxLimit: 50, defaultLimit: 50, maxOffset: MAX_OFFSET };

/** A `limit` query parameter alone (pages without an offset: deliveries, previews, complete the look). */
export function PageLimit(maxLimit: number, defaultLimit: number, description?: string): TInteger {
  return Type.Integer({
    minimum: 1,
    maximum: maxLimit,
    default: defaultLimit,
    ...(description ? { description } : {}),
  });
}

/** `offset` and `limit` query parameters within `bounds`; spread into a query schema. */
export function Paging(
  bounds: PagingBounds,
  descriptions: { offset?: string; limit?: string } = {},
): { offset: TInteger; limit: TInteger } {
  return {
    offset: Type.Integer({
      minimum: 0,
      maximum: bounds.maxOffset,
      default: 0,
      ...(descriptions.offset ? { description: descriptions.offset } : {}),
    }),
    limit: PageLimit(bounds.maxLimit, bounds.defaultLimit, descriptions.limit),
  };
}
