import { IMAGE_FIELDS, isBlank } from '../../catalog/product-fields.js';
import { isValidPrice } from '../../catalog/price.js';

/** The quality failure reasons of CONTRACT §6, exactly as written, in reporting order. */
export const QUALITY_REASONS = [
  'Missing SKU',
  'Missing price',
  'Invalid price',
  'Missing title and images',
  'Missing title',
  'Missing images',
  'Missing category',
] as const;
export type QualityReason = (typeof QUALITY_REASONS)[number];

export const MISSING_SKU: QualityReason = 'Missing SKU';

/** The checks that run on every stored product; an empty list means the product passes. */
export function qualityProblems(fields: Record<string, unknown>): QualityReason[] {
  const problems: QualityReason[] = [];
  const price = fields['Selling Price'];
  if (isBlank(price)) problems.push('Missing price');
  else if (typeof price !== 'string' || !isValidPrice(price)) problems.push('Invalid price');
  const noTitle = isBlank(fields['Product Name']);
  const noImages = IMAGE_FIELDS.every((name) => isBlank(fields[name]));
  // The title/images reasons are exclusive: neither gives only the combined reason.
  if (noTitle && noImages) problems.push('Missing title and images');
  else if (noTitle) problems.push('Missing title');
  else if (noImages) problems.push('Missing images');
  if (isBlank(fields.Category)) problems.push('Missing category');
  return problems;
}
