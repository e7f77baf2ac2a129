/** Product statuses (CONTRACT §6). */
export const PRODUCT_STATUSES = ['new', 'active', 'problem', 'inactive', 'draft', 'under review'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/** `problem` is set only by the quality checks, never by a caller. */
export const SETTABLE_STATUSES: readonly ProductStatus[] = ['new', 'active', 'inactive', 'draft', 'under review'];

/**
 * Statuses shown to shoppers: search, search by photo, collections and complete the look. The same
 * two are the ones a failing quality check turns into `problem` (resolveStatus).
 */
export const VISIBLE_STATUSES: readonly ProductStatus[] = ['new', 'active'];
const VISIBLE: ReadonlySet<string> = new Set(VISIBLE_STATUSES);

export function isVisibleStatus(status: string | null | undefined): boolean {
  return status != null && VISIBLE.has(status);
}

/**
 * The status after a write (CONTRACT §6). `problem` replaces only new and active; a fixed problem
 * product returns to new; asking for active while failing the checks fails the item.
 */
export function resolveStatus(input: {
  existing?: ProductStatus;
  requested?: ProductStatus;
  problems: readonly string[];
}): { status: ProductStatus } | { failure: 'quality_check_failed' } {
  const { existing, requested, problems } = input;
  const base: ProductStatus = requested ?? (existing === undefined || existing === 'problem' ? 'new' : existing);
  if (problems.length === 0) return { status: base };
  if (requested === 'active') return { failure: 'quality_check_failed' };
  return { status: isVisibleStatus(base) ? 'problem' : base };
}
