import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listedName, parseAssetName, placeLinks, type GroupLink } from '../../src/modules/assets/asset-ranks.js';

const names = (links: GroupLink[]) => links.map((l, i) => `${listedName(l, i + 1)}=${l.assetId}`);

describe('asset ranks', () => {
  it('parses numbered names', () => {
    assert.deepEqual(parseAssetName('Image URL 3'), { label: 'Image URL', number: 3 });
    assert.deepEqual(parseAssetName('front'), { label: 'front' });
    assert.deepEqual(parseAssetName('Image URL 0'), { label: 'Image URL 0' });
    assert.deepEqual(parseAssetName('42'), { label: '42' });
  });

  it('puts numbered names first by number, then the others in the given order, compacting past the end', () => {
    const { links, outcomes } = placeLinks(
      [],
      [
        { name: { label: 'swatch' }, assetId: 's', url: 'u' },
        { name: { label: 'Image URL', number: 7 }, assetId: 'b', url: 'u' },
        { name: { label: 'Image URL', number: 1 }, assetId: 'a', url: 'u' },
        { name: { label: 'back' }, assetId: 'k', url: 'u' },
      ],
    );
    assert.deepEqual(names(links), ['Image URL 1=a', 'Image URL 2=b', 'swatch=s', 'back=k']);
    assert.deepEqual(outcomes, ['created', 'created', 'created', 'created']);
  });

  it('addresses an existing rank by its number and an unnumbered link by its name', () => {
    const current: GroupLink[] = [
      { assetId: 'a', url: 'u', label: 'Image URL', numbered: true },
      { assetId: 'b', url: 'u', label: 'Image URL', numbered: true },
      { assetId: 'f', url: 'u', label: 'front', numbered: false },
    ];
    const { links, outcomes } = placeLinks(current, [
      { name: { label: 'Image URL', number: 2 }, assetId: 'c', url: 'u' },
      { name: { label: 'front' }, assetId: 'g', url: 'u' },
    ]);
    assert.deepEqual(names(links), ['Image URL 1=a', 'Image URL 2=c', 'front=g']);
    assert.deepEqual(outcomes, ['updated', 'updated']);
  });

  it('keeps one link per asset when an asset is named at another rank', () => {
    const current: GroupLink[] = [
      { assetId: 'a', url: 'u', label: 'Image URL', numbered: true },
      { assetId: 'b', url: 'u', label: 'Image URL', numbered: true },
    ];
    assert.deepEqual(
      names(placeLinks(current, [{ name: { label: 'Image URL', number: 1 }, assetId: 'b', url: 'u' }]).links),
      ['Image URL 1=b'],
    );
    assert.deepEqual(
      names(placeLinks(current, [{ name: { label: 'Image URL', number: 9 }, assetId: 'a', url: 'u' }]).links),
      ['Image URL 1=b', 'Image URL 2=a'],
    );
  });
});
