import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalAttribute,
  compileFilters,
  matches,
  parseFiltersParam,
  valueMatches,
  type AudienceResolver,
} from '../../src/catalog/filters.js';
import { AttributeColumns, storeValues } from '../../src/catalog/attribute-columns.js';

const products = [
  {
    product_code: 'a',
    Category: 'Dresses',
    Department: 'Ladieswear',
    Colour: 'Off-White',
    'Selling Price': '49.90',
    fabric: 'Silk',
  },
  { product_code: 'b', Category: 'T-Shirts', Department: 'Men', Colour: 'Navy Blue', 'Selling Price': '12' },
  { product_code: 'c', Category: 'Dress', Department: 'Girls', Colour: 'Red', 'Selling Price': '12,50' },
];

describe('the catalog filter language (one parser, one evaluator)', () => {
  it('attribute names in any case; canonical fields take their spelling', () => {
    assert.equal(canonicalAttribute('colour'), 'Colour');
    assert.equal(canonicalAttribute(' selling price '), 'Selling Price');
    assert.equal(canonicalAttribute('fabric'), 'fabric');
    const silk = compileFilters({ FABRIC: 'silk' });
    assert.deepEqual(
      products.filter((p) => matches(silk, p)).map((p) => p.product_code),
      ['a'],
    );
  });

  it('labels through the vocabulary, ranges through the price rule', () => {
    const women = compileFilters({ department: 'Women', category: 'dress' });
    assert.deepEqual(
      products.filter((p) => matches(women, p)).map((p) => p.product_code),
      ['a'],
    );
    const cheap = compileFilters({ 'Selling Price': { lt: 20 } });
    // "12,50" is not a valid price: no price, so no range holds.
    assert.deepEqual(
      products.filter((p) => matches(cheap, p)).map((p) => p.product_code),
      ['b'],
    );
    const [{ field, condition }] = compileFilters({ colour: 'off white' });
    assert.equal(valueMatches(field, condition, 'Off-White'), true);
  });

  it('the same filters select the same rows in search by photo (evaluated once per distinct value)', () => {
    const columns = new AttributeColumns();
    products.forEach((p, row) => columns.set(row, p));
    for (const filters of [
      { Department: 'Women' },
      { category: 'dresses', 'Selling Price': { gte: 10 } },
      { Colour: ['navy blue', 'red'] },
      { fabric: 'SILK' },
      { Brand: 'x' },
    ]) {
      const compiled = compileFilters(filters);
      const accepts = columns.compile(compiled);
      assert.deepEqual(
        products.map((_, row) => accepts(row)),
        products.map((p) => matches(compiled, p)),
        JSON.stringify(filters),
      );
    }
  });

  it('a condition compiled again reads its accepted values from before, until a product changes', () => {
    const columns = new AttributeColumns();
    products.forEach((p, row) => columns.set(row, p));
    const under = compileFilters({ 'Selling Price': { lte: 20 } });
    const rows = () => products.map((_, row) => columns.compile(under)(row));
    assert.deepEqual(rows(), [false, true, false]);
    assert.deepEqual(rows(), [false, true, false]);
    // A price written after the first compile: the kept values are dropped with the change.
    columns.set(0, { ...products[0], 'Selling Price': '19.99' });
    assert.deepEqual(rows(), [true, true, false]);
    // Same values, another resolver (a store's department overrides): compiled for it.
    const women = compileFilters({ Department: 'Women' });
    assert.deepEqual(
      products.map((_, row) => columns.compile(women)(row)),
      [true, false, false],
    );
    const nobody: AudienceResolver = { audience: () => ({ audience: 'label:none', how: 'unplaced' }) };
    assert.deepEqual(
      products.map((_, row) => columns.compile(women, nobody)(row)),
      [false, false, false],
    );
  });

  it("a store's indexes share its value dictionary, each filtering only its own rows", () => {
    const store = `store-${Math.random()}`;
    assert.equal(storeValues(store), storeValues(store), 'one dictionary per store while held');
    assert.notEqual(storeValues(store), storeValues(`${store}-other`));
    // The listing sees the visible products; the photo index every product, a draft too.
    const listing = new AttributeColumns(storeValues(store));
    const photos = new AttributeColumns(storeValues(store));
    listing.set(0, products[1]);
    products.forEach((p, row) => photos.set(row, p));
    photos.set(3, { Colour: 'Teal', 'Product Name': 'Draft scarf' });
    for (const filters of [{ Colour: ['navy blue', 'red'] }, { Colour: 'teal' }, { 'Selling Price': { lte: 20 } }]) {
      const compiled = compileFilters(filters);
      assert.deepEqual([listing.compile(compiled)(0)], [matches(compiled, products[1])], JSON.stringify(filters));
      assert.deepEqual(
        [0, 1, 2].map((row) => photos.compile(compiled)(row)),
        products.map((p) => matches(compiled, p)),
        JSON.stringify(filters),
      );
    }
    assert.equal(photos.compile(compileFilters({ Colour: 'teal' }))(3), true);
    assert.equal(listing.compile(compileFilters({ Colour: 'teal' }))(0), false, 'a value only the other index holds');
    // One id per value, whichever index met it first.
    const colour = (columns: AttributeColumns, row: number) => columns.display(columns.column('colour')![row]);
    assert.equal(colour(listing, 0), colour(photos, 1));
    assert.equal(photos.dictionarySize, listing.dictionarySize);
  });

  it('a request parameter: not JSON is 400, a wrong shape 422 naming the path', () => {
    assert.deepEqual(parseFiltersParam(undefined), []);
    assert.deepEqual(parseFiltersParam('  '), []);
    assert.throws(
      () => parseFiltersParam('{x'),
      (e: Error & { field?: string }) =>
        e.name === 'InvalidRequestError' && /'filters' must be valid JSON/.test(e.message),
    );
    assert.throws(() => parseFiltersParam('[1]'), /'filters': filters must be an object/);
    assert.throws(() => parseFiltersParam('{"Colour":[]}'), /filters\.Colour must be a non-empty list/);
    assert.throws(
      () => parseFiltersParam('{"Selling Price":{"gte":"1"}}'),
      /filters\.Selling Price\.gte must be a number/,
    );
    assert.throws(
      () => parseFiltersParam('{"Selling Price":{}}'),
      /filters\.Selling Price must name at least one of gte, gt, lte, lt/,
    );
  });
});
