import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AttributeColumns, ValueDictionary } from '../../src/catalog/attribute-columns.js';
import type { CompiledFilters } from '../../src/catalog/filters.js';

// Columns other threads built are adopted into the store's dictionary when first read: every way of
// reading one (ahead, at once, by a write, by an export) must give what columns built here give.
describe('AttributeColumns adopted from other threads', () => {
  const colours = ['Navy Blue', 'Red', 'Black', 'red ', 'Olive'];
  const productAt = (row: number): Record<string, unknown> => ({
    Colour: colours[row % colours.length],
    Size: ['S', 'M', 'L'][row % 3],
    ...(row % 4 === 0 ? {} : { Brand: row % 3 === 0 ? 'Acme' : 'Zed' }),
    'Selling Price': String(10 + (row % 7)),
  });
  // Two parts, each built in its own dictionary, as two threads post them.
  const part = (from: number, count: number) => {
    const columns = new AttributeColumns(new ValueDictionary());
    for (let row = 0; row < count; row++) columns.set(row, productAt(from + row));
    return { columns: columns.exported(), rows: count };
  };
  const adopted = (shared: ValueDictionary) => AttributeColumns.adopt([part(0, 37), part(37, 50)], shared, new Set());
  const here = () => {
    const columns = new AttributeColumns(new ValueDictionary());
    for (let row = 0; row < 87; row++) columns.set(row, productAt(row));
    return columns;
  };
  const valuesOf = (columns: AttributeColumns, name: string) =>
    Array.from(columns.column(name) ?? [], (id) => columns.value(id)).slice(0, 87);
  const filters: CompiledFilters = [
    { field: 'Colour', condition: { kind: 'any', values: ['red'] } },
  ] as CompiledFilters;

  it('answers as columns built here, read at once or adopted ahead', async () => {
    const expected = here();
    const atOnce = adopted(new ValueDictionary());
    const ahead = adopted(new ValueDictionary());
    await ahead.adoptPending(['colour', 'brand']);
    for (const columns of [atOnce, ahead]) {
      assert.deepEqual(columns.names().sort(), expected.names().sort());
      for (const name of ['Colour', 'Size', 'Brand', 'Selling Price']) {
        assert.deepEqual(valuesOf(columns, name), valuesOf(expected, name), name);
        assert.equal(columns.distinctCount(name), expected.distinctCount(name), name);
      }
      const matches = (c: AttributeColumns) => {
        const test = c.compile(filters);
        return Array.from({ length: 87 }, (_, row) => test(row));
      };
      assert.deepEqual(matches(columns), matches(expected));
    }
  });

  it('adopts every column before a write, forgets a dropped one, and exports them all', () => {
    const columns = adopted(new ValueDictionary());
    columns.drop('Brand');
    columns.set(3, { Colour: 'Black', Size: 'XL' });
    const expected = here();
    expected.drop('Brand');
    expected.set(3, { Colour: 'Black', Size: 'XL' });
    assert.deepEqual(columns.names().sort(), expected.names().sort());
    for (const name of ['Colour', 'Size', 'Selling Price'])
      assert.deepEqual(valuesOf(columns, name), valuesOf(expected, name), name);
    assert.equal(columns.column('Brand'), undefined);
    const exported = adopted(new ValueDictionary()).exported();
    assert.deepEqual(exported.entries.map((entry) => entry.key).sort(), expected.names().concat('brand').sort());
  });
});
