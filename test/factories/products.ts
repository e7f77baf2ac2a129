/**
 * A valid product as the API takes it (passes every quality check): a men's shirt with a price and an
 * image. Tests override what they are about; `extra` may set a field to undefined to leave it out.
 */
export function product(code: string | number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    product_code: code,
    'Product Name': `Shirt ${code}`,
    Department: 'Men',
    Category: 'Shirts',
    'Selling Price': '49.90',
    Currency: 'EUR',
    'Image URL 1': `https://img.example/${code}.jpg`,
    ...extra,
  };
  for (const [name, value] of Object.entries(fields)) if (value === undefined) delete fields[name];
  return fields;
}

/** The same product in another line of the catalog: a women's dress. */
export function dress(code: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return product(code, {
    'Product Name': `Dress ${code}`,
    Department: 'Women',
    Category: 'Dresses',
    'Selling Price': '30',
    ...extra,
  });
}
