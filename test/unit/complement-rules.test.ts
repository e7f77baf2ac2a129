import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import {
  colourScore,
  complementScore,
  departmentsFit,
  parseTaxonomy,
  priceScore,
  traitsOf,
  usageClashes,
} from '../../src/modules/complements/complement-rules.js';

describe('complement rules', () => {
  it('never crosses departments except through Unisex', () => {
    assert.ok(departmentsFit('Men', 'Men'));
    assert.ok(departmentsFit('Men', 'Unisex'));
    assert.ok(departmentsFit('Unisex', 'Women'));
    assert.ok(!departmentsFit('Men', 'Women'));
    assert.ok(!departmentsFit('Boys', 'Men'));
  });
  it('keeps formal away from sports, and scores colours by the palette rule', () => {
    assert.ok(usageClashes('Formal', 'Sports'));
    assert.ok(usageClashes('sports', 'party'));
    assert.ok(!usageClashes('Casual', 'Sports'));
    assert.equal(colourScore('Navy Blue', 'Pink'), 1);
    assert.equal(colourScore('Red', 'Maroon'), 0.8);
    assert.equal(colourScore('Blue', 'Red'), 0.6);
    assert.equal(colourScore('Green', 'Red'), 0.3);
  });
  it('prefers close price bands and stays within (0, 1]', () => {
    assert.equal(priceScore(50, 50), 1);
    assert.ok(priceScore(50, 60) > priceScore(50, 200));
    const raw = { department: 'Men', usage: 'Casual', colour: 'Black', price: 20, season: 'Summer', hasImage: true };
    const score = complementScore(traitsOf(raw), traitsOf({ ...raw, price: 25 }));
    assert.ok(score < complementScore(traitsOf(raw), traitsOf(raw)));
    assert.ok(score > 0 && score <= 1);
  });
  it('ships a default taxonomy that is valid and places every category once', () => {
    const taxonomy = parseTaxonomy(
      JSON.parse(
        fs.readFileSync(new URL('../../../src/modules/complements/fashion-taxonomy.json', import.meta.url), 'utf8'),
      ),
    );
    const all = Object.values(taxonomy.groups).flat();
    assert.equal(all.length, new Set(all).size);
    assert.equal(all.length, 143);
    assert.throws(() => parseTaxonomy({ groups: { A: ['x'] }, complements: { A: ['B'] } }));
  });
});
