/**
 * The canonical product fields (CONTRACT §2, §6): the one list every module reads, so the mapping
 * profile, input checks, quality checks, search documents and image indexing cannot drift apart.
 */
export const IMAGE_FIELDS = [
  'Image URL 1',
  'Image URL 2',
  'Image URL 3',
  'Image URL 4',
  'Image URL 5',
  'Image URL 6',
] as const;

/** The seed's fields. */
export const SEED_PRODUCT_FIELDS = [
  'product_code',
  'parent_code',
  'Product Name',
  'Department',
  'Category',
  'Selling Price',
  'Currency',
  ...IMAGE_FIELDS,
  'Status',
] as const;

/** The well-known optional attributes of CONTRACT §6. */
export const WELL_KNOWN_ATTRIBUTES = ['Colour', 'Brand', 'Season', 'Usage', 'Sub Category'] as const;

/** Every canonical field: the identity mapping profile of a new store. */
export const CANONICAL_FIELDS = [...SEED_PRODUCT_FIELDS, ...WELL_KNOWN_ATTRIBUTES] as const;

/** Canonical fields that hold text: a number given for one is stored as its decimal text (Status is checked apart). */
export const TEXT_FIELDS: ReadonlySet<string> = new Set(CANONICAL_FIELDS.filter((field) => field !== 'Status'));

/** Fields that are identifiers, money or links rather than words a shopper types. */
export const NON_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'product_code',
  'parent_code',
  'Selling Price',
  'Currency',
  'Status',
  ...IMAGE_FIELDS,
]);

/** A field's value as text: strings as they are, numbers in decimal, anything else empty. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** The first non-empty `Image URL n` of a product, or ''. */
export function firstImageUrl(attributes: Record<string, unknown>): string {
  for (const field of IMAGE_FIELDS) {
    const url = textOf(attributes[field]).trim();
    if (url !== '') return url;
  }
  return '';
}
