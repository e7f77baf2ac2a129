import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setRow, sharedPerStore, StoreRows } from '../../src/storage/store-rows.js';
import { IdSet } from '../../src/catalog/id-set.js';
import { StoreVisualIndex } from '../../src/modules/visual/store-visual-index.js';
import { ListingRows } from '../../src/modules/products/catalog-listing.js';

// The shapes a store's in-memory indexes share to hold a million products in less memory: one
// numbering of its codes, arrays filled up to a row, and the distinct value ids of a column.

describe('StoreRows', () => {
  it('numbers each code once, in the order first seen, and keeps a row through deletes', () => {
    const rows = new StoreRows();
    assert.equal(rows.get('A'), undefined);
    assert.equal(rows.add('A'), 0);
    assert.equal(rows.add('B'), 1);
    assert.equal(rows.add('A'), 0);
    assert.equal(rows.get('B'), 1);
    assert.deepEqual(rows.codes, ['A', 'B']);
    assert.equal(rows.size, 2);
  });

  it('is one per store while an index holds it', () => {
    const rowsOf = sharedPerStore(() => new StoreRows());
    const held = rowsOf('s1');
    assert.equal(rowsOf('s1'), held);
    assert.notEqual(rowsOf('s2'), held);
  });

  it('lets indexes number products in any order: a row another index made is not held by this one', () => {
    const rows = new StoreRows();
    const listing = new ListingRows(rows);
    const visual = new StoreVisualIndex('k', 'm', 4, 0, undefined, rows);
    visual.setProduct('DRAFT', 'draft', null, {});
    visual.setProduct('LIVE', 'active', null, {});
    const product = { parentCode: null, attributes: { 'Product Name': 'Shirt' }, createdAt: '2026-01-01' };
    assert.equal(listing.set('LIVE', product), 1, "the listing finds the photo index's row");
    assert.equal(listing.set('GONE', undefined), undefined, 'nothing to take out');
    assert.deepEqual(Array.from(listing.snapshot().liveRows), [1]);
    assert.equal(listing.name[1], 'shirt');
    assert.equal(Object.keys(listing.name).length, listing.name.length, 'no holes before row 1');
    assert.equal(visual.productCount, 2);
    assert.equal(visual.isVisible('LIVE'), true);
    assert.equal(visual.isVisible('DRAFT'), false);
    // A product the listing numbered first is not one the photo index holds until it is set there.
    listing.set('NEW', product);
    assert.equal(visual.isVisible('NEW'), false);
    assert.equal(visual.productCount, 2);
    visual.setProduct('NEW', 'active', null, {});
    assert.equal(visual.productCount, 3);
    assert.equal(visual.isVisible('NEW'), true);
  });
});

describe('setRow', () => {
  it('fills the gap before a row, so that the array has no holes', () => {
    const values: Array<string | undefined> = [];
    setRow(values, 3, 'd', undefined);
    assert.equal(values.length, 4);
    assert.equal(Object.keys(values).length, 4);
    setRow(values, 1, 'b', undefined);
    assert.deepEqual(values, [undefined, 'b', undefined, 'd']);
  });
});

describe('IdSet', () => {
  it('holds distinct ids with their count and largest, ascending', () => {
    const ids = new IdSet();
    for (const id of [70, 3, 3, 0, 31, 32, 1_000_000]) ids.add(id);
    assert.equal(ids.size, 6);
    assert.equal(ids.largest, 1_000_000);
    assert.deepEqual([...ids], [0, 3, 31, 32, 70, 1_000_000]);
    assert.equal(ids.has(31), true);
    assert.equal(ids.has(33), false);
    assert.equal(ids.has(5_000_000), false);
    assert.deepEqual([...new IdSet()], []);
  });
});
