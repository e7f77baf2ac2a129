import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suggestMapping } from '../../src/catalog/header-synonyms.js';

describe('suggestMapping (the mapping an import suggests when no row is accepted)', () => {
  it('reads the columns of the second Myntra catalog and of styles.csv', () => {
    assert.deepEqual(
      suggestMapping([
        'Product_ID',
        'Product_Name',
        'Product_Brand',
        'Gender',
        'Price',
        'Num_Images',
        'Description',
        'Primary_Color',
        '',
      ]),
      {
        Product_ID: 'product_code',
        Product_Name: 'Product Name',
        Product_Brand: 'Brand',
        Gender: 'Department',
        Price: 'Selling Price',
        Primary_Color: 'Colour',
      },
    );
    assert.deepEqual(
      suggestMapping([
        'id',
        'gender',
        'masterCategory',
        'subCategory',
        'articleType',
        'baseColour',
        'season',
        'year',
        'usage',
        'productDisplayName',
      ]),
      {
        id: 'product_code',
        gender: 'Department',
        subCategory: 'Sub Category',
        articleType: 'Category',
        baseColour: 'Colour',
        season: 'Season',
        usage: 'Usage',
        productDisplayName: 'Product Name',
      },
    );
  });

  it('maps each field once (the first column wins) and leaves canonical names alone', () => {
    assert.deepEqual(suggestMapping(['SKU', 'id', 'Title', 'name', 'Category', 'type']), {
      SKU: 'product_code',
      Title: 'Product Name',
    });
  });

  it('suggests nothing without a code column, or when the file already names product_code', () => {
    assert.equal(suggestMapping(['hello world']), null);
    assert.equal(suggestMapping(['Title', 'Price']), null);
    assert.equal(suggestMapping(['product_code', 'Price']), null);
  });
});
