import { priceOf } from '../../catalog/price.js';
import { resolveAudience, type AudienceResolution } from '../../catalog/vocabulary/audiences.js';
import { labelKey } from '../../catalog/vocabulary/labels.js';

const PRICE_FIELD = 'Selling Price';

/**
 * Membership rules of collections (CONTRACT §9), as pure functions.
 *
 * Filter grammar: an object of product attribute -> condition, all conditions must hold:
 *   "Category": "Dresses"                      equals (case-insensitive, trimmed)
 *   "Department": ["Women", "Girls"]           any of
 *   "Selling Price": {"gte": 10, "lte": 50}    numeric range (gte, gt, lte, lt; one or more)
 * Any attribute works (Category, Department, Colour, Brand, Usage, Season, Sub Category, custom ones).
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
const BUILT_IN: AudienceResolver = { audience: resolveAudience };

// Membership is evaluated for every changed product against every live collection: the label
// readings below are cached by label text, so each costs one map lookup after the first time.
const keyCache = new Map<string, string>();
function cachedKey(label: string): string {
  let key = keyCache.get(label);
  if (key === undefined) {
    key = labelKey(label);
    if (keyCache.size > 50_000) keyCache.clear();
    keyCache.set(label, key);
  }
  return key;
}
const audienceCache = new WeakMap<AudienceResolver, Map<string, string>>();
function cachedAudience(resolver: AudienceResolver, label: string): string {
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

export class RuleError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const norm = (value: unknown) => String(value).trim().toLowerCase();

export function compileFilters(filters: unknown, resolver: AudienceResolver = BUILT_IN): CompiledFilters {
  if (filters === undefined || filters === null) return [];
  if (typeof filters !== 'object' || Array.isArray(filters))
    throw new RuleError('invalid_filter', 'filters must be an object of attribute -> value, values or range');
  const compiled: CompiledFilters = [];
  for (const [field, raw] of Object.entries(filters as Record<string, unknown>)) {
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

function numberOf(field: string, value: unknown): number | undefined {
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
  return filters.every(({ field, condition }) => {
    const value = attributes[field];
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
  });
}

export interface SortField {
  field: string;
  order: 'asc' | 'desc';
}

export function compileSort(sortBy: unknown): SortField[] {
  if (sortBy === undefined || sortBy === null) return [];
  if (typeof sortBy !== 'object' || Array.isArray(sortBy))
    throw new RuleError('invalid_sort', 'sortBy must be an object with static and dynamic');
  const dynamic = (sortBy as { dynamic?: unknown }).dynamic;
  const staticFlags = (sortBy as { static?: unknown }).static;
  if (
    staticFlags !== undefined &&
    (typeof staticFlags !== 'object' ||
      staticFlags === null ||
      Array.isArray(staticFlags) ||
      Object.values(staticFlags).some((v) => typeof v !== 'boolean'))
  ) {
    throw new RuleError(
      'invalid_sort',
      'sortBy.static must be an object of booleans (qualityScore, trendScore, personalization)',
    );
  }
  if (dynamic === undefined) return [];
  if (!Array.isArray(dynamic)) throw new RuleError('invalid_sort', 'sortBy.dynamic must be an array of {field, order}');
  return dynamic.map((entry, i) => {
    const { field, order = 'asc' } = (entry ?? {}) as { field?: unknown; order?: unknown };
    if (typeof field !== 'string' || field === '' || (order !== 'asc' && order !== 'desc')) {
      throw new RuleError(
        'invalid_sort',
        `sortBy.dynamic[${i}] must be {"field": "<attribute>", "order": "asc"|"desc"}`,
      );
    }
    return { field, order };
  });
}

/**
 * What a sort key depends on besides the product: collections with the same sort share one key per
 * product (collection_sort_keys), so a price change rewrites a key per product, not per membership.
 * '' for collections without a dynamic sort (they list by product_code).
 */
export function sortSpec(sort: readonly SortField[]): string {
  return sort.length === 0 ? '' : JSON.stringify(sort.map(({ field, order }) => [field, order]));
}

const MISSING = '\uFFFE';

/**
 * A text key whose binary order is the requested order (numbers fixed-width, strings folded,
 * descending fields with their characters inverted, missing values last), so members page in SQL.
 */
export function sortKey(sort: SortField[], attributes: Record<string, unknown>): string {
  return sort
    .map(({ field, order }) => {
      const value = attributes[field];
      if (value === undefined || value === null || value === '') return MISSING;
      const n = numberOf(field, value);
      if (n === undefined && field === PRICE_FIELD) return MISSING;
      const text =
        n !== undefined
          ? `n${String(Math.round(Math.max(0, Math.min(n, 1e11)) * 10_000)).padStart(16, '0')}`
          : `s${norm(value).slice(0, 64)}`;
      const encoded =
        order === 'asc'
          ? text
          : [...text].map((c) => String.fromCharCode(0xfffd - Math.min(c.charCodeAt(0), 0xfffd))).join('');
      return `${encoded}\u0001`;
    })
    .join('');
}

// ---- rule index ----------------------------------------------------------------------------

const LABEL_FIELDS = new Set(['Category', 'Department', 'Colour']);
const SEPARATOR = '\u0000';

/** The 'any' condition a rule is filed under: the first one not on Department (broad), else Department. */
function indexedCondition(filters: CompiledFilters) {
  const candidates = filters.filter((f) => f.condition.kind === 'any');
  return candidates.find((f) => f.field !== 'Department') ?? candidates[0];
}

/** The keys a condition is filed under: each value, each label key, each audience it names. */
function conditionKeys(field: string, condition: Condition & { kind: 'any' }): string[] {
  const keys = condition.values.map((value) => `${field}${SEPARATOR}=${value}`);
  for (const key of condition.labels?.keys ?? []) keys.push(`${field}${SEPARATOR}#${key}`);
  for (const concept of condition.labels?.concepts ?? []) keys.push(`${field}${SEPARATOR}@${concept}`);
  return keys;
}

/**
 * The live rules of a store filed by one attribute condition each, so that a changed product is
 * checked only against the rules it could satisfy: the keys a product is looked up under cover every
 * way `matches` can accept a value (the value itself, its label key, its audience), so the candidates
 * always include every rule the product matches. Rules with ranges only are always candidates.
 */
export class RuleIndex<Rule extends { filters: CompiledFilters }> {
  readonly #byKey = new Map<string, Rule[]>();
  readonly #unfiled: Rule[] = [];
  readonly #fields = new Set<string>();

  constructor(
    rules: readonly Rule[],
    private readonly resolver: AudienceResolver = BUILT_IN,
  ) {
    for (const rule of rules) {
      if (rule.filters.length === 0) continue; // no conditions: matches nothing
      const filed = indexedCondition(rule.filters);
      if (!filed || filed.condition.kind !== 'any') {
        this.#unfiled.push(rule);
        continue;
      }
      this.#fields.add(filed.field);
      for (const key of new Set(conditionKeys(filed.field, filed.condition))) {
        let list = this.#byKey.get(key);
        if (!list) this.#byKey.set(key, (list = []));
        list.push(rule);
      }
    }
  }

  /** The rules a product with these attributes could match (a superset of those it matches). */
  candidates(attributes: Record<string, unknown>): Set<Rule> {
    const found = new Set<Rule>(this.#unfiled);
    for (const field of this.#fields) {
      const value = attributes[field];
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
        const keys = [`${field}${SEPARATOR}=${norm(item)}`];
        if (LABEL_FIELDS.has(field) && (typeof item === 'string' || typeof item === 'number')) {
          keys.push(`${field}${SEPARATOR}#${cachedKey(String(item))}`);
          if (field === 'Department') keys.push(`${field}${SEPARATOR}@${cachedAudience(this.resolver, String(item))}`);
        }
        for (const key of keys) for (const rule of this.#byKey.get(key) ?? []) found.add(rule);
      }
    }
    return found;
  }

  /** The rules the product matches. */
  matching(attributes: Record<string, unknown>): Rule[] {
    return [...this.candidates(attributes)].filter((rule) => matches(rule.filters, attributes, this.resolver));
  }
}
