import { priceOf } from '../../catalog/price.js';

const PRICE_FIELD = 'Selling Price';

/**
 * Membership rules of collections (CONTRACT §9), as pure functions.
 *
 * Filter grammar: an object of product attribute -> condition, all conditions must hold:
 *   "Category": "Dresses"                      equals (case-insensitive, trimmed)
 *   "Department": ["Women", "Girls"]           any of
 *   "Selling Price": {"gte": 10, "lte": 50}    numeric range (gte, gt, lte, lt; one or more)
 * Any attribute works (Category, Department, Colour, Brand, Usage, Season, Sub Category, custom ones).
 */
export type Condition =
  { kind: 'any'; values: string[] } | { kind: 'range'; gte?: number; gt?: number; lte?: number; lt?: number };
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

export function compileFilters(filters: unknown): CompiledFilters {
  if (filters === undefined || filters === null) return [];
  if (typeof filters !== 'object' || Array.isArray(filters))
    throw new RuleError('invalid_filter', 'filters must be an object of attribute -> value, values or range');
  const compiled: CompiledFilters = [];
  for (const [field, raw] of Object.entries(filters as Record<string, unknown>)) {
    if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') {
      compiled.push({ field, condition: { kind: 'any', values: [norm(raw)] } });
    } else if (Array.isArray(raw)) {
      if (raw.length === 0 || raw.some((v) => !['string', 'number', 'boolean'].includes(typeof v))) {
        throw new RuleError('invalid_filter', `filters.${field} must be a non-empty list of values`);
      }
      compiled.push({ field, condition: { kind: 'any', values: raw.map(norm) } });
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

/** Whether a product (its stored attributes) satisfies every condition. No conditions: no product (a rule collection needs rules). */
export function matches(filters: CompiledFilters, attributes: Record<string, unknown>): boolean {
  if (filters.length === 0) return false;
  return filters.every(({ field, condition }) => {
    const value = attributes[field];
    if (value === undefined || value === null) return false;
    if (condition.kind === 'any') {
      const values = Array.isArray(value) ? value.map(norm) : [norm(value)];
      return values.some((v) => condition.values.includes(v));
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
