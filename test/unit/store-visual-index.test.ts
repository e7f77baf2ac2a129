import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreVisualIndex } from '../../src/modules/visual/store-visual-index.js';
import type { VisionClient } from '../../src/vision/vision-client.js';

// The references between images and what they show, which the HTTP tests reach only through the
// vision thread: a product's own images, asset links answered with the product of their parent
// code (else its first visible variant), and images several owners share.

const vision = { clearColumns: () => {} } as unknown as VisionClient;

/** An index whose every URL has a vector, the URLs scoring in the given order (best first). */
function indexOf(urls: string[]) {
  const index = new StoreVisualIndex('test', 'model', 4);
  for (const url of urls) index.setVector(url, new Uint8Array(4), 1, vision);
  const scores = Int32Array.from(urls, (_, i) => 100 - i);
  const hits = () =>
    index
      .rank(scores, { queryScale: 0.01, filters: [], offset: 0, limit: 10, groupVariants: 'false' })
      .map((hit) => `${hit.productCode}@${hit.imageUrl}`);
  return { index, hits };
}

describe('visual index references', () => {
  it('answers an asset link with its parent product, else the visible variant with the smallest code', () => {
    const { index, hits } = indexOf(['u/look']);
    index.setProduct('P-B', 'active', 'P', {});
    index.setProduct('P-A', 'active', 'P', {});
    index.setProduct('Q-A', 'active', 'Q', {});
    index.setOwnerUrls('asset', 'P', ['u/look']);
    assert.deepEqual(hits(), ['P-A@u/look']);
    index.setProduct('P-A', 'draft', 'P', {});
    assert.deepEqual(hits(), ['P-B@u/look']);
    index.setProduct('P-B', 'active', 'Q', {});
    assert.deepEqual(hits(), [], 'no visible variant of P is left');
    index.setProduct('P', 'active', null, {});
    assert.deepEqual(hits(), ['P@u/look'], 'the product whose code is the parent code comes first');
  });

  it('keeps each owner of a shared image apart: a product and an asset link of the same code', () => {
    const { index, hits } = indexOf(['u/shared', 'u/own']);
    index.setProduct('P', 'active', null, {});
    index.setProduct('R', 'active', null, {});
    index.setOwnerUrls('product', 'P', ['u/shared', 'u/own']);
    index.setOwnerUrls('asset', 'P', ['u/shared']);
    index.setOwnerUrls('product', 'R', ['u/shared']);
    assert.deepEqual(hits(), ['P@u/shared', 'R@u/shared']);
    index.setOwnerUrls('asset', 'P', []);
    assert.deepEqual(hits(), ['P@u/shared', 'R@u/shared'], "the asset link's removal leaves the product's own");
    assert.deepEqual(index.urlsOfProduct('P'), ['u/shared', 'u/own']);
    index.setOwnerUrls('product', 'P', ['u/own']);
    assert.deepEqual(hits(), ['R@u/shared', 'P@u/own']);
    assert.deepEqual(index.urlsOfAssets('P'), []);
  });

  it("keeps a product's images set before the product itself", () => {
    const { index, hits } = indexOf(['u/early']);
    index.setOwnerUrls('product', 'LATE', ['u/early']);
    assert.deepEqual(hits(), []);
    index.setProduct('LATE', 'new', null, {});
    assert.deepEqual(index.urlsOfProduct('LATE'), ['u/early']);
    assert.deepEqual(hits(), ['LATE@u/early']);
    assert.deepEqual(index.columnsOfProduct('LATE'), [0]);
  });
});
