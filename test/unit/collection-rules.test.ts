import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compileFilters,
  compileSort,
  matches,
  sortKey,
  RuleError,
} from '../../src/modules/collections/collection-rules.js';
import { resolveAudience } from '../../src/catalog/vocabulary/audiences.js';

describe('collection rules', () => {
  const dress = {
    Category: 'Dresses',
    Department: 'Women',
    'Selling Price': '39.90',
    Colour: 'Red',
    tags: ['summer', 'party'],
  };
  it('matches values, lists and price ranges', () => {
    assert.ok(matches(compileFilters({ Category: 'dresses ' }), dress));
    assert.ok(
      matches(compileFilters({ Department: ['Women', 'Girls'], 'Selling Price': { gte: 10, lte: 50 } }), dress),
    );
    assert.ok(!matches(compileFilters({ 'Selling Price': { gt: 39.9 } }), dress));
    assert.ok(matches(compileFilters({ tags: 'party' }), dress));
    assert.ok(!matches(compileFilters({ Brand: 'Acme' }), dress));
    assert.ok(!matches([], dress), 'no rules, no members');
  });
  it('reads Category, Department and Colour through the catalog vocabulary, not colour families', () => {
    const tee = { Category: 'T-Shirts', Department: 'Ladieswear', Colour: 'Off-White', Brand: 'Tees & Co' };
    assert.ok(matches(compileFilters({ Category: 'Tshirts' }), tee));
    assert.ok(matches(compileFilters({ Category: ['t shirt', 'Jeans'] }), tee));
    assert.ok(!matches(compileFilters({ Category: 'Tees' }), tee), 'a garment concept is broader than a label');
    assert.ok(!matches(compileFilters({ Category: 'Lounge Tshirts' }), tee));
    assert.ok(matches(compileFilters({ Department: 'Women' }), tee));
    assert.ok(!matches(compileFilters({ Department: 'Men' }), tee));
    assert.ok(matches(compileFilters({ Colour: 'off white' }), tee));
    assert.ok(!matches(compileFilters({ Colour: 'White' }), tee), 'a family is not a filter');
    assert.ok(!matches(compileFilters({ Brand: 'Tees and Co' }), tee), 'other attributes stay exact');
    const divided = { Department: 'Divided' };
    const asWomen = {
      audience: (label: string) =>
        label.toLowerCase() === 'divided' ? { audience: 'women', how: 'override' as const } : resolveAudience(label),
    };
    assert.ok(!matches(compileFilters({ Department: 'Women' }), divided));
    assert.ok(matches(compileFilters({ Department: 'Women' }, asWomen), divided, asWomen), "the store's overrides");
  });

  it('refuses unknown operators and malformed filters', () => {
    for (const bad of [[], 'x', { a: { between: [1, 2] } }, { a: { gte: 'ten' } }, { a: [] }, { a: {} }, { a: [{}] }]) {
      assert.throws(() => compileFilters(bad), RuleError, JSON.stringify(bad));
    }
  });
  it('encodes sort keys in the requested order, missing values last', () => {
    const sort = compileSort({
      dynamic: [
        { field: 'Selling Price', order: 'desc' },
        { field: 'Product Name', order: 'asc' },
      ],
    });
    const rows = [
      { code: 'a', 'Selling Price': '10', 'Product Name': 'B' },
      { code: 'b', 'Selling Price': '99.5', 'Product Name': 'A' },
      { code: 'c', 'Selling Price': '10', 'Product Name': 'a' },
      { code: 'd', 'Product Name': 'Z' },
      { code: 'e', 'Selling Price': '9', 'Product Name': 'A' },
    ];
    const ordered = [...rows].sort((x, y) => (sortKey(sort, x) < sortKey(sort, y) ? -1 : 1)).map((r) => r.code);
    assert.deepEqual(ordered, ['b', 'c', 'a', 'e', 'd']);
    assert.throws(() => compileSort({ dynamic: [{ field: 'x', order: 'up' }] }), RuleError);
    assert.throws(() => compileSort({ static: { trendScore: 'yes' } }), RuleError);
  });
});
