import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreVocabulary } from '../../src/catalog/vocabulary/store-vocabulary.js';
import { overridesOf } from '../../src/catalog/vocabulary/vocabulary-overrides.js';
import { StoreWords } from '../../src/modules/tagging/store-words.js';
import { ComplementsService } from '../../src/modules/complements/complements.service.js';
import { Tagger, TAGGER_FIELDS } from '../../src/vision/tagger.js';
import { StoreLabelModel } from '../../src/modules/tagging/store-model.js';

function wordsOf(language: string, products: Array<{ category: string; department: string; colour: string }>) {
  const vocabulary = new StoreVocabulary(
    overridesOf(null),
    new Set(Object.keys(ComplementsService.defaultTaxonomy().groups)),
    {},
    language,
  );
  for (const p of products) vocabulary.add({ ...p, subCategory: '', title: '' });
  return new StoreWords(vocabulary.report(), language);
}

describe('tagging: a prediction in the store’s own words', () => {
  it('offers the label the store already uses for the concept, the most used one first', () => {
    const words = wordsOf('en', [
      { category: 'T-shirt', department: 'Ladieswear', colour: 'Navy' },
      { category: 'T-shirt', department: 'Ladieswear', colour: 'Blue' },
      { category: 'Tees', department: 'Menswear', colour: 'Light Blue' },
    ]);
    assert.deepEqual(words.labelFor('type', 't-shirt'), { label: 'T-shirt', newLabel: false });
    assert.deepEqual(words.labelFor('audience', 'women'), { label: 'Ladieswear', newLabel: false });
    assert.deepEqual(words.labelFor('audience', 'men'), { label: 'Menswear', newLabel: false });
    // A colour: the label that is the family's own name comes before a shade more products carry.
    assert.deepEqual(words.labelFor('colour', 'blue'), { label: 'Blue', newLabel: false });
  });

  it('offers the built-in word, flagged new, where the store has no label for it, in the store’s language', () => {
    const en = wordsOf('en', [{ category: 'Jeans', department: 'Women', colour: 'Black' }]);
    assert.deepEqual(en.labelFor('type', 'dress'), { label: 'Dress', newLabel: true });
    assert.deepEqual(en.labelFor('colour', 'red'), { label: 'Red', newLabel: true });
    const fr = wordsOf('fr', [{ category: 'Jeans', department: 'Femme', colour: 'Noir' }]);
    assert.deepEqual(fr.labelFor('type', 'dress'), { label: 'Robe', newLabel: true });
    assert.deepEqual(fr.labelFor('audience', 'women'), { label: 'Femme', newLabel: false });
    assert.deepEqual(fr.labelFor('colour', 'red'), { label: 'Rouge', newLabel: true });
  });
});

describe('tagging: the shipped tagger', () => {
  it('reads the shipped model’s vectors only and gives each field a class with a probability', () => {
    const tagger = Tagger.load();
    assert.match(tagger.identity, /^tagger@[0-9a-f]{12}$/);
    assert.ok(tagger.reads(tagger.manifest.model));
    assert.ok(!tagger.reads('another-model@0123456789ab'));
    const vector = new Float32Array(tagger.manifest.dimensions).fill(1 / Math.sqrt(tagger.manifest.dimensions));
    const prediction = tagger.predict(vector);
    for (const field of TAGGER_FIELDS) {
      assert.ok(tagger.manifest.fields[field].classes.includes(prediction[field].value));
      assert.ok(prediction[field].confidence > 0 && prediction[field].confidence <= 1);
      assert.ok(tagger.defaultThreshold(field) > 0.5 && tagger.defaultThreshold(field) < 1);
    }
    assert.deepEqual(tagger.predict(vector), prediction, 'deterministic');
  });
});

describe('tagging: a store’s own labels learned from its own photos', () => {
  /** Unit vectors around a direction per label, with a little seeded noise. */
  function samples(labels: string[], perLabel: number) {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
    return labels.flatMap((label, k) =>
      Array.from({ length: perLabel }, () => {
        const vector = new Float32Array(16).map((_, j) => (j === k ? 1 : 0) + random() * 0.6);
        const norm = Math.hypot(...vector);
        return { vector: vector.map((x) => x / norm), label };
      }),
    );
  }

  it('needs enough labelled photos and two labels with a few photos each', () => {
    assert.equal(StoreLabelModel.fit(samples(['Sleep Bag', 'Divided'], 4)), undefined, 'too few per label');
    assert.equal(StoreLabelModel.fit(samples(['Sleep Bag'], 40)), undefined, 'one label');
  });

  it('reads a photo as the store’s own label, with a calibrated confidence and its leave-one-out accuracy', () => {
    const model = StoreLabelModel.fit(samples(['Sleep Bag', 'Divided', 'Essentials'], 30))!;
    assert.deepEqual(model.labels, ['Divided', 'Essentials', 'Sleep Bag']);
    assert.ok(model.accuracy > 0.8, `accuracy ${model.accuracy}`);
    const probe = new Float32Array(16);
    probe[0] = 1;
    const prediction = model.predict(probe);
    assert.equal(prediction.label, 'Sleep Bag');
    assert.ok(prediction.confidence > 0.5 && prediction.confidence <= 1);
  });
});
