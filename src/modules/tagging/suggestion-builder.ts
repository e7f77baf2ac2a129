import type { StoreVocabulary } from '../../catalog/vocabulary/store-vocabulary.js';
import { labelsOf } from '../../catalog/vocabulary/store-vocabulary.js';
import { textOf } from '../../catalog/product-fields.js';
import { TAGGER_FIELDS, type TagPrediction, type Tagger, type TaggerField } from '../../vision/tagger.js';
import { FIELD_ATTRIBUTE, type StoreWords } from './store-words.js';
import { MIN_LABELLED, StoreLabelModel } from './store-model.js';
import type { StoredImage, Suggestion } from './tagging.service.js';

interface Input {
  products: Array<{ code: string; attributes: Record<string, unknown>; url: string | null }>;
  images: Map<string, StoredImage>;
  /** Decisions by `code \0 field \0 image URL`. */
  reviewed: Map<string, string>;
  tagger: Tagger | undefined;
  vocabulary: StoreVocabulary;
  words: StoreWords;
}

/** What a product's current value means to the vocabulary: its garment concept, colour family or audience. */
function meaning(vocabulary: StoreVocabulary, field: TaggerField, label: string, attributes: Record<string, unknown>) {
  if (field === 'type') return vocabulary.place(labelsOf(attributes)).concept;
  if (field === 'colour') return vocabulary.colour(label).family;
  return vocabulary.audience(label).audience;
}

/**
 * Every suggestion of a store: each product's photo vector read by the shipped tagger, said in the
 * store's words; for a field where the store's own labelled photos predict its own labels better (leave
 * one out) than the tagger does, the products lacking it are read by the store's own model instead.
 */
export function buildSuggestions({ products, images, reviewed, tagger, vocabulary, words }: Input): Suggestion[] {
  const out: Suggestion[] = [];
  const current = (attributes: Record<string, unknown>, field: TaggerField) =>
    textOf(attributes[FIELD_ATTRIBUTE[field]]) || null;
  const readable: Array<{
    product: Input['products'][number];
    vector: Float32Array;
    global: Record<TaggerField, TagPrediction>;
  }> = [];
  for (const product of products) {
    if (!product.url) continue;
    const image = images.get(product.url);
    let reason: string | undefined;
    if (!tagger) reason = 'no tagger model is installed';
    else if (!image || image.state === 'pending') reason = 'the photo is not indexed yet';
    else if (image.state === 'failed' || !image.vector || image.scale === null)
      reason = `the photo could not be indexed: ${image.error ?? image.state}`;
    else if (!image.model || !tagger.reads(image.model))
      reason = `the photo was indexed by ${image.model ?? 'no model'}, which the tagger does not read`;
    if (reason !== undefined || !tagger || !image?.vector) {
      for (const field of TAGGER_FIELDS)
        out.push({
          product_code: product.code,
          field,
          value: null,
          confidence: 0,
          current_value: current(product.attributes, field),
          new_label: false,
          image_url: product.url,
          reason: reason ?? 'the photo could not be read',
          predicted: null,
        });
      continue;
    }
    const zeroPoint = tagger.manifest.zero_point;
    const scale = image.scale!;
    const vector = Float32Array.from(image.vector, (c) => (c - zeroPoint) * scale);
    readable.push({ product, vector, global: tagger.predict(vector) });
  }
  const own = storeModels(readable, words, current);
  for (const { product, vector, global } of readable) {
    for (const field of TAGGER_FIELDS) {
      const currentValue = current(product.attributes, field);
      const decision = reviewed.get(`${product.code}\u0000${field}\u0000${product.url}`);
      const model = own[field];
      if (model && currentValue === null) {
        const { label, confidence } = model.predict(vector);
        out.push({
          product_code: product.code,
          field,
          value: label,
          confidence: Math.round(confidence * 1000) / 1000,
          current_value: null,
          new_label: false,
          image_url: product.url,
          predicted: label,
          source: 'store',
          ...(decision ? { decision } : {}),
        });
        continue;
      }
      const { value, confidence } = global[field];
      // Nothing to suggest where the product already says it, in whatever words (a reviewed one stays listed).
      const said = currentValue && meaning(vocabulary, field, currentValue, product.attributes) === value;
      if (said && !decision) continue;
      const { label, newLabel } = words.labelFor(field, value);
      out.push({
        product_code: product.code,
        field,
        value: label,
        confidence: Math.round(confidence * 1000) / 1000,
        current_value: currentValue,
        new_label: newLabel,
        image_url: product.url,
        predicted: value,
        source: 'tagger',
        ...(decision ? { decision } : {}),
      });
    }
  }
  return out.sort(
    (a, b) =>
      b.confidence - a.confidence ||
      (a.product_code < b.product_code ? -1 : a.product_code > b.product_code ? 1 : 0) ||
      TAGGER_FIELDS.indexOf(a.field) - TAGGER_FIELDS.indexOf(b.field),
  );
}

/**
 * Per field, the store's own model when its labelled photos are enough and it reads them better than
 * the shipped tagger said in the store's words (both judged on those photos, the store's model leaving
 * each photo out of its own label's mean).
 */
function storeModels(
  readable: Array<{
    product: Input['products'][number];
    vector: Float32Array;
    global: Record<TaggerField, TagPrediction>;
  }>,
  words: StoreWords,
  current: (attributes: Record<string, unknown>, field: TaggerField) => string | null,
): Partial<Record<TaggerField, StoreLabelModel>> {
  const models: Partial<Record<TaggerField, StoreLabelModel>> = {};
  for (const field of TAGGER_FIELDS) {
    const labelled = readable.flatMap((r) => {
      const label = current(r.product.attributes, field);
      return label ? [{ ...r, label }] : [];
    });
    if (labelled.length < MIN_LABELLED) continue;
    const model = StoreLabelModel.fit(labelled.map((r) => ({ vector: r.vector, label: r.label })));
    if (!model) continue;
    const fold = (text: string) => text.trim().toLowerCase();
    const tagger =
      labelled.filter((r) => fold(words.labelFor(field, r.global[field].value).label) === fold(r.label)).length /
      labelled.length;
    if (model.accuracy > tagger) models[field] = model;
  }
  return models;
}
