import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MatrixScorer, WIDE_SCAN_FROM } from '../../src/vision/scorer.js';
import { VectorMatrix } from '../../src/vision/vector-matrix.js';

// The scorer's two sessions (one thread below WIDE_SCAN_FROM columns, every core from it) must
// answer the integer dot products a plain loop computes, whatever the matrix's spare capacity.
describe('MatrixScorer', () => {
  const dimensions = 12;
  const zeroPoint = 128;
  let scorer: MatrixScorer;
  before(async () => (scorer = await MatrixScorer.create(dimensions, zeroPoint, 1)));
  after(() => scorer.close());

  for (const columns of [1_000, WIDE_SCAN_FROM + 1_000])
    it(`scores ${columns} columns as a loop does`, async () => {
      let seed = columns;
      const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256;
      const matrix = new VectorMatrix(dimensions, zeroPoint);
      const vectors = Array.from({ length: columns }, () => Uint8Array.from({ length: dimensions }, random));
      vectors.forEach((codes, column) => matrix.set(column, codes));
      const query = Uint8Array.from({ length: dimensions }, random);
      const scores = await scorer.score(query, matrix.data, matrix.capacity);
      assert.equal(scores.length, matrix.capacity);
      for (let column = 0; column < columns; column += 97) {
        let expected = 0;
        for (let d = 0; d < dimensions; d++) expected += (query[d] - zeroPoint) * (vectors[column][d] - zeroPoint);
        assert.equal(scores[column], expected, `column ${column}`);
      }
      assert.equal(scores[matrix.capacity - 1], 0, 'a free column scores 0');
    });
});
