import { InvalidInputError, InvalidRequestError } from '../errors.js';
import { priceOf } from './price.js';
import { CANONICAL_FIELDS } from './product-fields.js';
import { resolveAudience, type AudienceResolution } from './vocabulary/audiences.js';
import { labelKey } from './vocabulary/labels.js';

const PRICE_FIELD = 'Selling Price';

/**
 * The one filter language of the catalog (CONTRACT §9's collection rules): collections, search by
 * photo, and every listing that filters products parse and evaluate filters here.
 *
 * Grammar: an object of product attribute -> condition, all conditions must hold:
 *   "Category": "Dresses"                      equals (case-insensitive, trimmed)
 *   "Department": ["Women", "Girls"]           any of
 *   "Selling Price": {"gte": 10, "lte": 50}    numeric range (gte, gt, lte, lt; one or more)
 * Any attribute works (Category, Department, Colour, Brand, Usage, Season, Sub Category, custom ones);
 * attribute names match case-insensitively ("colour" is Colour), and an attribute no product has
 * matches nothing (it is not an error).
 * Category, Department and Colour values are read through the catalog vocabulary: Category and
 * Colour values match the same label however written ("T-Shirts" = "Tshirts" = "T-shirt",
 * "Off-White" = "off white"), a Department value the labels of the same audience ("Women" =
 * "Ladieswear" = "Womens", with the store's overrides). Garment concepts and colour families are
 * not collection filters: they are broader than a merchandiser's label ("Casual Shoes" and "Formal
 * Shoes" are both shoes, "Olive" is green); list the labels.
 */
export type Condition =
  | { kind: 'any'; values: string[]; labels?: LabelCondition }
  | { kind: 'range'; gte?: number; gt?: number; lte?: number; lt?: number };

/** A Category, Department or Colour condition, resolved once when the filters are compiled. */
interface LabelCondition {
  field: 'Category' | 'Department' | 'Colour';
  keys: Set<string>;
  /** Department: the audiences named. */
  concepts: Set<string>;
}

/** Resolves department labels (a store's overrides); the built-in vocabulary when none is given. */
export interface AudienceResolver {
  audience(department: string): AudienceResolution;
}
/** The built-in vocabulary's reading of departments (a store without overrides). */
export const BUILT_IN: AudienceResolver = { audience: resolveAudience };

// Membership is evaluated for every changed product against every live collection: the label
// readings below are cached by label text, so each costs one map lookup after the first time.
const keyCache = new Map<string, string>();
export function cachedKey(label: string): string {
  let key = keyCache.get(label);
  if (key === undefined) {
    key = labelKey(label);
    if (keyCache.size > 50_000) keyCache.clear();
    keyCache.set(label, key);
  }
  return key;
}
const audienceCache = new WeakMap<AudienceResolver, Map<string, string>>();
export function cachedAudience(resolver: AudienceResolver, label: string): string {
  let byLabel = audienceCache.get(resolver);
  if (!byLabel) audienceCache.set(resolver, (byLabel = new Map()));
  let audience = byLabel.get(label);
  if (audience === undefined) {
    audience = resolver.audience(label).audience;
    if (byLabel.size > 50_000) byLabel.clear();
    byLabel.set(label, audience);
  }
  return audience;
}

const isKnown = (audience: string) => audience !== '' && !audience.startsWith('label:');

function labelCondition(field: string, values: string[], resolver: AudienceResolver): LabelCondition | undefined {
  if (field !== 'Category' && field !== 'Department' && field !== 'Colour') return undefined;
  const keys = new Set(values.map((v) => labelKey(v)).filter((k) => k !== ''));
  const concepts = new Set<string>();
  if (field === 'Department')
    for (const value of values) {
      const audience = resolver.audience(value).audience;
      if (isKnown(audience)) concepts.add(audience);
    }
  return { field, keys, concepts };
}
export type CompiledFilters = Array<{ field: string; condition: Condition }>;

export const RANGE_OPERATORS = ['gte', 'gt', 'lte', 'lt'] as const;

/** A rule that cannot be used: `reason` is a stable code (`invalid_filter`), the message names its path. */
export class RuleError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The canonical spelling of an attribute name given in any case ("colour" → "Colour"); other names as given. */
const CANONICAL_BY_FOLDED = new Map(CANONICAL_FIELDS.map((name) => [name.toLowerCase(), name] as const));
export const canonicalAttribute = (name: string) => CANONICAL_BY_FOLDED.get(name.trim().toLowerCase()) ?? name.trim();

/** An attribute's value, its name matched case-insensitively. */
export function attributeValue(attributes: Record<string, unknown>, field: string): unknown {
  if (field in attributes) return attributes[field];
  const folded = field.toLowerCase();
  for (const [name, value] of Object.entries(attributes)) if (name.toLowerCase() === folded) return value;
  return undefined;
}

/** A value as filters compare it: trimmed, lower case. */
export const norm = (value: unknown) => String(value).trim().toLowerCase();

export function compileFilters(filters: unknown, resolver: AudienceResolver = BUILT_IN): CompiledFilters {
  if (filters === undefined || filters === null) return [];
  if (typeof filters !== 'object' || Array.isArray(filters))
    throw new RuleError('invalid_filter', 'filters must be an object of attribute -> value, values or range');
  const compiled: CompiledFilters = [];
  for (const [given, raw] of Object.entries(filters as Record<string, unknown>)) {
    const field = canonicalAttribute(given);
    if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') {
      const values = [norm(raw)];
      compiled.push({ field, condition: { kind: 'any', values, labels: labelCondition(field, values, resolver) } });
    } else if (Array.isArray(raw)) {
      if (raw.length === 0 || raw.some((v) => !['string', 'number', 'boolean'].includes(typeof v))) {
        throw new RuleError('invalid_filter', `filters.${field} must be a non-empty list of values`);
      }
      const values = raw.map(norm);
      compiled.push({ field, condition: { kind: 'any', values, labels: labelCondition(field, values, resolver) } });
    } else if (raw && typeof raw === 'object') {
      const range: Condition & { kind: 'range' } = { kind: 'range' };
      const entries = Object.entries(raw as Record<string, unknown>);
      if (entries.length === 0)
        throw new RuleError(
          'invalid_filter',
          `filters.${field} must name at least one of ${RANGE_OPERATORS.join(', ')}`,
        );
      for (const [operator, bound] of entries) {
        if (!(RANGE_OPERATORS as readonly string[]).includes(operator))
          throw new RuleError(
            'invalid_filter',
            `filters.${field}: unknown operator "${operator}" (use ${RANGE_OPERATORS.join(', ')})`,
          );
        if (typeof bound !== 'number' || !Number.isFinite(bound))
          throw new RuleError('invalid_filter', `filters.${field}.${operator} must be a number`);
        range[operator as (typeof RANGE_OPERATORS)[number]] = bound;
      }
      compiled.push({ field, condition: range });
    } else {
      throw new RuleError('invalid_filter', `filters.${field} must be a value, a list of values or a range object`);
    }
  }
  return compiled;
}

/** A stored value as a number for ranges and sorts (the price through the price rule), or undefined. */
export function numberOf(field: string, value: unknown): number | undefined {
  // The price follows the catalog's price rule: a price the quality checks call invalid is no price.
  if (field === PRICE_FIELD) return priceOf(value) ?? undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

function labelMatches(condition: LabelCondition, value: unknown, resolver: AudienceResolver): boolean {
  if (typeof value !== 'string' && typeof value !== 'number') return false;
  const label = String(value);
  const key = cachedKey(label);
  if (key !== '' && condition.keys.has(key)) return true;
  if (condition.concepts.size === 0) return false;
  if (condition.field === 'Department') return condition.concepts.has(cachedAudience(resolver, label));
  return false;
}

/** Whether one stored value satisfies one condition (the evaluator every filter user shares). */
export function valueMatches(
  field: string,
  condition: Condition,
  value: unknown,
  resolver: AudienceResolver = BUILT_IN,
): boolean {
  if (value === undefined || value === null) return false;
  if (condition.kind === 'any') {
    const values = Array.isArray(value) ? value.map(norm) : [norm(value)];
    if (values.some((v) => condition.values.includes(v))) return true;
    const labels = condition.labels;
    return (
      labels !== undefined && (Array.isArray(value) ? value : [value]).some((v) => labelMatches(labels, v, resolver))
    );
  }
  const n = numberOf(field, value);
  if (n === undefined) return false;
  return (
    (condition.gte === undefined || n >= condition.gte) &&
    (condition.gt === undefined || n > condition.gt) &&
    (condition.lte === undefined || n <= condition.lte) &&
    (condition.lt === undefined || n < condition.lt)
  );
}

/**
 * Whether a product (its stored attributes) satisfies every condition. No conditions: no product (a
 * rule collection needs rules). `resolver` reads departments with the store's overrides.
 */
export function matches(
  filters: CompiledFilters,
  attributes: Record<string, unknown>,
  resolver: AudienceResolver = BUILT_IN,
): boolean {
  if (filters.length === 0) return false;
  return filters.every(({ field, condition }) =>
    valueMatches(field, condition, attributeValue(attributes, field), resolver),
  );
}

/**
 * A `filters` request parameter (JSON text) in the one language: not JSON → 400, JSON of the wrong
 * shape → 422 naming the path (`filters.Colour.gte`), both naming `param`.
 */
export function parseFiltersParam(
  raw: string | undefined,
  resolver: AudienceResolver = BUILT_IN,
  param = 'filters',
): CompiledFilters {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new InvalidRequestError(`query parameter '${param}' must be valid JSON`, param);
  }
  try {
    return compileFilters(parsed, resolver);
  } catch (error) {
    if (error instanceof RuleError) throw new InvalidInputError(`query parameter '${param}': ${error.message}`, param);
    throw error;
  }
}

/** The `filters` request parameter as the API documents it (text search, search by photo). */
export const FILTERS_PARAM_DESCRIPTION =
  'JSON object in the catalog\'s filter language (the collections grammar): attribute → value, array of values, or numeric range {"gte","gt","lte","lt"}, e.g. {"Category":"Dresses","Department":["Women","Girls"],"Selling Price":{"lte":50}}; every condition must hold. Names and values compare case-insensitively; Category and Colour match the same label however written, Department the labels of the same audience (with the store\'s vocabulary overrides). Not JSON: 400; JSON of the wrong shape: 422 naming the path; an attribute no product has matches nothing.';
