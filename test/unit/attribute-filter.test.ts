import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileFilters } from '../../src/catalog/filters.js';
import { AttributeScan, CodeList } from '../../src/modules/products/attribute-filter.js';

describe('AttributeScan (GET /v1/products filters and facets)', () => {
  const products: Array<[string, Record<string, unknown>]> = [
    ['A', { Colour: 'Red', Brand: 'Acme', Tags: ['summer', 'Summer', 'linen'] }],
    ['B', { colour: ' red ', Brand: 'Other', Tags: ['winter'] }],
    ['C', { Colour: 'Blue', Brand: 'Acme', Tags: 'summer' }],
    ['D', { Colour: 'Blue', Brand: 'Other', Size: { eu: 40 } }],
  ];
  const scan = (filters: unknown, facets: string[], limit = 50) => {
    const scanner = new AttributeScan(compileFilters(filters), facets);
    for (const [code, attributes] of products) scanner.add(code, attributes);
    const result = scanner.result(limit);
    return { ...result, codes: result.codes.slice(0, result.codes.length) };
  };

  it('keeps every product without conditions, and those passing all of them otherwise', () => {
    assert.deepEqual(scan({}, []).codes, ['A', 'B', 'C', 'D']);
    assert.deepEqual(scan({ Colour: 'RED' }, []).codes, ['A', 'B']);
    assert.deepEqual(scan({ Colour: 'Red', Brand: 'Acme' }, []).codes, ['A']);
    assert.deepEqual(scan({ Tags: 'linen' }, []).codes, ['A']);
  });

  it('counts a facet over the products passing every other condition (disjunctive), once per product', () => {
    const { facets } = scan({ Colour: 'Red', Brand: 'Acme' }, ['Colour', 'Brand', 'Tags', 'Size']);
    // Colour ignores its own condition: Acme products of any colour.
    assert.deepEqual(facets.Colour, [
      { value: 'Blue', count: 1 },
      { value: 'Red', count: 1 },
    ]);
    assert.deepEqual(facets.Brand, [
      { value: 'Acme', count: 1 },
      { value: 'Other', count: 1 },
    ]);
    // A list counts each of its values once however spelt; objects are not facet values.
    assert.deepEqual(facets.Tags, [
      { value: 'linen', count: 1 },
      { value: 'summer', count: 1 },
    ]);
    assert.deepEqual(facets.Size, []);
  });

  it('groups values case-insensitively under the first spelling seen, most frequent first, cut at the limit', () => {
    const { facets } = scan({}, ['colour'], 1);
    assert.deepEqual(facets.colour, [{ value: 'Blue', count: 2 }]);
    assert.deepEqual(scan({}, ['Colour']).facets.Colour, [
      { value: 'Blue', count: 2 },
      { value: 'Red', count: 2 },
    ]);
  });

  it('keeps the matching codes in one string: pages slice it, its size counts one byte a Latin-1 character', () => {
    const codes = ['A-1', 'B', '', 'café-9', 'Z'];
    const list = new CodeList(codes);
    assert.equal(list.length, 5);
    assert.deepEqual(list.slice(0, 5), codes);
    assert.deepEqual(list.slice(1, 3), ['B', '']);
    assert.deepEqual(list.slice(3, 99), ['café-9', 'Z']);
    assert.deepEqual(list.slice(5, 10), []);
    assert.equal(list.bytes, 'A-1Bcafé-9Z'.length + 5 * 4);
    assert.equal(new CodeList(['東京-1']).bytes, 4 * 2 + 4);
  });
});
