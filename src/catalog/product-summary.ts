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

/**
 * What a result grid shows of a hit besides its code, title and score (text search): its family,
 * its picture and its price, so a storefront needs no second call per product.
 */
export const ProductCardFields = {
  parent_code: Type.Union([Type.String(), Type.Null()], {
    description: "the product's family (parent_code), null when it has none",
  }),
  image_url: ProductSummaryFields.image_url,
  price: ProductSummaryFields.price,
  currency: ProductSummaryFields.currency,
};
export const ProductCardSchema = Type.Object(ProductCardFields);
export type ProductCard = Static<typeof ProductCardSchema>;

/** A product's card fields from its attributes. */
export function productCardOf(attributes: Record<string, unknown>): ProductCard {
  const summary = productSummaryOf('', attributes);
  const parent = typeof attributes.parent_code === 'string' ? attributes.parent_code.trim() : '';
  return {
    parent_code: parent === '' ? null : parent,
    image_url: summary.image_url,
    price: summary.price,
    currency: summary.currency,
  };
}

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
