import { textOf } from '../product-fields.js';
import { resolveAudience, type AudienceResolution } from './audiences.js';
import {
  conceptOfTitle,
  genericFallback,
  isGenericLabel,
  resolveCategoryLabel,
  type CategoryHow,
} from './categories.js';
import { resolveColour, type ColourResolution } from './colours.js';
import { labelKey, tidyLabel } from './labels.js';
import { overridesOf, parseColourOverride, UNPLACED, type VocabularyOverrides } from './vocabulary-overrides.js';
import { readingOrder } from '../../languages/languages.js';

/** The labels a product carries that the vocabulary reads. */
export interface ProductLabels {
  category: string;
  subCategory: string;
  title: string;
  department: string;
  colour: string;
}

export interface Placement {
  concept: string;
  /** The complement group, '' when unplaced. */
  group: string;
  how: CategoryHow;
}

const UNPLACED_PLACEMENT: Placement = { concept: '', group: '', how: 'unplaced' };

interface LabelStats {
  label: string;
  products: number;
  /** Votes of the products' Sub Category, by group. */
  subCategoryVotes: Map<string, number>;
  /** Votes of the products' titles, by group, then concept. */
  titleVotes: Map<string, Map<string, number>>;
  /** Products placed per group (generic labels, resolved per product). */
  placed: Map<string, number>;
}

const bump = <K>(map: Map<K, number>, key: K, by: number) => {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
};

/** The plurality of votes when it holds at least half of them. */
function majority(votes: Map<string, number>): string | undefined {
  let total = 0;
  let best: [string, number] | undefined;
  for (const [key, count] of votes) {
    total += count;
    if (!best || count > best[1] || (count === best[1] && key < best[0])) best = [key, count];
  }
  return best && best[1] * 2 >= total ? best[0] : undefined;
}

/**
 * A store's catalog vocabulary: the built-in one (categories.ts, audiences.ts, colours.ts), the
 * store's overrides and taxonomy, and what its own products say — the Sub Category and title words
 * of the products under a label the vocabulary does not know. Products are added and removed as
 * the catalog changes; label resolutions are cached and recomputed when their label's products change.
 */
export class StoreVocabulary {
  readonly #categories = new Map<string, LabelStats>();
  readonly #departments = new Map<string, { label: string; products: number }>();
  readonly #colours = new Map<string, { label: string; products: number }>();
  readonly #resolved = new Map<string, Placement>();
  readonly #static = new Map<string, Placement | null>();
  readonly #categoryOverrides: Map<string, string>;
  readonly #departmentOverrides: Map<string, string>;
  readonly #colourOverrides: Map<string, string>;
  readonly #taxonomyLabels: Map<string, string>;
  /** The languages labels are read in: the store's first. */
  readonly #order: readonly string[];

  /**
   * @param groups the groups of the store's complement taxonomy (a placement elsewhere is unplaced)
   * @param taxonomyLabels a custom taxonomy's own label lists (group -> labels), which come before the built-in vocabulary
   * @param language the store's catalog language: its words first, then English's, then the others'
   */
  constructor(
    readonly overrides: VocabularyOverrides,
    private readonly groups: ReadonlySet<string>,
    taxonomyLabels: Record<string, string[]> = {},
    readonly language = 'en',
  ) {
    this.#order = readingOrder(language);
    const keyed = (record: Record<string, string>) =>
      new Map(Object.entries(record).map(([label, value]) => [labelKey(label), value] as const));
    this.#categoryOverrides = keyed(overrides.categories);
    this.#departmentOverrides = keyed(overrides.departments);
    this.#colourOverrides = keyed(overrides.colours);
    this.#taxonomyLabels = new Map(
      Object.entries(taxonomyLabels).flatMap(([group, labels]) =>
        labels.map((label) => [labelKey(label), group] as const),
      ),
    );
  }

  /** Whether any counted product carries this category label. */
  hasCategory(label: string): boolean {
    return this.#categories.has(labelKey(label));
  }

  /** Counts a product's labels and votes (call `remove` with the same labels when it leaves). */
  add(product: ProductLabels) {
    this.#count(product, 1);
  }

  remove(product: ProductLabels) {
    this.#count(product, -1);
  }

  #count(product: ProductLabels, by: 1 | -1) {
    const key = labelKey(product.category);
    let stats = this.#categories.get(key);
    if (!stats) {
      if (by < 0) return;
      stats = {
        label: tidyLabel(product.category),
        products: 0,
        subCategoryVotes: new Map(),
        titleVotes: new Map(),
        placed: new Map(),
      };
      this.#categories.set(key, stats);
    }
    stats.products += by;
    // Sub Category and title votes only matter where the label alone does not place the product.
    if (!this.#staticPlacement(product.category)) {
      const sub = product.subCategory ? this.#staticPlacement(product.subCategory) : undefined;
      if (sub?.group) bump(stats.subCategoryVotes, sub.group, by);
      const title = conceptOfTitle(product.title, this.#order);
      if (title && this.groups.has(title.group)) {
        let concepts = stats.titleVotes.get(title.group);
        if (!concepts) stats.titleVotes.set(title.group, (concepts = new Map()));
        bump(concepts, title.concept, by);
        if (concepts.size === 0) stats.titleVotes.delete(title.group);
      }
      this.#resolved.delete(key);
    }
    if (stats.products <= 0) {
      this.#categories.delete(key);
      this.#resolved.delete(key);
    }
    // Whether a label is placed per product does not depend on its products: the tally stays in step.
    if (this.category(product.category).how === 'per product') bump(stats.placed, this.place(product).group, by);
    this.#tally(this.#departments, product.department, by);
    this.#tally(this.#colours, product.colour, by);
  }

  #tally(map: Map<string, { label: string; products: number }>, label: string, by: number) {
    const key = labelKey(label);
    if (!key) return;
    const entry = map.get(key) ?? { label: tidyLabel(label), products: 0 };
    entry.products += by;
    if (entry.products > 0) map.set(key, entry);
    else map.delete(key);
  }

  /** Override, custom taxonomy or built-in vocabulary: what a label says without looking at products. */
  #staticPlacement(label: string): Placement | undefined {
    const key = labelKey(label);
    const cached = this.#static.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const placement = this.#staticUncached(label, key);
    this.#static.set(key, placement ?? null);
    return placement;
  }

  #staticUncached(label: string, key: string): Placement | undefined {
    const override = this.#categoryOverrides.get(key);
    if (override !== undefined)
      return override === UNPLACED
        ? { ...UNPLACED_PLACEMENT, how: 'override' }
        : { concept: override.toLowerCase(), group: override, how: 'override' };
    const listed = this.#taxonomyLabels.get(key);
    if (listed) return { concept: tidyLabel(label).toLowerCase(), group: listed, how: 'taxonomy' };
    const match = resolveCategoryLabel(label, this.#order);
    return match && this.groups.has(match.group) ? match : undefined;
  }

  /**
   * Where a category label places its products: override, taxonomy, exact, folded, head word; for a
   * generic label "per product"; else the majority of its products' Sub Category, then of their
   * titles; else unplaced.
   */
  category(label: string): Placement {
    const key = labelKey(label);
    const cached = this.#resolved.get(key);
    if (cached) return cached;
    let placement = this.#staticPlacement(label);
    if (!placement) {
      const stats = this.#categories.get(key);
      const sub = stats && majority(stats.subCategoryVotes);
      const titleGroup =
        stats &&
        majority(new Map([...stats.titleVotes].map(([g, c]) => [g, [...c.values()].reduce((a, b) => a + b, 0)])));
      if (isGenericLabel(label)) placement = { concept: '', group: '', how: 'per product' };
      else if (sub) placement = { concept: sub.toLowerCase(), group: sub, how: 'sub category' };
      else if (titleGroup) {
        const concepts = stats.titleVotes.get(titleGroup)!;
        const concept = [...concepts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
        placement = { concept, group: titleGroup, how: 'titles' };
      } else placement = UNPLACED_PLACEMENT;
    }
    this.#resolved.set(key, placement);
    return placement;
  }

  /** Where one product goes: its label's placement, or for generic and missing labels its title, Sub Category, then the label's own group. */
  place(product: Pick<ProductLabels, 'category' | 'subCategory' | 'title'>): Placement {
    const byLabel = this.category(product.category);
    if (byLabel.how !== 'per product') return byLabel;
    const title = conceptOfTitle(product.title, this.#order);
    if (title && this.groups.has(title.group)) return { ...title, how: 'titles' };
    const sub = product.subCategory ? this.#staticPlacement(product.subCategory) : undefined;
    if (sub?.group) return { ...sub, how: 'sub category' };
    const fallback = genericFallback(product.category);
    return fallback && this.groups.has(fallback)
      ? { concept: fallback.toLowerCase(), group: fallback, how: 'folded' }
      : UNPLACED_PLACEMENT;
  }

  audience(department: string): AudienceResolution {
    const override = this.#departmentOverrides.get(labelKey(department));
    return override ? { audience: override, how: 'override' } : resolveAudience(department, this.#order);
  }

  colour(colour: string): ColourResolution {
    const override = this.#colourOverrides.get(labelKey(colour));
    if (override) {
      const { family, lightness } = parseColourOverride(override)!;
      return { family, lightness: lightness ?? 'medium', neutral: resolveColour(override).neutral, how: 'override' };
    }
    return resolveColour(colour, this.#order);
  }

  /** Every label of the store with its product count and what it resolved to, most products first. */
  report() {
    const byCount = <T extends { products: number; label: string }>(a: T, b: T) =>
      b.products - a.products || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);
    return {
      categories: [...this.#categories.values()]
        .map((stats) => {
          const placement = this.category(stats.label);
          return {
            label: stats.label,
            products: stats.products,
            concept: placement.concept || null,
            group: placement.group || null,
            how: placement.how,
            ...(placement.how === 'per product'
              ? { groups: Object.fromEntries([...stats.placed].map(([g, n]) => [g || UNPLACED, n])) }
              : {}),
          };
        })
        .sort(byCount),
      departments: [...this.#departments.values()]
        .map(({ label, products }) => {
          const resolved = this.audience(label);
          return {
            label,
            products,
            audience: resolved.how === 'unplaced' ? null : resolved.audience,
            how: resolved.how,
          };
        })
        .sort(byCount),
      colours: [...this.#colours.values()]
        .map(({ label, products }) => {
          const resolved = this.colour(label);
          return {
            label,
            products,
            family: resolved.family || null,
            lightness: resolved.family ? resolved.lightness : null,
            neutral: resolved.neutral,
            how: resolved.how,
          };
        })
        .sort(byCount),
    };
  }
}

/** The labels the vocabulary reads from a product's attributes. */
export function labelsOf(attributes: Record<string, unknown>): ProductLabels {
  return {
    category: textOf(attributes.Category),
    subCategory: textOf(attributes['Sub Category']),
    title: textOf(attributes['Product Name']),
    department: textOf(attributes.Department),
    colour: textOf(attributes.Colour),
  };
}

const byOverrides = new Map<string, StoreVocabulary>();

/**
 * A vocabulary for reading single products' departments and colours (search documents, collection
 * filters): the store's overrides and language, no product counts. Shared per overrides and language.
 */
export function vocabularyForStore(store: { vocabularyOverrides: string | null; language: string }): StoreVocabulary {
  const key = `${store.language}\u0000${store.vocabularyOverrides ?? ''}`;
  let vocabulary = byOverrides.get(key);
  if (!vocabulary) {
    if (byOverrides.size > 256) byOverrides.clear();
    vocabulary = new StoreVocabulary(overridesOf(store.vocabularyOverrides), new Set(), {}, store.language);
    byOverrides.set(key, vocabulary);
  }
  return vocabulary;
}
