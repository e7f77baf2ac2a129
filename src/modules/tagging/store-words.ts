import type { StoreVocabulary } from '../../catalog/vocabulary/store-vocabulary.js';
import { languageData } from '../../languages/languages.js';
import type { TaggerField } from '../../vision/tagger.js';

/** The product attribute each predicted field fills. */
export const FIELD_ATTRIBUTE: Record<TaggerField, string> = {
  type: 'Category',
  colour: 'Colour',
  audience: 'Department',
};

const capitalised = (text: string) => (text ? text[0].toUpperCase() + text.slice(1) : text);

/**
 * How a store says each predicted class: the label of its own catalog that the vocabulary reads as
 * that garment concept, colour family or audience (the one most products carry; for a colour, the
 * label that is the family's own name first), else the built-in word in the store's language, flagged
 * as a label the store does not use yet.
 */
export class StoreWords {
  readonly #labels: Record<TaggerField, Map<string, string>>;

  constructor(
    report: ReturnType<StoreVocabulary['report']>,
    private readonly language: string,
  ) {
    const best = (rows: Array<{ label: string; products: number; key: string | null; exact?: boolean }>) => {
      const out = new Map<string, { label: string; products: number; exact: boolean }>();
      for (const row of rows) {
        if (!row.key || !row.label.trim()) continue;
        const current = out.get(row.key);
        const exact = row.exact ?? false;
        if (!current || (exact && !current.exact) || (exact === current.exact && row.products > current.products))
          out.set(row.key, { label: row.label, products: row.products, exact });
      }
      return new Map([...out].map(([key, value]) => [key, value.label]));
    };
    this.#labels = {
      type: best(report.categories.map((c) => ({ label: c.label, products: c.products, key: c.concept }))),
      colour: best(
        report.colours.map((c) => ({
          label: c.label,
          products: c.products,
          key: c.family,
          exact: c.label.trim().toLowerCase() === c.family,
        })),
      ),
      audience: best(
        report.departments.map((d) => ({
          label: d.label,
          products: d.products,
          key: d.audience && !d.audience.startsWith('label:') ? d.audience : null,
        })),
      ),
    };
  }

  /** The label to offer for a predicted class, and whether the store has none for it yet. */
  labelFor(field: TaggerField, value: string): { label: string; newLabel: boolean } {
    const own = this.#labels[field].get(value);
    if (own) return { label: own, newLabel: false };
    return { label: capitalised(this.#builtIn(field, value)), newLabel: true };
  }

  #builtIn(field: TaggerField, value: string): string {
    if (this.language === 'en') return value;
    const data = languageData(this.language);
    const list =
      field === 'type'
        ? data.garments[value]
        : field === 'colour'
          ? data.colours[value as never]
          : data.audiences[value as never];
    return list?.split(',')[0]?.trim() || value;
  }
}
