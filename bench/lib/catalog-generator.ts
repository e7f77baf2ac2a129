import { deterministicPrice, type CatalogRow } from './harness.js';

/**
 * Large fashion catalogs grown from the real 44k catalog (issue 42): families of colourways and sizes
 * (`parent_code`, `Colour`, `Size`, `Stock`), with perturbed titles and prices, so that a million
 * products read like a real catalog rather than 23 copies of one. Deterministic for a seed.
 *
 * Each family starts from a real row (taken in turn, with a different perturbation each time round):
 * its garment, department, season and usage; one to four colourways (the row's own colour first);
 * per colourway the sizes its kind of product comes in (apparel XS–XXL, shoes 36–45, one size for
 * the rest, a run of them); a stock per SKU (one in ten sold out); a price per family around the
 * row's; a title whose colour follows the colourway, sometimes with another brand of the same
 * garment and a fit or fabric word; one photo URL per colourway.
 */

const COLOURS = [
  'Black',
  'White',
  'Navy Blue',
  'Blue',
  'Grey',
  'Red',
  'Green',
  'Olive',
  'Beige',
  'Brown',
  'Pink',
  'Maroon',
  'Yellow',
  'Purple',
  'Teal',
  'Off White',
  'Charcoal',
  'Mustard',
  'Khaki',
  'Cream',
];
const APPAREL_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];
const SHOE_SIZES = ['36', '37', '38', '39', '40', '41', '42', '43', '44', '45'];
const WORDS = ['Slim Fit', 'Regular Fit', 'Organic Cotton', 'Linen Blend', 'Relaxed', 'Printed', 'Textured', 'Classic'];

/** mulberry32: small, fast and deterministic. */
export function seeded(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sizesOf(row: CatalogRow): string[] {
  if (row.masterCategory === 'Footwear') return SHOE_SIZES;
  if (row.masterCategory === 'Apparel') return APPAREL_SIZES;
  return ['One Size'];
}

/** Yields `count` products (SKUs), family after family, in a stable order for a given seed. */
export function* generateCatalog(rows: CatalogRow[], count: number, seed = 42): Generator<Record<string, string>> {
  const random = seeded(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  // Brands as the titles start ("Turtle Check Men …": the words before the department), per garment.
  const brandsOf = new Map<string, string[]>();
  for (const row of rows) {
    const brand = row.productDisplayName.split(/\s+(?:Men|Women|Boys|Girls|Unisex)\s+/)[0];
    if (!brand || brand === row.productDisplayName) continue;
    const list = brandsOf.get(row.articleType) ?? [];
    if (list.length < 50 && !list.includes(brand)) list.push(brand);
    brandsOf.set(row.articleType, list);
  }
  let made = 0;
  for (let family = 0; made < count; family++) {
    const row = rows[family % rows.length];
    const round = Math.floor(family / rows.length);
    const parent = round === 0 ? row.id : `${row.id}-r${round}`;
    const colours = [row.baseColour || pick(COLOURS)];
    const wanted = 1 + Math.floor(random() * random() * 4);
    while (colours.length < wanted) {
      const colour = pick(COLOURS);
      if (!colours.includes(colour)) colours.push(colour);
    }
    const allSizes = sizesOf(row);
    const first = Math.floor(random() * Math.max(1, allSizes.length - 2));
    const sizes = allSizes.slice(first, first + Math.max(1, Math.min(allSizes.length, 3 + Math.floor(random() * 4))));
    const price = Number(deterministicPrice(row.id)) * (0.8 + random() * 0.5);
    let title = row.productDisplayName;
    if (round > 0) {
      const brands = brandsOf.get(row.articleType);
      const brand = title.split(/\s+(?:Men|Women|Boys|Girls|Unisex)\s+/)[0];
      if (brands && brands.length > 1 && random() < 0.6) title = title.replace(brand, pick(brands));
      if (random() < 0.5) title = `${title} ${pick(WORDS)}`;
    }
    for (const colour of colours) {
      const named = row.baseColour && title.includes(row.baseColour) ? title.replace(row.baseColour, colour) : title;
      for (const size of sizes) {
        if (made >= count) return;
        made++;
        yield {
          product_code: `${parent}-${colour.replace(/\s+/g, '').toLowerCase()}-${size.toLowerCase().replace(/\s+/g, '')}`,
          parent_code: parent,
          'Product Name': named,
          Department: row.gender,
          Category: row.articleType,
          'Sub Category': row.subCategory,
          Colour: colour,
          Size: size,
          Stock: String(random() < 0.1 ? 0 : 1 + Math.floor(random() * 50)),
          Season: row.season,
          Usage: row.usage,
          'Selling Price': price.toFixed(2),
          Currency: 'INR',
          // One photo per colourway, as a retailer shoots them (the real row's own for its first one).
          'Image URL 1':
            round === 0 && colour === colours[0]
              ? `https://images.example/${row.id}.jpg`
              : `https://images.example/${parent}-${colour.replace(/\s+/g, '').toLowerCase()}.jpg`,
        };
      }
    }
  }
}
