/** Product statuses (CONTRACT §6). */
export const PRODUCT_STATUSES = ['new', 'active', 'problem', 'inactive', 'draft', 'under review'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/** `problem` is set only by the quality checks, never by a caller. */
export const SETTABLE_STATUSES: readonly ProductStatus[] = ['new', 'active', 'inactive', 'draft', 'under review'];

/** Statuses shown to shoppers: search, search by photo, collections and complete the look. */
export const VISIBLE_STATUSES: readonly ProductStatus[] = ['new', 'active'];

export function isVisibleStatus(status: string | null | undefined): boolean {
  return status === 'new' || status === 'active';
}
