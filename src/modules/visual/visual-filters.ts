import { InvalidInputError, InvalidRequestError } from '../../errors.js';

/** attribute → accepted values, both folded to lower case (filters compare case-insensitively). */
export type VisualFilters = Map<string, Set<string>>;

export function foldValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim().toLowerCase();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).toLowerCase();
  return undefined;
}

/**
 * Parses the `filters` query parameter (CONTRACT §8): a JSON object of attribute → value or array of
 * values. Not JSON: 400; JSON of the wrong shape: 422. An attribute no product has is not an error:
 * it simply matches nothing.
 */
export function parseVisualFilters(raw: string | undefined): VisualFilters {
  const filters: VisualFilters = new Map();
  if (raw === undefined || raw.trim() === '') return filters;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new InvalidRequestError("query parameter 'filters' must be valid JSON", 'filters');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidInputError(
      "query parameter 'filters' must be a JSON object of attribute → value or array of values",
      'filters',
    );
  }
  for (const [attribute, value] of Object.entries(parsed as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    const folded = values.map(foldValue);
    if (values.length === 0 || folded.some((v) => v === undefined)) {
      throw new InvalidInputError(
        `query parameter 'filters.${attribute}' must be a string, number or boolean, or a non-empty array of them`,
        'filters',
      );
    }
    filters.set(attribute.trim().toLowerCase(), new Set(folded as string[]));
  }
  return filters;
}

/**
 * Products' attribute values, dictionary-encoded per attribute (one Int32Array column each), so a
 * filter is a few array reads per candidate and 44k products cost a few MB rather than one object each.
 */
export class AttributeColumns {
  readonly #columns = new Map<string, Int32Array>();
  readonly #ids = new Map<string, number>();
  #capacity = 1024;

  set(row: number, attributes: Record<string, unknown>) {
    if (row >= this.#capacity) this.#grow(row + 1);
    for (const column of this.#columns.values()) column[row] = 0;
    for (const [name, value] of Object.entries(attributes)) {
      const folded = foldValue(value);
      if (folded === undefined || folded === '') continue;
      const key = name.trim().toLowerCase();
      let column = this.#columns.get(key);
      if (!column) this.#columns.set(key, (column = new Int32Array(this.#capacity)));
      let id = this.#ids.get(folded);
      if (id === undefined) this.#ids.set(folded, (id = this.#ids.size + 1));
      column[row] = id;
    }
  }

  /** A predicate over rows; an unknown attribute or value makes it match nothing. */
  compile(filters: VisualFilters): (row: number) => boolean {
    if (filters.size === 0) return () => true;
    const tests: Array<{ column: Int32Array; ids: Set<number> }> = [];
    for (const [attribute, values] of filters) {
      const column = this.#columns.get(attribute);
      const ids = new Set([...values].map((v) => this.#ids.get(v)).filter((id): id is number => id !== undefined));
      if (!column || ids.size === 0) return () => false;
      tests.push({ column, ids });
    }
    return (row) => tests.every(({ column, ids }) => ids.has(column[row]));
  }

  #grow(needed: number) {
    this.#capacity = Math.max(needed, Math.ceil(this.#capacity * 1.5));
    for (const [name, column] of this.#columns) {
      const grown = new Int32Array(this.#capacity);
      grown.set(column);
      this.#columns.set(name, grown);
    }
  }
}
