import { analyze, rawTokens } from '../../search/analyzer.js';
import type { IndexedDoc } from '../../search/text-index.js';

// Fields that are not words a shopper types: codes, prices, links, the status.
const NOT_TEXT = new Set([
  'product_code',
  'parent_code',
  'Selling Price',
  'Currency',
  'Status',
  'Product Name',
  'Category',
  'Sub Category',
]);

/**
 * What the text index stores for a product: title and category weigh more than the other attributes;
 * `concepts` are the canonical words the catalog vocabulary resolved (audience, colour family), kept in
 * a least-weighted field of their own when the product's own words do not already say them.
 */
export function documentFor(
  productCode: string,
  attributes: Record<string, unknown>,
  concepts: string[] = [],
): IndexedDoc {
  const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
  const title = text(attributes['Product Name']);
  const other: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (NOT_TEXT.has(name) || /^Image URL/i.test(name) || typeof value !== 'string' || /^https?:\/\//i.test(value))
      continue;
    other.push(value);
  }
  const category = `${text(attributes.Category)} ${text(attributes['Sub Category'])}`;
  const titleTerms = analyze(title);
  const categoryTerms = analyze(category);
  const otherTerms = analyze(other.join(' '));
  const conceptTerms = [...new Set(concepts)];
  return {
    productCode,
    title: title || productCode,
    titleTerms: titleTerms.join(' '),
    category: categoryTerms.join(' '),
    other: otherTerms.join(' '),
    concepts: conceptTerms.join(' '),
    surfaceTerms: [...new Set(rawTokens(`${title} ${category} ${other.join(' ')}`))],
  };
}
