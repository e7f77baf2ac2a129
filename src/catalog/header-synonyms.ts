import { CANONICAL_FIELDS } from './product-fields.js';

/**
 * Column names catalogs use for the canonical fields, compared without case, spaces, underscores or
 * dashes. Only for suggesting a mapping profile when a file's rows are all refused: the store's
 * profile, not this list, decides how rows are read.
 */
const SYNONYMS: Record<string, readonly string[]> = {
  product_code: [
    'productcode',
    'productid',
    'id',
    'sku',
    'skucode',
    'styleid',
    'itemid',
    'itemcode',
    'articlenumber',
    'articleid',
    'gtin',
    'ean',
    'code',
  ],
  parent_code: ['parentcode', 'parentid', 'parentsku', 'groupid', 'itemgroupid', 'stylecode', 'modelid'],
  'Product Name': ['productname', 'name', 'title', 'producttitle', 'productdisplayname', 'displayname', 'itemname'],
  Department: ['department', 'gender', 'dept', 'audience'],
  Category: ['category', 'articletype', 'producttype', 'type', 'productcategory'],
  'Sub Category': ['subcategory', 'subcat'],
  'Selling Price': ['sellingprice', 'price', 'saleprice', 'mrp', 'listprice', 'retailprice'],
  Currency: ['currency', 'currencycode'],
  Colour: ['colour', 'color', 'primarycolor', 'primarycolour', 'basecolour', 'basecolor'],
  Brand: ['brand', 'productbrand', 'brandname', 'manufacturer'],
  Season: ['season'],
  Usage: ['usage', 'occasion'],
  'Image URL 1': ['imageurl', 'image', 'imagelink', 'img', 'photo', 'picture', 'mainimage'],
};

const fold = (name: string) => name.toLowerCase().replace(/[\s_\-.]+/g, '');

/**
 * A mapping profile's `fields` for the columns of a file that look like canonical fields under
 * another name (Product_ID → product_code, Primary_Color → Colour), or null when none does or when
 * the file already names product_code. The first column that matches a field wins.
 */
export function suggestMapping(columns: readonly string[]): Record<string, string> | null {
  const canonical = new Set<string>(CANONICAL_FIELDS);
  if (columns.includes('product_code')) return null;
  const taken = new Set(columns.filter((column) => canonical.has(column)));
  const fields: Record<string, string> = {};
  for (const column of columns) {
    if (canonical.has(column)) continue;
    const folded = fold(column);
    const target = Object.entries(SYNONYMS).find(
      ([field, names]) => !taken.has(field) && (names.includes(folded) || fold(field) === folded),
    )?.[0];
    if (!target) continue;
    fields[column] = target;
    taken.add(target);
  }
  return Object.values(fields).includes('product_code') ? fields : null;
}
