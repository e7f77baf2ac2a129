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

/** What the text index stores for a product: title and category weigh more than the other attributes. */
export function documentFor(productCode: string, attributes: Record<string, unknown>): IndexedDoc {
  const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
  const title = text(attributes['Product Name']);
  const other: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (NOT_TEXT.has(name) || /^Image URL/i.test(name) || typeof value !== 'string' || /^https?:\/\//i.test(value))
      continue;
    other.push(value);
  }
  const category = `${text(attributes.Category)} ${text(attributes['Sub Category'])}`;
  return {
    productCode,
    title: title || productCode,
    titleTerms: analyze(title).join(' '),
    category: analyze(category).join(' '),
    other: analyze(other.join(' ')).join(' '),
    surfaceTerms: [...new Set(rawTokens(`${title} ${category} ${other.join(' ')}`))],
  };
}
