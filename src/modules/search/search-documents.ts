import { isShopperText, textOf } from '../../catalog/product-fields.js';
import { analyzerFor, type Analyzer } from '../../search/analyzer.js';
import type { IndexedDoc } from '../../search/text-index.js';

// Indexed in weighted fields of their own, so left out of `other`.
const OWN_FIELDS: ReadonlySet<string> = new Set(['Product Name', 'Category', 'Sub Category']);

/**
 * What the text index stores for a product: title and category weigh more than the other attributes;
 * `concepts` are the canonical words the catalog vocabulary resolved (audience, colour family), kept in
 * a least-weighted field of their own when the product's own words do not already say them.
 */
export function documentFor(
  productCode: string,
  attributes: Record<string, unknown>,
  concepts: string[] = [],
  analyzer: Analyzer = analyzerFor('en'),
): IndexedDoc {
  const title = textOf(attributes['Product Name']);
  const other: string[] = [];
  for (const [name, value] of Object.entries(attributes))
    if (!OWN_FIELDS.has(name) && isShopperText(name, value)) other.push(value);
  const category = `${textOf(attributes.Category)} ${textOf(attributes['Sub Category'])}`;
  const titleTerms = analyzer.analyze(title);
  const categoryTerms = analyzer.analyze(category);
  // A compound's catalog words weigh as the other attributes: "Ring" outranks "Ohrringe" for "ring".
  const otherTerms = [
    ...analyzer.analyze(other.join(' ')),
    ...analyzer.compoundTerms(`${title} ${category} ${other.join(' ')}`),
  ];
  const conceptTerms = [...new Set(concepts)];
  return {
    productCode,
    title: title || productCode,
    titleTerms: titleTerms.join(' '),
    category: categoryTerms.join(' '),
    other: otherTerms.join(' '),
    concepts: conceptTerms.join(' '),
    surfaceTerms: [...new Set(analyzer.rawTokens(`${title} ${category} ${other.join(' ')}`))],
  };
}
