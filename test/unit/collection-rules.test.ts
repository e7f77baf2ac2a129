import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSort, sortKey, RuleIndex } from '../../src/modules/collections/collection-rules.js';
import { compileFilters, matches, RuleError } from '../../src/catalog/filters.js';
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

describe('RuleIndex', () => {
  it('finds exactly the rules brute force finds, through values, label keys and audiences', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const categories = ['Dresses', 'T-Shirts', 'Tshirts', 'tshirt', 'Jeans', 'Casual Shoes', 'Sleep Bag'];
    const departments = ['Women', 'Ladieswear', 'womens', 'Men', 'Menswear', 'Boys', 'Unisex', 'Divided'];
    const colours = ['Black', 'Off-White', 'off white', 'Navy Blue', 'Red', 'Greenish Khaki'];
    const filtersOf = () => {
      const filters: Record<string, unknown> = {};
      const kind = Math.floor(random() * 6);
      if (kind !== 5) filters.Category = random() < 0.5 ? pick(categories) : [pick(categories), pick(categories)];
      if (kind === 1 || kind === 4) filters.Department = pick(departments);
      if (kind === 2) filters.Colour = [pick(colours), pick(colours)];
      if (kind === 3 || kind === 5) filters['Selling Price'] = { gte: Math.floor(random() * 60), lte: 80 };
      if (kind === 4) filters.Season = pick(['Summer', 'Winter', 2024]);
      return filters;
    };
    const rules = Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, filters: compileFilters(filtersOf()) }));
    rules.push({ id: 'empty', filters: compileFilters({}) });
    const index = new RuleIndex(rules);
    let candidates = 0;
    for (let i = 0; i < 500; i++) {
      const attributes: Record<string, unknown> = {
        Category: random() < 0.1 ? [pick(categories), pick(categories)] : pick(categories),
        Department: pick(departments),
        Colour: pick(colours),
        'Selling Price': String(Math.floor(random() * 100)),
        Season: pick(['Summer', 'winter', 2024, '2024']),
      };
      if (random() < 0.1) delete attributes.Category;
      const expected = rules.filter((rule) => matches(rule.filters, attributes)).map((rule) => rule.id);
      const found = index.matching(attributes).map((rule) => rule.id);
      assert.deepEqual(found.sort(), expected.sort(), JSON.stringify(attributes));
      candidates += index.candidates(attributes).size;
    }
    // The point of the index: a product is checked against a fraction of the rules, not all of them.
    assert.ok(candidates / 500 < rules.length * 0.6, `${candidates / 500} candidates per product`);
  });
});
