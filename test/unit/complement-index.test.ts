import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  candidateOf,
  emptyIndex,
  fittingBuckets,
  indexedCandidate,
  nearest,
  placed,
  putCandidate,
  removeCandidate,
} from '../../src/modules/complements/complement-index.js';
import { ComplementsService } from '../../src/modules/complements/complements.service.js';
import { StoreVocabulary } from '../../src/catalog/vocabulary/store-vocabulary.js';
import { overridesOf } from '../../src/catalog/vocabulary/vocabulary-overrides.js';
import { ValuePool } from '../../src/storage/value-pool.js';

const taxonomy = ComplementsService.defaultTaxonomy();
const vocabulary = () => new StoreVocabulary(overridesOf(null), new Set(Object.keys(taxonomy.groups)));
const shirt = (price: string, colour = 'Black') => ({
  'Product Name': `Men ${colour} Shirt`,
  Category: 'Shirts',
  Department: 'Men',
  Colour: colour,
  Usage: 'Casual',
  Season: 'Summer',
  'Selling Price': price,
  Currency: 'EUR',
  'Image URL 1': `https://img.example/${colour}.jpg`,
});

function indexOf(products: Array<[string, Record<string, unknown>]>) {
  const vocab = vocabulary();
  const pool = new ValuePool();
  const index = emptyIndex({ key: 'k', seq: 0, taxonomy, vocabulary: vocab, pool });
  const unplaced = products.map(([code, attributes]) => candidateOf(code, attributes, vocab, pool));
  for (const u of unplaced) vocab.add(u.labels);
  products.forEach(([code], i) => putCandidate(index, code, placed(unplaced[i], vocab, pool)));
  return index;
}

describe('complete-the-look index by slot', () => {
  it('keeps each bucket by price then code, shares a colourway between its sizes, and reuses a freed slot', () => {
    const index = indexOf([
      ['B-40-m', shirt('40')],
      ['A-40-s', shirt('40')],
      ['C-20-m', shirt('20')],
      ['D-90-m', shirt('90')],
    ]);
    const [bucket] = fittingBuckets(index, indexedCandidate(index, 'A-40-s')!.placement.group, 'men');
    assert.deepEqual(
      bucket.items.map((slot) => index.slots.codes[slot]),
      ['C-20-m', 'A-40-s', 'B-40-m', 'D-90-m'],
    );
    // Two sizes read one after another with equal fields share everything but their code.
    assert.equal(index.slots.shared[index.slots.slotOf('A-40-s')!], index.slots.shared[index.slots.slotOf('B-40-m')!]);
    const a = indexedCandidate(index, 'A-40-s')!;
    assert.equal(a.code, 'A-40-s');
    assert.equal(a.title, 'Men Black Shirt');
    assert.equal(a.price, 40);
    assert.equal(a.currency, 'EUR');
    // Taken out: gone from its bucket; a new product goes in its price's place, and the code put back
    // takes its own row (the store's rows) again.
    const slot = index.slots.slotOf('A-40-s')!;
    assert.equal(removeCandidate(index, 'A-40-s')?.code, 'A-40-s');
    assert.equal(removeCandidate(index, 'A-40-s'), undefined);
    assert.equal(indexedCandidate(index, 'A-40-s'), undefined);
    putCandidate(index, 'E-95-m', placed(candidateOf('E-95-m', shirt('95'), index.vocabulary), index.vocabulary));
    assert.notEqual(index.slots.slotOf('E-95-m'), slot);
    assert.deepEqual(
      bucket.items.map((s) => index.slots.codes[s]),
      ['C-20-m', 'B-40-m', 'D-90-m', 'E-95-m'],
    );
    putCandidate(index, 'A-40-s', placed(candidateOf('A-40-s', shirt('40'), index.vocabulary), index.vocabulary));
    assert.equal(index.slots.slotOf('A-40-s'), slot);
    // Put again at another price: it moves, never held twice.
    putCandidate(index, 'A-40-s', placed(candidateOf('A-40-s', shirt('99'), index.vocabulary), index.vocabulary));
    assert.deepEqual(
      bucket.items.map((s) => index.slots.codes[s]),
      ['C-20-m', 'B-40-m', 'D-90-m', 'E-95-m', 'A-40-s'],
    );
    assert.equal(index.slots.count, 5);
  });

  it('takes the nearest prices around a source, skipping the codes asked', () => {
    const index = indexOf([
      ['P10', shirt('10')],
      ['P30', shirt('30')],
      ['P45', shirt('45')],
      ['P50', shirt('50')],
      ['P200', shirt('200')],
    ]);
    const bucket = index.slots.bucket[index.slots.slotOf('P30')!]!;
    const near = (price: number, k: number, skip: string[] = []) =>
      nearest(index.slots, bucket.items, Math.log(price), k, (code) => skip.includes(code)).map((c) => c.code);
    assert.deepEqual(near(44, 3), ['P45', 'P50', 'P30']);
    assert.deepEqual(near(44, 2, ['P45']), ['P50', 'P30']);
    assert.deepEqual(near(1000, 2), ['P200', 'P50']);
    // A bucket without prices is kept in product_code order, whatever the order products came in.
    const unpriced = indexOf([
      ['U3', shirt('')],
      ['U1', shirt('')],
      ['U2', shirt('')],
    ]);
    const noPrice = unpriced.slots.bucket[unpriced.slots.slotOf('U1')!]!;
    assert.deepEqual(
      noPrice.items.map((slot) => unpriced.slots.codes[slot]),
      ['U1', 'U2', 'U3'],
    );
    // No source price: product_code order.
    assert.deepEqual(
      nearest(index.slots, bucket.items, Number.NaN, 2, () => false).map((c) => c.code),
      ['P10', 'P200'],
    );
  });
});
