import { Type, type Static } from '@sinclair/typebox';
import { firstImageUrl } from './product-fields.js';
import { priceOf } from './price.js';

/**
 * What a listing shows of a product (collection pages and previews, complete the look): the same
 * fields under the same names wherever a product appears in a list. Spread into a module's
 * component schema, which may add its own fields (a score).
 */
export const ProductSummaryFields = {
  product_code: Type.String(),
  title: Type.String({ description: 'Product Name' }),
  category: Type.String({ description: 'Category' }),
  price: Type.Union([Type.Number(), Type.Null()], {
    description: 'Selling Price as a number; null when missing or not a valid price',
  }),
  currency: Type.String(),
  image_url: Type.String({ description: 'the first non-empty Image URL 1 … 6, or empty' }),
};
export const ProductSummarySchema = Type.Object(ProductSummaryFields);
export type ProductSummary = Static<typeof ProductSummarySchema>;

/** A product's summary from its attributes (the price only when it passes the price rule). */
export function productSummaryOf(productCode: string, attributes: Record<string, unknown>): ProductSummary {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    product_code: productCode,
    title: text(attributes['Product Name']),
    category: text(attributes.Category),
    price: priceOf(attributes['Selling Price']),
    currency: text(attributes.Currency),
    image_url: firstImageUrl(attributes),
  };
}
