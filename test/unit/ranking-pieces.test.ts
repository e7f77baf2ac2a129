import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { topColumns } from '../../src/modules/visual/column-ranking.js';
import { TitleSequences } from '../../src/search/title-sequences.js';

// Two pieces of the rankings held in memory, against the plain computations they stand for.

describe('topColumns', () => {
  it('keeps the best positive scores of scores negative, zero and positive, in column order', () => {
    // mulberry32: a deterministic source without the short cycles that would make ties everywhere.
    let seed = 7;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    let shortlists = 0;
    for (const columns of [50, 1_000, 20_000, 100_000]) {
      const scores = Int32Array.from({ length: columns }, () => Math.round((random() - 0.6) * 100_000));
      const scales = Float32Array.from({ length: columns }, () => 0.5 + random());
      const count = 40;
      // Plainly: every positive column scaled, sorted.
      const all = Array.from(scores, (raw, column) => ({ column, raw, score: raw * scales[column] * 0.75 }))
        .filter((c) => c.raw > 0)
        .sort((a, b) => b.score - a.score);
      const expected = all.slice(0, count);
      const top = topColumns(scores, columns, scales, 0.75, count);
      // Too few, or the first left out within the rounding margin of the last kept: no shortlist.
      if (all.length < count || all[count]?.score >= expected[count - 1].score - 1e-6) {
        assert.equal(top, undefined, `${columns}: no shortlist`);
        continue;
      }
      assert.ok(top, `${columns}: a shortlist`);
      const byColumn = [...expected].sort((a, b) => a.column - b.column);
      assert.deepEqual(
        Array.from(top.columns),
        byColumn.map((c) => c.column),
        `${columns}: the best columns`,
      );
      assert.deepEqual(
        Array.from(top.scores),
        byColumn.map((c) => c.score),
        `${columns}: their scores`,
      );
      assert.equal(top.lowest, expected[count - 1].score);
      shortlists++;
    }
    assert.ok(shortlists >= 2, 'large matrices were shortlisted');
  });

  it('gives no shortlist when a column left out ties the lowest kept, nor with too few positive scores', () => {
    const ones = new Float32Array(5).fill(1);
    assert.deepEqual(Array.from(topColumns(Int32Array.of(5, 9, 8, 7, 1), 5, ones, 1, 2)!.columns), [1, 2]);
    assert.equal(topColumns(Int32Array.of(5, 9, 7, 7, 1), 5, ones, 1, 2), undefined, 'a tie at the cut');
    assert.equal(topColumns(Int32Array.of(-5, 9, 0, -7, -1), 5, ones, 1, 2), undefined, 'one positive score');
  });
});

describe('TitleSequences', () => {
  const titles = new TitleSequences();
  titles.add([1, 2, 3]); // doc 0
  titles.add([]); // doc 1: no title
  titles.add([4, 2, 4, 2, 5]); // doc 2: a repeated start
  const phrase = (...ids: number[]) => Int32Array.from(ids);

  it('tells a title holding the words contiguously and in order', () => {
    assert.equal(titles.hasPhrase(0, phrase(1, 2, 3)), true, 'the whole title');
    assert.equal(titles.hasPhrase(0, phrase(2, 3)), true, 'at its end');
    assert.equal(titles.hasPhrase(0, phrase(1, 3)), false, 'not contiguous');
    assert.equal(titles.hasPhrase(0, phrase(3, 2)), false, 'out of order');
    assert.equal(titles.hasPhrase(0, phrase(1, 2, 3, 4)), false, 'longer than the title');
    assert.equal(titles.hasPhrase(1, phrase(1)), false, 'no title');
    assert.equal(titles.hasPhrase(2, phrase(4, 2, 5)), true, 'after a false start');
  });

  it('keeps the titles through a renumbering of the terms', () => {
    const idOf = Int32Array.from([0, 10, 20, 30, 40, 50]);
    const renumbered = titles.renumbered(idOf);
    assert.equal(renumbered.hasPhrase(0, phrase(10, 20, 30)), true);
    assert.equal(renumbered.hasPhrase(2, phrase(40, 20, 50)), true);
    assert.equal(renumbered.hasPhrase(2, phrase(4, 2, 5)), false);
    renumbered.add([60]);
    assert.equal(renumbered.hasPhrase(3, phrase(60)), true, 'a title appended after');
  });
});
