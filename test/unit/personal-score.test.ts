import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { personalScore, PERSONAL_WEIGHT } from '../../src/modules/search/discovery.js';
import { shapeScore } from '../../src/modules/search/scored-hits.js';

describe('personalScore: a shopper’s taste moves a hit only within its relevance band', () => {
  it('never lifts a lower band above a higher one, whatever the affinities', () => {
    for (const [low, high] of [
      [0, 1],
      [1, 2],
      [0.5, 2],
    ]) {
      for (const r of [0, 0.5, 3, 50, 1e6]) {
        const partial = personalScore(shapeScore(low, r), 1);
        for (const r2 of [0, 0.5, 3, 50]) assert.ok(personalScore(shapeScore(high, r2), 0) > partial);
      }
    }
  });

  it('reorders within a band by affinity, bounded by PERSONAL_WEIGHT', () => {
    const better = shapeScore(1, 10);
    const worse = shapeScore(1, 2);
    assert.ok(personalScore(worse, 1) > personalScore(better, 0));
    assert.ok(personalScore(better, 1) - personalScore(better, 0) <= PERSONAL_WEIGHT / 4 + 1e-9);
    assert.equal(personalScore(1, 0), 1, 'an exact code match stays first');
  });
});
