import { attributeValue } from './filters.js';
import { priceOf } from './price.js';
import { IMAGE_FIELDS, isBlank } from './product-fields.js';
import { resolveAudience } from './vocabulary/audiences.js';
import { resolveColour } from './vocabulary/colours.js';

/**
 * Whether the vocabulary places a label, remembered: a catalog repeats a few hundred colours and
 * departments over all its products, and a listing scores every product when a store is first read.
 */
const PLACED_COLOURS = new Map<string, boolean>();
const PLACED_DEPARTMENTS = new Map<string, boolean>();
const PLACED_LABELS_KEPT = 20_000;

function placed(known: Map<string, boolean>, label: string, resolve: (label: string) => { how: string }): boolean {
  let answer = known.get(label);
  if (answer === undefined) {
    if (known.size >= PLACED_LABELS_KEPT) known.clear();
    known.set(label, (answer = resolve(label).how !== 'unplaced'));
  }
  return answer;
}

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
  if (colour !== '' && placed(PLACED_COLOURS, colour, resolveColour)) score += 0.1;
  const department = text('Department');
  if (department !== '' && placed(PLACED_DEPARTMENTS, department, resolveAudience)) score += 0.1;
  return Math.round(score * 1000) / 1000;
}
