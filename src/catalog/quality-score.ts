import { attributeValue } from './filters.js';
import { priceOf } from './price.js';
import { IMAGE_FIELDS, isBlank } from './product-fields.js';
import { resolveAudience } from './vocabulary/audiences.js';
import { resolveColour } from './vocabulary/colours.js';

/**
 * A product's content quality, 0 to 1, from its own fields only (no events): what a shopper sees
 * before deciding. Parts (they sum to 1):
 *   images        0.25 × min(images, 4) / 4
 *   price         0.15 when it passes the price rule
 *   title         0.15 when it has at least two words
 *   description   0.15 when `Description` has at least 20 characters
 *   category      0.10 when present
 *   colour        0.10 when the catalog vocabulary resolves it to a colour family
 *   department    0.10 when the catalog vocabulary resolves it to an audience
 * Listed products have no open quality problem (a product with one is not visible), so that part of
 * quality is a condition of being listed at all.
 */
export function qualityScoreOf(attributes: Record<string, unknown>): number {
  const text = (name: string) => {
    const value = attributeValue(attributes, name);
    return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
  };
  const images = IMAGE_FIELDS.filter((field) => !isBlank(attributes[field])).length;
  let score = 0.25 * (Math.min(images, 4) / 4);
  if (priceOf(attributes['Selling Price']) !== null) score += 0.15;
  if (text('Product Name').split(/\s+/).filter(Boolean).length >= 2) score += 0.15;
  if (text('Description').length >= 20) score += 0.15;
  if (text('Category') !== '') score += 0.1;
  const colour = text('Colour');
  if (colour !== '' && resolveColour(colour).how !== 'unplaced') score += 0.1;
  const department = text('Department');
  if (department !== '' && resolveAudience(department).how !== 'unplaced') score += 0.1;
  return Math.round(score * 1000) / 1000;
}
