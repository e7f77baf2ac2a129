import assert from 'node:assert/strict';
import { it } from 'node:test';
import { packStrings, stringAt } from '../../src/catalog/packed-strings.js';

it('packed strings give back each string, empty ones and ones outside the BMP included', () => {
  const strings = ['', 'A-0001', '', 'navy blue', 'Ω', '😀 emoji', 'é\u0000x', ''];
  const packed = packStrings(strings);
  assert.deepEqual(
    strings.map((_, i) => stringAt(packed, i)),
    strings,
  );
  // Posted to a thread: one text and one typed array survive the structured clone.
  const cloned = structuredClone(packed);
  assert.deepEqual(
    strings.map((_, i) => stringAt(cloned, i)),
    strings,
  );
  assert.equal(packStrings([]).ends.length, 0);
});
