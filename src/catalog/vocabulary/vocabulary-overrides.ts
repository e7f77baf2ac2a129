import { InvalidInputError } from '../../errors.js';
import { AUDIENCES, isKnownAudience } from './audiences.js';
import { COLOUR_FAMILIES, type ColourFamily, type Lightness } from './colours.js';
import { labelKey, tidyLabel } from './labels.js';
import { MAX_OVERRIDES, MAX_OVERRIDE_LABEL } from '../limits.js';

/** A store's own words for its labels, set by a merchandiser (PUT /admin/v1/stores/{uuid}/vocabulary). */
export interface VocabularyOverrides {
  /** Category label -> complement group (or "UNPLACED" to keep a label out of complete the look). */
  categories: Record<string, string>;
  /** Department label -> audience. */
  departments: Record<string, string>;
  /** Colour label -> colour family, optionally with a lightness ("light green"). */
  colours: Record<string, string>;
}

export const EMPTY_OVERRIDES: VocabularyOverrides = { categories: {}, departments: {}, colours: {} };
export const UNPLACED = 'UNPLACED';

/** A store's overrides column (JSON or null) as overrides. */
export function overridesOf(overridesJson: string | null): VocabularyOverrides {
  return overridesJson ? (JSON.parse(overridesJson) as VocabularyOverrides) : EMPTY_OVERRIDES;
}

/** A colour override's value: a family, optionally after light, medium or dark. */
export function parseColourOverride(value: string): { family: ColourFamily; lightness?: Lightness } | undefined {
  const words = value.trim().toLowerCase().split(/\s+/);
  const family = words.pop() as ColourFamily;
  if (!(COLOUR_FAMILIES as readonly string[]).includes(family)) return undefined;
  if (words.length === 0) return { family };
  if (words.length === 1 && ['light', 'medium', 'dark'].includes(words[0]))
    return { family, lightness: words[0] as Lightness };
  return undefined;
}

/**
 * Checks a merchandiser's overrides (422 naming the first bad entry): category labels to a group of
 * the store's taxonomy (or UNPLACED), departments to a known audience, colours to a family with an
 * optional lightness. Labels the store does not have yet are kept: they apply when the label appears.
 */
export function parseOverrides(input: unknown, groups: readonly string[]): VocabularyOverrides {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw new InvalidInputError(
      'vocabulary overrides must be an object with categories, departments and colours',
      'body',
    );
  const body = input as Record<string, unknown>;
  const unknownKey = Object.keys(body).find((k) => !['categories', 'departments', 'colours'].includes(k));
  if (unknownKey !== undefined)
    throw new InvalidInputError(`unknown section "${unknownKey}" (use categories, departments, colours)`, unknownKey);
  const byUpper = new Map(groups.map((g) => [g.toUpperCase(), g]));
  const section = (name: keyof VocabularyOverrides, check: (value: string, field: string) => string) => {
    const raw = body[name] ?? {};
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw new InvalidInputError(`${name} must be an object of label -> value`, name);
    const entries = Object.entries(raw as Record<string, unknown>);
    if (entries.length > MAX_OVERRIDES)
      throw new InvalidInputError(`${name} holds at most ${MAX_OVERRIDES} labels`, name);
    const out: Record<string, string> = {};
    for (const [label, value] of entries) {
      const field = `${name}.${label.slice(0, 60)}`;
      if (!labelKey(label))
        throw new InvalidInputError(
          `${name}: a label must contain a letter or a digit (got "${label.slice(0, 60)}")`,
          name,
        );
      if (label.length > MAX_OVERRIDE_LABEL)
        throw new InvalidInputError(`${name}: labels are at most ${MAX_OVERRIDE_LABEL} characters`, field);
      if (typeof value !== 'string' || value.trim() === '')
        throw new InvalidInputError(`${field} must be a non-empty string`, field);
      out[tidyLabel(label)] = check(value.trim(), field);
    }
    return out;
  };
  return {
    categories: section('categories', (value, field) => {
      if (value.toUpperCase() === UNPLACED) return UNPLACED;
      const group = byUpper.get(value.toUpperCase());
      if (!group)
        throw new InvalidInputError(
          `${field}: group "${value}" does not exist in the store's taxonomy (groups: ${groups.join(', ')}, or ${UNPLACED})`,
          field,
        );
      return group;
    }),
    departments: section('departments', (value, field) => {
      const audience = value.toLowerCase();
      if (!isKnownAudience(audience))
        throw new InvalidInputError(`${field}: audience "${value}" is not one of ${AUDIENCES.join(', ')}`, field);
      return audience;
    }),
    colours: section('colours', (value, field) => {
      if (!parseColourOverride(value))
        throw new InvalidInputError(
          `${field}: "${value}" is not a colour family (${COLOUR_FAMILIES.join(', ')}), optionally after light, medium or dark`,
          field,
        );
      return value.toLowerCase().replace(/\s+/g, ' ');
    }),
  };
}
