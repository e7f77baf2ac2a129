import { labelKey } from './vocabulary/labels.js';
import { attributeValue } from './filters.js';

/**
 * Product families and variants (issue 40): products sharing a `parent_code`, and the product whose
 * code that is, form a family. A storefront shows one card per family and Colour (`colour`, the
 * fashion norm), per family (`parent`) or per SKU (`false`).
 */
export const GROUP_VARIANTS = ['colour', 'parent', 'false'] as const;
export type GroupVariants = (typeof GROUP_VARIANTS)[number];

/** The family a product belongs to: its parent_code, else its own code. */
export function familyOf(code: string, parentCode: string | null | undefined): string {
  const parent = typeof parentCode === 'string' ? parentCode.trim() : '';
  return parent === '' ? code : parent;
}

/** The colour a card groups by: the Colour label's key ("Off-White" = "off white"), '' when none. */
export function colourKeyOf(attributes: Record<string, unknown>): string {
  const colour = attributeValue(attributes, 'Colour');
  return typeof colour === 'string' || typeof colour === 'number' ? labelKey(String(colour)) : '';
}

/**
 * Stock: an integer; absent (or empty) means in stock, as most catalogs without inventory data are
 * sold as available. Zero or less is out of stock.
 */
export function isInStock(attributes: Record<string, unknown>): boolean {
  const stock = attributeValue(attributes, 'Stock');
  if (stock === undefined || stock === null || (typeof stock === 'string' && stock.trim() === '')) return true;
  const n = typeof stock === 'number' ? stock : typeof stock === 'string' ? Number(stock.trim()) : Number.NaN;
  return !Number.isFinite(n) || n > 0;
}

/** Whether a Stock value is acceptable on a product: absent, empty, or an integer. */
export function isValidStock(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'number') return Number.isInteger(value);
  return typeof value === 'string' && /^\s*-?\d+\s*$|^\s*$/.test(value);
}

/** A product's Size as written (trimmed), '' when none. */
export function sizeOf(attributes: Record<string, unknown>): string {
  const size = attributeValue(attributes, 'Size');
  return typeof size === 'string' || typeof size === 'number' ? String(size).trim() : '';
}

// Letter sizes in chart order; a size not in it sorts by its number, else after them as written.
const LETTER_SIZES = [
  'xxxs',
  '3xs',
  'xxs',
  '2xs',
  'xs',
  's',
  'm',
  'l',
  'xl',
  'xxl',
  '2xl',
  'xxxl',
  '3xl',
  '4xl',
  '5xl',
];
const LETTER_RANK = new Map(LETTER_SIZES.map((size, i) => [size, i] as const));

/**
 * Sizes in the order a size chart lists them: letter sizes (XXS … 5XL), then numeric sizes
 * ascending (36, 38, 40; 7.5), then the rest ("One Size", "EU 38/40") in the order given.
 */
export function sortSizes(sizes: Iterable<string>): string[] {
  const unique = [...new Map([...sizes].map((s) => [s.toLowerCase(), s] as const)).values()];
  const rank = (size: string): [number, number] => {
    const letter = LETTER_RANK.get(size.toLowerCase().replace(/\s+/g, ''));
    if (letter !== undefined) return [0, letter];
    const number = /^\d+(\.\d+)?$/.test(size) ? Number(size) : undefined;
    return number !== undefined ? [1, number] : [2, 0];
  };
  return unique
    .map((size, index) => ({ size, index, rank: rank(size) }))
    .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index)
    .map(({ size }) => size);
}
