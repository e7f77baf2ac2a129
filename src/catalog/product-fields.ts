/**
 * The canonical product fields (CONTRACT §2, §6): the one list every module reads, so the mapping
 * profile, input checks, quality checks, search documents and image indexing cannot drift apart.
 *
 * A product's images are `Image URL 1` … `Image URL 6` (catalog-api.md lists six). Any other name,
 * `Image URL 7` included, is an ordinary attribute: it is neither checked as an image, nor indexed
 * for search by photo, nor shown as the product's picture.
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

const IMAGE_FIELD_SET: ReadonlySet<string> = new Set(IMAGE_FIELDS);

/** Whether `name` is one of the product's image fields (exact name, as the spec writes it). */
export function isImageField(name: string): boolean {
  return IMAGE_FIELD_SET.has(name);
}

/**
 * Blank as every rule reads it (quality checks, required fields, a missing product_code): absent,
 * null, or a string of white space only. A number, 0 included, is a value.
 */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A product's non-blank image fields, in field order, as `[field, url]` with the URL trimmed. */
export function productImageUrls(attributes: Record<string, unknown>): Array<[field: string, url: string]> {
  const images: Array<[string, string]> = [];
  for (const field of IMAGE_FIELDS) {
    const value = attributes[field];
    if (typeof value === 'string' && value.trim() !== '') images.push([field, value.trim()]);
  }
  return images;
}

/**
 * Whether an attribute holds words a shopper types (what text search indexes beside the title and
 * category): a string that is not an identifier, money, image field or status, and not a link.
 */
export function isShopperText(name: string, value: unknown): value is string {
  return typeof value === 'string' && !NON_TEXT_FIELDS.has(name) && !/^https?:\/\//i.test(value);
}

/** A field's value as text: strings as they are, numbers in decimal, anything else empty. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** The first non-empty `Image URL n` of a product, or ''. */
export function firstImageUrl(attributes: Record<string, unknown>): string {
  return productImageUrls(attributes)[0]?.[1] ?? '';
}
