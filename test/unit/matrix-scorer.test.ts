import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MatrixScorer, WIDE_SCAN_FROM } from '../../src/vision/scorer.js';
import { scanColumns, VectorMatrix } from '../../src/vision/vector-matrix.js';

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
      // A small store's scan in JavaScript answers the same, for the columns asked.
      assert.deepEqual(scanColumns(query, matrix, columns), scores.slice(0, columns));
    });
});

describe('VectorMatrix.fit', () => {
  it('gives back spare capacity once a scan finds nothing set since the last, keeping every column', () => {
    const matrix = new VectorMatrix(4, 0);
    const codes = (column: number) => Uint8Array.of(column % 251, (column * 7) % 251, 1, 2);
    for (let column = 0; column < 20_000; column++) matrix.set(column, codes(column));
    const grown = matrix.capacity;
    assert.ok(grown > 20_000 * 1.1 + 1024, `grown by quarters to ${grown}`);
    // Columns were set since the last scan (a build under way): nothing moves.
    matrix.fit(20_000);
    assert.equal(matrix.capacity, grown);
    matrix.fit(20_000);
    assert.ok(matrix.capacity >= 20_000 && matrix.capacity <= 20_000 * 1.03 + 1024, `fitted to ${matrix.capacity}`);
    for (const column of [0, 1, 9_999, 19_999]) assert.deepEqual(matrix.column(column), codes(column));
    // Within a tenth: left as it is.
    const fitted = matrix.capacity;
    matrix.fit(fitted - 1_500);
    assert.equal(matrix.capacity, fitted);
  });
});
