import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { audiencesFit, resolveAudience } from '../../src/catalog/vocabulary/audiences.js';
import {
  conceptOfTitle,
  isGenericLabel,
  resolveCategoryLabel,
  vocabularyConflicts,
  vocabularySize,
} from '../../src/catalog/vocabulary/categories.js';
import { resolveColour } from '../../src/catalog/vocabulary/colours.js';
import { labelKey } from '../../src/catalog/vocabulary/labels.js';
import { queryConceptTokens } from '../../src/catalog/vocabulary/search-words.js';
import { StoreVocabulary } from '../../src/catalog/vocabulary/store-vocabulary.js';
import { parseOverrides } from '../../src/catalog/vocabulary/vocabulary-overrides.js';
import { InvalidInputError } from '../../src/errors.js';

const taxonomy = JSON.parse(
  fs.readFileSync(new URL('../../../src/modules/complements/fashion-taxonomy.json', import.meta.url), 'utf8'),
) as { groups: Record<string, string[]> };
const GROUPS = new Set(Object.keys(taxonomy.groups));
const groupOf = (label: string) => resolveCategoryLabel(label)?.group;

describe('catalog vocabulary: categories', () => {
  it('folds case, punctuation, separators and plurals', () => {
    for (const label of ['T-Shirts', 'Tshirts', 'T-shirt', 'Tees', 't shirt', 'T-SHIRTS', 'tshirt'])
      assert.equal(resolveCategoryLabel(label)?.concept, 't-shirt', label);
    assert.equal(labelKey('Flip-Flops'), labelKey('flip flop'));
    assert.equal(resolveCategoryLabel('Tshirts')?.how, 'exact');
    assert.equal(resolveCategoryLabel('T-SHIRTS')?.how, 'exact', 'case alone is still exact');
    assert.equal(resolveCategoryLabel('T.Shirts')?.how, 'folded');
    assert.equal(groupOf('Hat/beanie'), 'HEADWEAR');
    assert.equal(groupOf('Shirts & Tops'), 'TOPWEAR');
    assert.equal(groupOf('Hair/alice band'), 'HEADWEAR', 'a tie goes to the more specific part');
    for (const [label, group] of [
      ['Tops & T-Shirts', 'TOPWEAR'],
      ['Hoodies & Sweatshirts', 'TOPWEAR'],
      ['Coats & Jackets', 'OUTERWEAR'],
      ['Jumpsuits & Playsuits', 'DRESSES'],
      ['Bags & Purses', 'BAGS'],
      ["Men's Shirts", 'TOPWEAR'],
      ['Mules & Clogs', 'FOOTWEAR'],
      ['Gloves & Mittens', 'SCARVES & STOLES'],
    ])
      assert.equal(groupOf(label), group, label);
  });

  it('falls back to the head word, and a domain word decides the group', () => {
    assert.deepEqual(resolveCategoryLabel('Outdoor trousers')?.group, 'BOTTOMWEAR');
    assert.deepEqual(resolveCategoryLabel('Slim Fit Stretch Chinos'), {
      concept: 'trousers',
      group: 'BOTTOMWEAR',
      how: 'head word',
    });
    assert.equal(groupOf('Swimwear bottom'), 'SWIMWEAR');
    assert.equal(groupOf('Underwear bottom'), 'INNERWEAR');
    assert.equal(groupOf('Pyjama bottom'), 'NIGHTWEAR');
    assert.equal(groupOf('Thermal leggings'), 'INNERWEAR');
  });

  it('knows hundreds of labels, none folding to two concepts, and every label of the shipped taxonomy in its group', () => {
    assert.ok(vocabularySize() > 1000, `${vocabularySize()} labels`);
    assert.deepEqual(vocabularyConflicts(), []);
    for (const [group, labels] of Object.entries(taxonomy.groups))
      for (const label of labels) {
        const resolved = resolveCategoryLabel(label)?.group ?? (isGenericLabel(label) ? group : undefined);
        assert.equal(resolved, group, label);
      }
  });

  it('leaves generic labels to each product, and reads titles for the garment', () => {
    for (const label of ['Accessories', 'Footwear', 'Outerwear', 'Knitwear', 'Clothing', '', '   '])
      assert.ok(isGenericLabel(label), label);
    assert.equal(conceptOfTitle('SPYKAR Women Pink Alexa Super Skinny Fit Cropped Jeans')?.concept, 'jeans');
    assert.equal(conceptOfTitle('EthnoVogue Women Made to Measure Kurta Set with Jacket')?.concept, 'kurta set');
    assert.equal(conceptOfTitle('Lakme 9 to 5 Primer + Matte Lipstick - Red Coat 3.6 g')?.group, 'MAKEUP');
    assert.equal(conceptOfTitle('Roadster Men Navy Blue Printed Round Neck T-shirt')?.concept, 't-shirt');
    assert.equal(conceptOfTitle('Nothing to see here'), undefined);
  });

  it('survives empty, numeric, long, accented and emoji labels', () => {
    assert.equal(resolveCategoryLabel(''), undefined);
    assert.equal(resolveCategoryLabel('12345'), undefined);
    assert.equal(resolveCategoryLabel('x'.repeat(500)), undefined);
    assert.equal(
      resolveCategoryLabel(`${'very '.repeat(100)}dresses`),
      undefined,
      'cut at 120 characters: no head word left',
    );
    assert.equal(groupOf('Élégant Sandals'), 'FOOTWEAR');
    assert.equal(groupOf('👗 Dresses'), 'DRESSES');
    assert.equal(groupOf('JEANS'), 'BOTTOMWEAR');
  });
});

describe('catalog vocabulary: audiences and colours', () => {
  it('resolves any common department label to an audience, and an unknown one to its own', () => {
    const cases: Record<string, string> = {
      Ladieswear: 'women',
      Womens: 'women',
      Ladies: 'women',
      Female: 'women',
      Menswear: 'men',
      Mens: 'men',
      'Baby/Children': 'kids',
      Kids: 'kids',
      'Unisex Kids': 'kids',
      Unisex: 'unisex',
      Boys: 'boys',
      Girls: 'girls',
      'Men & Women': 'unisex',
      "Women's": 'women',
      'Teen Girls': 'girls',
      'Toddler Boys': 'boys',
      'Gender Neutral': 'unisex',
      'Baby Sizes 50-98': 'baby',
    };
    for (const [label, audience] of Object.entries(cases))
      assert.equal(resolveAudience(label).audience, audience, label);
    assert.equal(resolveAudience('Divided').audience, 'label:divided');
    assert.equal(resolveAudience('').audience, '');
  });

  it('never puts women with men, nor children with adults; unisex goes with both', () => {
    assert.ok(audiencesFit('women', 'unisex') && audiencesFit('unisex', 'men'));
    assert.ok(!audiencesFit('women', 'men'));
    assert.ok(!audiencesFit('boys', 'men') && !audiencesFit('kids', 'unisex') && !audiencesFit('girls', 'boys'));
    assert.ok(audiencesFit('kids', 'girls') && audiencesFit('baby', 'kids'));
    assert.ok(!audiencesFit('label:divided', 'women') && audiencesFit('label:divided', 'label:divided'));
  });

  it('resolves colour labels to a family and a lightness', () => {
    const cases: Array<[string, string, string]> = [
      ['Greenish Khaki', 'green', 'light'],
      ['Light Turquoise', 'blue', 'light'],
      ['Other Pink', 'pink', 'light'],
      ['Off White', 'white', 'light'],
      ['Melange Grey', 'grey', 'medium'],
      ['Dark Red', 'red', 'dark'],
      ['Navy Blue', 'blue', 'dark'],
      ['OLIVE', 'green', 'medium'],
      ['Dark Wash', 'blue', 'dark'],
      ['Leopard', 'multi', 'medium'],
    ];
    for (const [label, family, lightness] of cases) {
      const resolved = resolveColour(label);
      assert.deepEqual([resolved.family, resolved.lightness], [family, lightness], label);
    }
    assert.ok(resolveColour('Navy Blue').neutral && !resolveColour('Red').neutral);
    assert.equal(resolveColour('Unknown').how, 'unplaced');
    assert.deepEqual(queryConceptTokens('ladies'), ['0women']);
    assert.deepEqual(queryConceptTokens('gray'), ['0grey']);
    assert.deepEqual(queryConceptTokens('olive'), [], 'a shade is matched by its own word, not widened to its family');
  });
});

describe('catalog vocabulary: a store', () => {
  const product = (category: string, title: string, subCategory = '') => ({
    category,
    subCategory,
    title,
    department: 'Women',
    colour: 'Black',
  });

  it('places unknown labels by Sub Category, then by the majority of titles, else unplaced', () => {
    const vocabulary = new StoreVocabulary({ categories: {}, departments: {}, colours: {} }, GROUPS);
    vocabulary.add(product('Zorblats', 'A thing', 'Topwear'));
    vocabulary.add(product('Zorblats', 'Another thing', 'Topwear'));
    vocabulary.add(product('Glimmers', 'Glimmer Party Dress'));
    vocabulary.add(product('Glimmers', 'Glimmer Maxi Dress'));
    vocabulary.add(product('Glimmers', 'Glimmer Sandals'));
    vocabulary.add(product('Nothings', 'Nothing at all'));
    assert.deepEqual(vocabulary.category('Zorblats'), { concept: 'topwear', group: 'TOPWEAR', how: 'sub category' });
    assert.deepEqual(vocabulary.category('Glimmers'), { concept: 'dress', group: 'DRESSES', how: 'titles' });
    assert.equal(vocabulary.category('Nothings').how, 'unplaced');
    assert.equal(vocabulary.place(product('Accessories', 'Leather Belt')).group, 'BELTS');
    assert.equal(
      vocabulary.place(product('Accessories', 'Mystery object')).group,
      'ACCESSORIES',
      'the generic label’s own group',
    );
    const report = vocabulary.report();
    assert.equal(report.categories[0].label, 'Glimmers');
    assert.equal(report.categories[0].products, 3);
  });

  it('applies overrides before anything else, also for labels it has not seen yet', () => {
    const overrides = parseOverrides(
      {
        categories: { 'sleep bag': 'nightwear', Misc: 'unplaced' },
        departments: { Divided: 'Women' },
        colours: { Mole: 'dark brown' },
      },
      [...GROUPS],
    );
    const vocabulary = new StoreVocabulary(overrides, GROUPS);
    assert.deepEqual(vocabulary.category('Sleep Bags'), { concept: 'nightwear', group: 'NIGHTWEAR', how: 'override' });
    assert.equal(vocabulary.category('Misc').group, '');
    assert.deepEqual(vocabulary.audience('DIVIDED'), { audience: 'women', how: 'override' });
    assert.deepEqual([vocabulary.colour('Mole').family, vocabulary.colour('Mole').lightness], ['brown', 'dark']);
    const other = new StoreVocabulary(parseOverrides({ departments: { Divided: 'men' } }, [...GROUPS]), GROUPS);
    assert.equal(other.audience('Divided').audience, 'men', 'each store its own overrides');
  });

  it('refuses overrides naming what does not exist, naming the field', () => {
    const refused = (input: unknown, field: RegExp) =>
      assert.throws(
        () => parseOverrides(input, [...GROUPS]),
        (error: unknown) => error instanceof InvalidInputError && field.test(`${error.field} ${error.message}`),
      );
    refused({ categories: { 'Sleep Bag': 'PYJAMA PARTY' } }, /categories\.Sleep Bag.*PYJAMA PARTY/);
    refused({ departments: { Divided: 'teens' } }, /departments\.Divided.*teens/);
    refused({ colours: { Mole: 'mouse' } }, /colours\.Mole.*mouse/);
    refused({ categories: { '   ': 'TOPWEAR' } }, /categories/);
    refused({ categories: { ['x'.repeat(501)]: 'TOPWEAR' } }, /at most 500/);
    refused({ colors: {} }, /colors/);
    refused([], /body/);
  });
});
