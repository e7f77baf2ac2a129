import type { StorageHandle } from '../../storage/database.js';
import { InvalidInputError } from '../../errors.js';
import type { Store } from '../stores/store.js';
import type { StoresService } from '../stores/stores.service.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { ProductsService } from '../products/products.service.js';
import type { StoreVocabulary } from '../../catalog/vocabulary/store-vocabulary.js';
import { labelsOf } from '../../catalog/vocabulary/store-vocabulary.js';
import { productImageUrls } from '../../catalog/product-fields.js';
import { TAGGER_FIELDS, type Tagger, type TaggerField } from '../../vision/tagger.js';
import { PollingWorker, type WorkerErrorLog } from '../../jobs/workers.js';
import { MAX_NAME_LENGTH } from '../../catalog/limits.js';
import { FIELD_ATTRIBUTE, StoreWords } from './store-words.js';
import * as repo from './tagging.repository.js';
import { buildSuggestions } from './suggestion-builder.js';

/** A suggestion as the review queue lists it. */
export interface Suggestion {
  product_code: string;
  field: TaggerField;
  /** The label offered, in the store's words; null when the product's photo could not be read. */
  value: string | null;
  confidence: number;
  current_value: string | null;
  /** The store has no label for this yet: the built-in word is offered. */
  new_label: boolean;
  image_url: string | null;
  /** Why there is no value (the image failed or is not indexed yet). */
  reason?: string;
  /** The class predicted (garment concept, colour family, audience), for grouping. */
  predicted: string | null;
  /** reviewed suggestions only: what was decided. */
  decision?: string;
  /** What read the photo: the shipped tagger, or the store's own labelled photos (its own labels). */
  source?: 'tagger' | 'store';
}

export interface StoredImage {
  state: string;
  error: string | null;
  model: string | null;
  vector: Uint8Array | null;
  scale: number | null;
}

export interface TaggingSettings {
  auto_apply: Record<TaggerField, number | null>;
}

const NO_AUTO_APPLY: TaggingSettings = { auto_apply: { type: null, colour: null, audience: null } };

/**
 * Suggested type, colour and audience from each product's stored photo vector, said in the store's
 * own words, reviewed by people (accepted, corrected or rejected) or applied by a per-field
 * threshold to fields a product lacks.
 */
export class TaggingService {
  readonly autoApplier: PollingWorker;
  #cache: { key: string; suggestions: Suggestion[]; problems: Set<string> } | undefined;

  constructor(
    private readonly deps: {
      storage: StorageHandle;
      stores: StoresService;
      products: ProductsReadPort;
      writes: ProductsService;
      /** The store's vocabulary, nothing counted yet (the complements module's reading of its labels). */
      vocabularyOf: (store: Store) => StoreVocabulary;
      /** The stored images of these URLs (the visual module). */
      images: (storeId: string, urls: string[]) => Promise<Map<string, StoredImage>>;
      tagger: () => Tagger | undefined;
      onError?: WorkerErrorLog;
    },
  ) {
    this.autoApplier = new PollingWorker('tagging.auto_apply', 10_000, () => this.autoApplyAll(), deps.onError, {
      firstRunAfterMs: 10_000,
    });
  }

  /** Every suggestion of a store, most confident first (kept while the catalog and the reviews stand). */
  async #all(store: Store): Promise<{ suggestions: Suggestion[]; problems: Set<string> }> {
    const version = await repo.reviewsVersion(this.deps.storage.db, store.id);
    const key = `${store.id}\u0000${store.changeSeq}\u0000${version}`;
    if (this.#cache?.key === key) return this.#cache;
    this.#cache = { key, ...(await this.#compute(store)) };
    return this.#cache;
  }

  /**
   * Per failure reason, how many products in `problem` an open suggestion at the tagger's default
   * threshold would fix: a type suggestion fixes "Missing category".
   */
  async fixable(store: Store): Promise<Partial<Record<string, number>>> {
    const tagger = this.deps.tagger();
    if (!tagger) return {};
    const { suggestions, problems } = await this.#all(store);
    const threshold = tagger.defaultThreshold('type');
    const fixing = suggestions.filter(
      (s) =>
        s.field === 'type' &&
        s.value !== null &&
        !s.decision &&
        s.current_value === null &&
        s.confidence >= threshold &&
        problems.has(s.product_code),
    );
    return { 'Missing category': fixing.length };
  }

  async #compute(store: Store): Promise<{ suggestions: Suggestion[]; problems: Set<string> }> {
    const tagger = this.deps.tagger();
    const vocabulary = this.deps.vocabularyOf(store);
    const products: Array<{ code: string; attributes: Record<string, unknown>; url: string | null }> = [];
    const problems = new Set<string>();
    for await (const page of this.deps.products.pageAll(store.id, { pageSize: 2000 }))
      for (const product of page) {
        vocabulary.add(labelsOf(product.attributes));
        if (product.status === 'problem') problems.add(product.code);
        // The photo a suggestion reads: the product's first image.
        const url = productImageUrls(product.attributes)[0]?.[1] ?? null;
        products.push({ code: product.code, attributes: product.attributes, url });
      }
    const words = new StoreWords(vocabulary.report(), store.language);
    const images = await this.deps.images(
      store.id,
      products.flatMap((p) => (p.url ? [p.url] : [])),
    );
    const reviewed = new Map(
      (await repo.reviews(this.deps.storage.db, store.id)).map((r) => [
        `${r.product_code}\u0000${r.field}\u0000${r.image_url}`,
        r.decision,
      ]),
    );
    const out = buildSuggestions({ products, images, reviewed, tagger, vocabulary, words });
    return { suggestions: out, problems };
  }

  /** GET /v1/products/suggestions: open (not reviewed for the current photo) or reviewed ones, filtered and paged. */
  async list(
    store: Store,
    query: { field?: TaggerField; minConfidence: number; status: 'open' | 'reviewed'; offset: number; limit: number },
  ): Promise<{ items: Suggestion[]; total: number }> {
    const all = (await this.#all(store)).suggestions;
    const kept = all.filter(
      (s) =>
        (!query.field || s.field === query.field) &&
        (query.status === 'open' ? s.decision === undefined : s.decision !== undefined) &&
        (query.minConfidence > 0 ? s.value !== null && s.confidence >= query.minConfidence : true),
    );
    return { items: kept.slice(query.offset, query.offset + query.limit), total: kept.length };
  }

  /**
   * Accepts suggestions, as offered or corrected (`value`): each written as a product update (change
   * log, webhooks, quality checks and collections follow). An item fails alone: a product deleted
   * meanwhile, no suggestion and no value, or a value a product rule refuses.
   */
  async accept(store: Store, items: ReviewItem[], decision: 'accepted' | 'auto' = 'accepted') {
    const all = (await this.#all(store)).suggestions;
    const offered = new Map(all.filter((s) => s.value !== null).map((s) => [`${s.product_code}\u0000${s.field}`, s]));
    const failures: Array<{ product_code: string; field: string; reason: string }> = [];
    const updates = new Map<string, Record<string, unknown>>();
    const accepted: Array<{ item: ReviewItem; value: string; suggestion: Suggestion | undefined }> = [];
    for (const item of items) {
      const suggestion = offered.get(`${item.product_code}\u0000${item.field}`);
      const value = item.value ?? suggestion?.value ?? undefined;
      if (!value) {
        failures.push({ ...pick(item), reason: 'no suggestion for this product and field: give a value' });
        continue;
      }
      if (value.trim() === '' || value.length > MAX_NAME_LENGTH) {
        failures.push({ ...pick(item), reason: `a label is 1 to ${MAX_NAME_LENGTH} characters, not blank` });
        continue;
      }
      const update = updates.get(item.product_code) ?? { product_code: item.product_code };
      update[FIELD_ATTRIBUTE[item.field]] = value;
      updates.set(item.product_code, update);
      accepted.push({ item, value, suggestion });
    }
    const written = updates.size > 0 ? await this.deps.writes.updateProducts(store, [...updates.values()]) : undefined;
    const failedProducts = new Map(
      (written?.error_info ?? []).map((f) => [f.product_code, `${f.reason}: ${f.details}`]),
    );
    const now = new Date().toISOString();
    const rows = [];
    for (const { item, value, suggestion } of accepted) {
      const failed = failedProducts.get(item.product_code);
      if (failed !== undefined) {
        failures.push({ ...pick(item), reason: failed });
        continue;
      }
      rows.push({
        store_id: store.id,
        product_code: item.product_code,
        field: item.field,
        image_url: suggestion?.image_url ?? '',
        offered: suggestion?.value ?? '',
        confidence: suggestion?.confidence ?? 0,
        decision: decision === 'auto' ? 'auto' : suggestion && value === suggestion.value ? 'accepted' : 'corrected',
        value,
        reviewed_at: now,
      });
    }
    await repo.saveReviews(this.deps.storage.db, rows);
    return { accepted: rows.length, failed: failures.length, error_info: failures };
  }

  /** Rejects suggestions: not offered again for the product's current photo. */
  async reject(store: Store, items: ReviewItem[]) {
    const all = (await this.#all(store)).suggestions;
    const offered = new Map(all.filter((s) => s.value !== null).map((s) => [`${s.product_code}\u0000${s.field}`, s]));
    const failures: Array<{ product_code: string; field: string; reason: string }> = [];
    const now = new Date().toISOString();
    const rows = [];
    for (const item of items) {
      const suggestion = offered.get(`${item.product_code}\u0000${item.field}`);
      if (!suggestion) {
        failures.push({ ...pick(item), reason: 'no suggestion for this product and field' });
        continue;
      }
      rows.push({
        store_id: store.id,
        product_code: item.product_code,
        field: item.field,
        image_url: suggestion.image_url ?? '',
        offered: suggestion.value!,
        confidence: suggestion.confidence,
        decision: 'rejected',
        value: null,
        reviewed_at: now,
      });
    }
    await repo.saveReviews(this.deps.storage.db, rows);
    return { rejected: rows.length, failed: failures.length, error_info: failures };
  }

  /** A store's auto-apply thresholds, the tagger's defaults, and accuracy on what was reviewed. */
  async settings(storeUuid: string) {
    const store = await this.deps.stores.getStore(storeUuid);
    const tagger = this.deps.tagger();
    const counts = await repo.reviewCounts(this.deps.storage.db, store.id);
    const perField = <T>(of: (field: TaggerField) => T) =>
      Object.fromEntries(TAGGER_FIELDS.map((field) => [field, of(field)])) as Record<TaggerField, T>;
    const accuracy = perField((field) => {
      const n = (decision: string) => Number(counts.find((c) => c.field === field && c.decision === decision)?.n ?? 0);
      const [accepted, corrected, rejected, auto] = ['accepted', 'corrected', 'rejected', 'auto'].map(n);
      const reviewed = accepted + corrected + rejected;
      const precision = reviewed > 0 ? Math.round((accepted / reviewed) * 1000) / 1000 : null;
      return { accepted, corrected, rejected, auto, reviewed, precision };
    });
    return {
      store_uuid: store.id,
      ...(await this.#settingsOf(store.id)),
      default_thresholds: perField((field) => tagger?.defaultThreshold(field) ?? null),
      tagger: tagger?.identity ?? null,
      accuracy,
    };
  }

  async #settingsOf(storeId: string): Promise<TaggingSettings> {
    const raw = await this.deps.stores.taggingSettings(storeId);
    return raw ? (JSON.parse(raw) as TaggingSettings) : NO_AUTO_APPLY;
  }

  /** Replaces a store's auto-apply thresholds (a number in (0, 1] per field, or null: off). */
  async setSettings(storeUuid: string, body: { auto_apply?: Partial<Record<string, unknown>> }) {
    const store = await this.deps.stores.getStore(storeUuid);
    const autoApply = { ...NO_AUTO_APPLY.auto_apply };
    for (const [field, value] of Object.entries(body.auto_apply ?? {})) {
      if (!(TAGGER_FIELDS as readonly string[]).includes(field))
        throw new InvalidInputError(
          `auto_apply.${field}: not a field the tagger predicts (${TAGGER_FIELDS.join(', ')})`,
          `auto_apply.${field}`,
        );
      if (value !== null && (typeof value !== 'number' || !(value > 0 && value <= 1)))
        throw new InvalidInputError(
          `auto_apply.${field} must be a confidence in (0, 1] or null (off)`,
          `auto_apply.${field}`,
        );
      autoApply[field as TaggerField] = value;
    }
    const on = Object.values(autoApply).some((v) => v !== null);
    await this.deps.stores.saveTaggingSettings(store.id, on ? JSON.stringify({ auto_apply: autoApply }) : null);
    if (on) await this.autoApply(await this.deps.stores.getStore(storeUuid));
    return this.settings(storeUuid);
  }

  /** Fills, above each field's threshold, the fields products lack; never a merchandiser's value. */
  async autoApply(store: Store): Promise<number> {
    const { auto_apply: thresholds } = await this.#settingsOf(store.id);
    const items = (await this.#all(store)).suggestions
      .filter((s) => {
        const threshold = thresholds[s.field];
        return (
          threshold !== null && s.value !== null && s.current_value === null && !s.decision && s.confidence >= threshold
        );
      })
      .map((s) => ({ product_code: s.product_code, field: s.field }));
    if (items.length === 0) return 0;
    return (await this.accept(store, items, 'auto')).accepted;
  }

  async autoApplyAll(): Promise<void> {
    for (const storeId of await this.deps.stores.storesWithTagging())
      await this.autoApply(await this.deps.stores.getStore(storeId));
  }
}

export interface ReviewItem {
  product_code: string;
  field: TaggerField;
  value?: string;
}

const pick = (item: ReviewItem) => ({ product_code: item.product_code, field: item.field });
