import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qualityProblems } from '../../src/modules/products/quality-checks.js';
import { resolveStatus } from '../../src/catalog/statuses.js';
import { isValidPrice } from '../../src/catalog/price.js';
import { normaliseItem, mergeFields } from '../../src/modules/products/product-input.js';
import { firstImageUrl, isBlank, isImageField } from '../../src/catalog/product-fields.js';
import { productImageRefs } from '../../src/modules/visual/image-catalog.js';
import {
  applyMapping,
  defaultMappingProfile,
  parseMappingProfile,
} from '../../src/modules/products/mapping-profile.js';

describe('quality checks', () => {
  it('accepts non-negative decimals with "." and at most 4 decimals', () => {
    for (const ok of ['49', '49.90', '0', '0.0001', '1000000']) assert.ok(isValidPrice(ok), ok);
    for (const bad of ['12,50', '-3', 'abc', '1.23456', '.5', '1.', '1e3', '']) assert.ok(!isValidPrice(bad), bad);
  });

  it('reports the title/images reasons exclusively', () => {
    const base = { 'Selling Price': '1', Category: 'c' };
    assert.deepEqual(qualityProblems({ ...base }), ['Missing title and images']);
    assert.deepEqual(qualityProblems({ ...base, 'Product Name': 't' }), ['Missing images']);
    assert.deepEqual(qualityProblems({ ...base, 'Image URL 4': 'u' }), ['Missing title']);
    assert.deepEqual(qualityProblems({ ...base, 'Product Name': 't', 'Image URL 6': 'u' }), []);
    assert.deepEqual(qualityProblems({ 'Product Name': ' ', 'Image URL 1': 'u' }), [
      'Missing price',
      'Missing title',
      'Missing category',
    ]);
  });

  it('resolves statuses as CONTRACT §6 says', () => {
    assert.deepEqual(resolveStatus({ problems: [] }), { status: 'new' });
    assert.deepEqual(resolveStatus({ problems: ['Missing price'] }), { status: 'problem' });
    assert.deepEqual(resolveStatus({ existing: 'active', problems: ['Missing price'] }), { status: 'problem' });
    assert.deepEqual(resolveStatus({ existing: 'problem', problems: [] }), { status: 'new' });
    assert.deepEqual(resolveStatus({ existing: 'draft', problems: ['Missing price'] }), { status: 'draft' });
    assert.deepEqual(resolveStatus({ existing: 'new', requested: 'active', problems: ['Missing price'] }), {
      failure: 'quality_check_failed',
    });
    assert.deepEqual(resolveStatus({ existing: 'problem', requested: 'under review', problems: ['x'] }), {
      status: 'under review',
    });
    assert.deepEqual(resolveStatus({ existing: 'inactive', requested: 'new', problems: ['x'] }), { status: 'problem' });
  });
});

describe('product input', () => {
  const profile = defaultMappingProfile();
  it('stores numbers given for text fields as text', () => {
    const out = normaliseItem({ product_code: 15970, 'Selling Price': 49.9, extra: 3 }, 0, profile);
    assert.ok(out.ok);
    assert.equal(out.item.code, '15970');
    assert.equal(out.item.fields['Selling Price'], '49.9');
    assert.equal(out.item.fields.extra, 3);
  });
  it('normalises the requested status and refuses problem', () => {
    const ok = normaliseItem({ product_code: 'a', Status: 'Under Review' }, 0, profile);
    assert.ok(ok.ok && ok.item.requestedStatus === 'under review');
    const bad = normaliseItem({ product_code: 'a', Status: 'problem' }, 3, profile);
    assert.ok(!bad.ok && bad.failure.reason === 'invalid_status' && bad.failure.index === 3);
  });
  it('merges updates, null removing a field', () => {
    assert.deepEqual(mergeFields({ a: 1, b: 2 }, { b: null, c: 3 }), { a: 1, c: 3 });
  });
  it('maps incoming names and validates profiles', () => {
    const custom = parseMappingProfile({ fields: { id: 'product_code' }, required: ['Brand', 'Brand'] });
    assert.deepEqual(custom.required, ['Brand']);
    assert.deepEqual(applyMapping(custom, { id: 1, other: 2 }), { product_code: 1, other: 2 });
    assert.throws(() => parseMappingProfile([]));
    assert.throws(() => parseMappingProfile({ fields: { a: '' } }));
    assert.throws(() => parseMappingProfile({ fields: {}, required: 'Brand' }));
    assert.throws(() => parseMappingProfile({ fields: {}, extra: 1 }));
  });
});

describe('image fields: one rule for the checks, search by photo, search and listings', () => {
  const onlySeventh = {
    product_code: 'a',
    'Product Name': 'Red dress',
    'Selling Price': '10',
    Category: 'Dresses',
    'Image URL 7': 'https://img.example/a.jpg',
  };
  it('an image only in "Image URL 7" is no image anywhere', () => {
    assert.deepEqual(qualityProblems(onlySeventh), ['Missing images']);
    assert.deepEqual(productImageRefs('a', onlySeventh), []);
    assert.equal(firstImageUrl(onlySeventh), '');
    assert.equal(isImageField('Image URL 7'), false);
  });
  it('Image URL 1 to 6 are images, in field order, trimmed', () => {
    const product = {
      'Image URL 3': ' https://img.example/3.jpg ',
      'Image URL 1': '',
      'Image URL 2': 'https://img.example/2.jpg',
    };
    assert.deepEqual(qualityProblems({ ...onlySeventh, ...product }), []);
    assert.deepEqual(
      productImageRefs('a', product).map((ref) => [ref.slot, ref.url]),
      [
        ['Image URL 2', 'https://img.example/2.jpg'],
        ['Image URL 3', 'https://img.example/3.jpg'],
      ],
    );
    assert.equal(firstImageUrl(product), 'https://img.example/2.jpg');
  });
  it('blank is absent, null or white space; 0 is a value', () => {
    assert.deepEqual([undefined, null, '', '  ', 0, 'x'].map(isBlank), [true, true, true, true, false, false]);
  });
});
