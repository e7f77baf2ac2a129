import {
  attributeValue,
  BUILT_IN,
  cachedAudience,
  cachedKey,
  matches,
  norm,
  numberOf,
  RuleError,
  type AudienceResolver,
  type CompiledFilters,
  type Condition,
} from '../../catalog/filters.js';

// Collection sorting and the rule index; the filters themselves are the catalog's one filter
// language (catalog/filters.ts).

const PRICE_FIELD = 'Selling Price';

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
      const value = attributeValue(attributes, field);
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
