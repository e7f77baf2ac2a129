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

describe('visual index ranking', () => {
  // 500 families × 2 colours × 3 sizes; a colourway's sizes share its photo, the large size shows the
  // family's look photo too; one product in seven is a draft. The photos' columns come in a shuffled
  // order. The shortlist of the best columns must answer what a scan of every column answers, ties
  // included: equal scores go to the smaller code, a product's equal photos to the first column.
  let seed = 5;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const index = new StoreVisualIndex('test', 'model', 4);
  const products: Array<{ code: string; family: string; colour: string; urls: string[]; visible: boolean }> = [];
  for (let f = 0; f < 500; f++)
    for (const colour of ['Black', 'Red'])
      for (const size of ['S', 'M', 'L']) {
        const code = `F${String(f).padStart(3, '0')}-${colour}-${size}`;
        const visible = random() > 1 / 7;
        const urls = [`u/${f}/${colour}`, ...(size === 'L' ? [`u/${f}/look`] : [])];
        products.push({ code, family: `F${f}`, colour, urls, visible });
        index.setProduct(code, visible ? 'active' : 'draft', `F${f}`, { Colour: colour });
      }
  const urls = [...new Set(products.flatMap((p) => p.urls))]
    .map((url) => ({ url, key: random() }))
    .sort((a, b) => a.key - b.key)
    .map(({ url }) => url);
  const scaleOf = new Map(urls.map((url) => [url, [1, 0.5, 0.25][Math.floor(random() * 3)]]));
  // Every fifth family's look photo scores as its black photo in the distinct set (below).
  const twinOf = (url: string) => {
    const family = /^u\/(\d+)\/look$/.exec(url)?.[1];
    return family !== undefined && Number(family) % 5 === 0 ? `u/${family}/Black` : undefined;
  };
  for (const url of urls) if (twinOf(url)) scaleOf.set(url, scaleOf.get(twinOf(url)!)!);
  urls.forEach((url, column) =>
    assert.equal(index.setVector(url, new Uint8Array(4), scaleOf.get(url)!, vision), column),
  );
  for (const p of products) index.setOwnerUrls('product', p.code, p.urls);
  const scoreSets = {
    // Few distinct scores: ties everywhere.
    tied: { raw: Int32Array.from(urls, () => Math.floor(random() * 60) * 8 - 40), queryScale: 0.002 },
    // A quarter of the photos at one top score: the page's last places are decided among ties.
    plateau: {
      raw: Int32Array.from(urls, (url) => (random() < 0.25 ? 400 / scaleOf.get(url)! : Math.floor(random() * 390))),
      queryScale: 0.002,
    },
    // Nearly all distinct: the shortlist answers alone.
    distinct: { raw: twins(Int32Array.from(urls, () => Math.floor(random() * 50_000) - 10_000)), queryScale: 0.00002 },
  };

  function twins(raw: Int32Array) {
    urls.forEach((url, column) => twinOf(url) && (raw[column] = raw[urls.indexOf(twinOf(url)!)]));
    return raw;
  }

  /** Every visible product's slot (best score, then smallest code) with its first best photo, best first. */
  function expected(raw: Int32Array, queryScale: number, groupVariants: 'false' | 'colour', exclude?: string) {
    const excluded = products.find((p) => p.code === exclude);
    const best = new Map<string, { code: string; score: number; url: string }>();
    for (const p of products) {
      if (!p.visible || p.code === exclude) continue;
      if (groupVariants !== 'false' && excluded && p.family === excluded.family) continue;
      let own: { score: number; url: string } | undefined;
      for (const url of [...p.urls].sort((a, b) => urls.indexOf(a) - urls.indexOf(b))) {
        const column = urls.indexOf(url);
        const score = raw[column] * scaleOf.get(url)! * queryScale;
        if (raw[column] > 0 && (!own || score > own.score)) own = { score, url };
      }
      if (!own) continue;
      const slot = groupVariants === 'false' ? p.code : `${p.family}/${p.colour}`;
      const held = best.get(slot);
      if (!held || own.score > held.score || (own.score === held.score && p.code < held.code))
        best.set(slot, { code: p.code, ...own });
    }
    const rounded = (score: number) => Math.min(1, Math.max(1e-6, Math.round(score * 1e6) / 1e6));
    return [...best.values()]
      .map((hit) => ({ productCode: hit.code, score: rounded(hit.score), imageUrl: hit.url }))
      .sort((a, b) => b.score - a.score || (a.productCode < b.productCode ? -1 : 1));
  }

  for (const groupVariants of ['false', 'colour'] as const)
    for (const [name, { raw, queryScale }] of Object.entries(scoreSets))
      it(`answers every page as a scan of every column does (group_variants ${groupVariants}, ${name} scores)`, () => {
        for (const exclude of [undefined, products[7].code])
          for (const [offset, limit] of [
            [0, 20],
            [20, 20],
            [0, 120],
            [300, 20],
          ]) {
            const hits = index.rank(raw, { queryScale, filters: [], offset, limit, exclude, groupVariants });
            const want = expected(raw, queryScale, groupVariants, exclude).slice(offset, offset + limit);
            assert.deepEqual(hits, want, `offset ${offset}, limit ${limit}`);
          }
      });

  it('leaves its tables clean between calls', () => {
    const { raw, queryScale } = scoreSets.distinct;
    const first = index.rank(raw, { queryScale, filters: [], offset: 0, limit: 20, groupVariants: 'colour' });
    const lower = Int32Array.from(raw, (score) => Math.floor(score / 2));
    index.rank(lower, { queryScale, filters: [], offset: 0, limit: 20, groupVariants: 'false' });
    assert.deepEqual(
      index.rank(raw, { queryScale, filters: [], offset: 0, limit: 20, groupVariants: 'colour' }),
      first,
    );
  });
});
