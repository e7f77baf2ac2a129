import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValuePool } from '../../src/storage/value-pool.js';

describe('ValuePool', () => {
  it('gives one copy of equal strings', () => {
    const pool = new ValuePool();
    const first = pool.string(['navy', 'blue'].join(' '));
    const second = pool.string(['navy', 'blue'].join(' '));
    assert.equal(first, 'navy blue');
    assert.equal(pool.string(second), first);
    assert.equal(pool.string(''), '');
    // Settled (the index is built): it forgets what it met, and pools again from there.
    pool.settle();
    assert.equal(pool.string('navy blue'), 'navy blue');
    assert.equal(pool.repeat('traits', { usage: 'casual' }).usage, 'casual');
  });

  it('takes a string from where the store keeps it first, and stops asking once settled', () => {
    const asked: string[] = [];
    const pool = new ValuePool((value) => (asked.push(value), value));
    pool.string('Navy Shirt');
    pool.string('Navy Shirt');
    pool.string('');
    assert.deepEqual(asked, ['Navy Shirt'], 'once per string, never for the empty one');
    pool.settle();
    pool.string('Red Shirt');
    assert.deepEqual(asked, ['Navy Shirt'], 'a built index no longer holds on to the store');
  });

  it('shares an object with the previous one of its kind when every property is the same', () => {
    const pool = new ValuePool();
    const m = pool.repeat('traits', { usage: 'casual', logPrice: Number.NaN, price: null });
    const l = pool.repeat('traits', { usage: 'casual', logPrice: Number.NaN, price: null });
    assert.equal(l, m, 'NaN and null compare equal to themselves');
    const other = pool.repeat('traits', { usage: 'formal', logPrice: Number.NaN, price: null });
    assert.notEqual(other, m);
    assert.equal(other.usage, 'formal');
    // Another kind is compared with its own previous value only.
    const card = { usage: 'formal', logPrice: Number.NaN, price: null };
    assert.equal(pool.repeat('card', card), card);
    // An extra property is a difference; so is an array of another length.
    assert.notEqual(pool.repeat('traits', { ...other, extra: 1 }), other);
    const urls = pool.repeat('urls', ['a', 'b']);
    assert.equal(pool.repeat('urls', ['a', 'b']), urls);
    assert.notEqual(pool.repeat('urls', ['a']), urls);
  });
});
