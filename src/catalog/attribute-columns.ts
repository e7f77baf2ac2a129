import { setImmediate as nextTurn } from 'node:timers/promises';
import { sharedPerStore } from '../storage/store-rows.js';
import { IdSet } from './id-set.js';
import { packStrings, stringAt, type PackedStrings } from './packed-strings.js';
import { BUILT_IN, valueMatches, type AudienceResolver, type CompiledFilters, type Condition } from './filters.js';

/** Conditions whose accepted values a listing keeps (the most recent; a storefront's filters repeat). */
const ACCEPTING_KEPT = 64;

/** Attribute names as compared (trimmed, lower case), by name as written: a catalog has few names. */
const foldedNames = new Map<string, string>();
export function foldName(name: string): string {
  let folded = foldedNames.get(name);
  if (folded === undefined) {
    folded = name.trim().toLowerCase();
    if (foldedNames.size > 10_000) foldedNames.clear();
    foldedNames.set(name, folded);
  }
  return folded;
}

export function foldValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim().toLowerCase();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).toLowerCase();
  return undefined;
}

/**
 * Attribute values by id: the value as compared (trimmed, lower case) and as first written. Only grows.
 * A store's listing and its photo index share one (storeValues): at 1M products the names, prices
 * and parent codes make it about 90 MB a copy. Facets show a value as the store's indexes first met it.
 */
export class ValueDictionary {
  readonly #ids = new Map<string, number>();
  /** id → value; id 0 is no value. */
  readonly values: string[] = [''];
  /** id → the value as first written ("Navy Blue"), for facets. */
  readonly display: string[] = [''];

  /** The id of a folded value, added with its written form when new. */
  idOf(folded: string, written: unknown): number {
    let id = this.#ids.get(folded);
    if (id === undefined) {
      this.#ids.set(folded, (id = this.values.length));
      this.values[id] = folded;
      this.display[id] = String(written).trim();
    }
    return id;
  }

  find(folded: string): number | undefined {
    return this.#ids.get(folded);
  }

  /**
   * The dictionary's own copy of a string equal to `value`, as written or as compared, else `value`:
   * the store's other indexes keep this one copy of the titles, names and image URLs they hold too
   * (each read its own copy from the database: 20–30 MB an index at 1M products).
   */
  shared = (value: string): string => {
    const id = this.#ids.get(foldValue(value)!);
    if (id === undefined) return value;
    if (this.display[id] === value) return this.display[id];
    return this.values[id] === value ? this.values[id] : value;
  };
}

/** The store's value dictionary shared by its in-memory indexes in this process (a new one if none holds one). */
export const storeValues = sharedPerStore(() => new ValueDictionary());

/** AttributeColumns as another thread posts them (`exported`), value ids those of its own dictionary. */
export interface ExportedColumns {
  entries: Array<{ key: string; column: Int32Array; distinct: Int32Array }>;
  /** The thread's dictionary (id → value as compared, as first written). */
  values: PackedStrings;
  display: PackedStrings;
}

/** A column another thread built for some rows, to adopt (AttributeColumns.adopt). */
interface PendingColumn {
  exported: ExportedColumns;
  entry: ExportedColumns['entries'][number];
  rows: number;
  /** The row of the part's first. */
  offset: number;
  /** The part's value id → the shared one, shared by the part's columns. */
  ids: Int32Array;
}

/**
 * Products' attribute values, dictionary-encoded per attribute (one Int32Array column each), so a
 * filter is a few array reads per candidate and 44k products cost a few MB rather than one object each.
 */
export class AttributeColumns {
  readonly #columns = new Map<string, Int32Array>();
  /** Each column's distinct value ids: a condition is evaluated once per distinct value. */
  readonly #distinct = new Map<string, IdSet>();
  #capacity = 1024;
  /** Columns other threads built, not adopted yet (`adopt`), by folded name. */
  readonly #pending = new Map<string, PendingColumn[]>();
  /** The adoption under way of a pending column (`#adoption`). */
  readonly #adopting = new Map<string, Generator<void, void>>();
  /** Each column's value in the row set last and its id (set), while the column is kept. */
  readonly #last = new Map<string, { value: unknown; id: number }>();
  /**
   * The value ids a condition accepts, by field and condition, while no product changes: a range over
   * a price column of 1M products tested every distinct price on each request (8 ms at 1M).
   */
  readonly #accepting = new Map<string, { resolver: AudienceResolver; ids: Int32Array }>();

  constructor(readonly dictionary: ValueDictionary = new ValueDictionary()) {}

  /**
   * Columns other threads built, each for the next rows and with a dictionary of its own (`exported`),
   * as one set over all their rows with value ids of `dictionary` (the store's shared one), leaving
   * out the attributes in `skip`. A column is adopted when first read (`adoptPending` ahead of a
   * read, with turns of the event loop; at once otherwise): each distinct value looked up once, then
   * one read per cell. A 1M store's columns hold about 780,000 distinct values (prices, parent codes,
   * image addresses), 2–3 s of lookups on the event loop, where the console's filters read seven
   * columns of a few hundred values each.
   */
  static adopt(
    parts: ReadonlyArray<{ columns: ExportedColumns; rows: number }>,
    dictionary: ValueDictionary,
    skip: ReadonlySet<string>,
  ): AttributeColumns {
    const adopted = new AttributeColumns(dictionary);
    adopted.#capacity = Math.max(
      adopted.#capacity,
      parts.reduce((total, part) => total + part.rows, 0),
    );
    let offset = 0;
    for (const { columns: exported, rows } of parts) {
      // The part's id → the shared id (0 stays 0: no value), filled as its columns are adopted.
      const ids = new Int32Array(exported.values.ends.length);
      for (const entry of exported.entries) {
        if (skip.has(entry.key)) continue;
        let sources = adopted.#pending.get(entry.key);
        if (!sources) adopted.#pending.set(entry.key, (sources = []));
        sources.push({ exported, entry, rows, offset, ids });
      }
      offset += rows;
    }
    return adopted;
  }

  /**
   * Adopts the columns of `keys` (folded names; every column still to adopt without), a turn of the
   * event loop each 10 ms: the first lookups run before the code is optimised, 20,000 of them held
   * the loop 150–250 ms.
   */
  async adoptPending(keys: Iterable<string> = [...this.#pending.keys()]): Promise<void> {
    for (const key of keys) {
      let since = performance.now();
      for (const steps = this.#adoption(key); steps !== undefined && !steps.next().done;)
        if (performance.now() - since >= 10) {
          await nextTurn();
          since = performance.now();
        }
    }
  }

  /** Adopts a column still to adopt at once (a read that did not ask ahead). */
  #adoptNow(key: string) {
    const steps = this.#adoption(key);
    if (steps) while (!steps.next().done);
  }

  /** The steps adopting a column (undefined when there is none to adopt); one run per column, shared. */
  #adoption(key: string): Generator<void, void> | undefined {
    const sources = this.#pending.get(key);
    if (!sources) return undefined;
    let steps = this.#adopting.get(key);
    if (!steps) this.#adopting.set(key, (steps = this.#adoptSteps(key, sources)));
    return steps;
  }

  *#adoptSteps(key: string, sources: PendingColumn[]): Generator<void, void> {
    const merged = new Int32Array(this.#capacity);
    const set = new IdSet();
    for (const { exported, entry, rows, offset, ids } of sources) {
      let step = 0;
      for (const local of entry.distinct) {
        if (ids[local] === 0)
          ids[local] = this.dictionary.idOf(stringAt(exported.values, local), stringAt(exported.display, local));
        set.add(ids[local]);
        if ((++step & 255) === 0) yield;
      }
      for (let from = 0; from < rows; from += 4096) {
        const to = Math.min(rows, from + 4096);
        for (let row = from; row < to; row++) merged[offset + row] = ids[entry.column[row]];
        yield;
      }
    }
    // Unless the column was dropped meanwhile.
    if (this.#pending.get(key) !== sources) return;
    this.#pending.delete(key);
    this.#adopting.delete(key);
    this.#columns.set(key, merged);
    this.#distinct.set(key, set);
  }

  #adoptAllNow() {
    for (const key of [...this.#pending.keys()]) this.#adoptNow(key);
  }

  /** The columns and the values they use, for another thread to adopt (the arrays are transferred, not copied). */
  exported(): ExportedColumns {
    this.#adoptAllNow();
    return {
      entries: [...this.#columns].map(([key, column]) => ({
        key,
        column,
        distinct: Int32Array.from(this.#distinct.get(key) ?? []),
      })),
      values: packStrings(this.dictionary.values),
      display: packStrings(this.dictionary.display),
    };
  }

  /** Stores a row's values; attributes whose folded name is in `skip` are not kept. */
  set(row: number, attributes: Record<string, unknown>, skip?: ReadonlySet<string>) {
    if (this.#accepting.size > 0) this.#accepting.clear();
    // A write after a build threads read (a follow adopts them ahead: adoptPending).
    if (this.#pending.size > 0) this.#adoptAllNow();
    if (row >= this.#capacity) this.#grow(row + 1);
    for (const column of this.#columns.values()) column[row] = 0;
    // for…in over a parsed object: Object.entries made a pair per attribute (1M products: 15M arrays).
    for (const name in attributes) {
      const value = attributes[name];
      const key = foldName(name);
      // The value the attribute had in the row set before (a colourway's sizes share most of theirs):
      // its id again, without folding the value and looking it up.
      const last = this.#last.get(key);
      if (last !== undefined && last.value === value) {
        this.#columns.get(key)![row] = last.id;
        continue;
      }
      const folded = foldValue(value);
      if (folded === undefined || folded === '') continue;
      if (skip?.has(key)) continue;
      let column = this.#columns.get(key);
      if (!column) this.#columns.set(key, (column = new Int32Array(this.#capacity)));
      const id = this.dictionary.idOf(folded, value);
      column[row] = id;
      let distinct = this.#distinct.get(key);
      if (!distinct) this.#distinct.set(key, (distinct = new IdSet()));
      distinct.add(id);
      if (last !== undefined) {
        last.value = value;
        last.id = id;
      } else this.#last.set(key, { value, id });
    }
  }

  /**
   * A predicate over rows for filters in the catalog's one language (catalog/filters.ts): each
   * condition becomes the set of its column's value ids that satisfy it, found by evaluating it once
   * per distinct value; a row then costs one set lookup per condition. An attribute no product has
   * matches nothing.
   */
  compile(filters: CompiledFilters, resolver: AudienceResolver = BUILT_IN): (row: number) => boolean {
    if (filters.length === 0) return () => true;
    const tests = this.conditionTests(filters, resolver);
    if (tests.some((test) => test.column === undefined)) return () => false;
    if (tests.length === 1) {
      const [{ column, accepted }] = tests;
      return (row) => accepted[column![row]] === 1;
    }
    return (row) => tests.every(({ column, accepted }) => accepted[column![row]] === 1);
  }

  /**
   * Each condition as its column and a table by value id of the values it accepts (one array read per
   * row and condition); `column` is undefined where no row can satisfy it (no product has the
   * attribute, or no value of it is accepted).
   */
  conditionTests(
    filters: CompiledFilters,
    resolver: AudienceResolver = BUILT_IN,
  ): Array<{ key: string; column: Int32Array | undefined; accepted: Uint8Array }> {
    return filters.map(({ field, condition }) => {
      const key = field.trim().toLowerCase();
      this.#adoptNow(key);
      const column = this.#columns.get(key);
      const ids = this.#accepted(key, field, condition, resolver);
      const accepted = new Uint8Array(this.dictionary.values.length);
      for (const id of ids) accepted[id] = 1;
      return { key, column: column && ids.length > 0 ? column : undefined, accepted };
    });
  }

  /** How many distinct values an attribute's column holds (0: no column). */
  distinctCount(name: string): number {
    const key = name.trim().toLowerCase();
    this.#adoptNow(key);
    return this.#distinct.get(key)?.size ?? 0;
  }

  /** The largest value id an attribute's column holds (0: none): a count table by id needs one more entry. */
  largestId(name: string): number {
    const key = name.trim().toLowerCase();
    this.#adoptNow(key);
    return this.#distinct.get(key)?.largest ?? 0;
  }

  /** Forgets an attribute's column (its values stay in the dictionary). */
  drop(name: string) {
    const key = name.trim().toLowerCase();
    this.#columns.delete(key);
    this.#distinct.delete(key);
    this.#pending.delete(key);
    this.#adopting.delete(key);
    this.#last.delete(key);
    this.#accepting.clear();
  }

  /** The attributes that have a column (folded names). */
  names(): string[] {
    return [...this.#columns.keys(), ...this.#pending.keys()];
  }

  #accepted(key: string, field: string, condition: Condition, resolver: AudienceResolver): Int32Array {
    // Label conditions are resolved from the values and the resolver: the values name the condition.
    const name = `${key}\u0000${JSON.stringify(condition.kind === 'any' ? [condition.values, !!condition.labels] : condition)}`;
    const kept = this.#accepting.get(name);
    if (kept && kept.resolver === resolver) return kept.ids;
    const ids =
      condition.kind === 'any' && !condition.labels
        ? Int32Array.from(
            new Set(
              condition.values.map((v) => this.dictionary.find(v)).filter((id): id is number => id !== undefined),
            ),
          )
        : Int32Array.from(
            [...(this.#distinct.get(key) ?? [])].filter((id) =>
              valueMatches(field, condition, this.dictionary.values[id], resolver),
            ),
          );
    if (this.#accepting.size >= ACCEPTING_KEPT) this.#accepting.delete(this.#accepting.keys().next().value!);
    this.#accepting.set(name, { resolver, ids });
    return ids;
  }

  /** The column of an attribute (any case), value ids by row; undefined when no product has it. */
  column(name: string): Int32Array | undefined {
    const key = name.trim().toLowerCase();
    this.#adoptNow(key);
    return this.#columns.get(key);
  }

  /** A value id as compared (trimmed, lower case; '' for none). */
  value(id: number): string {
    return this.dictionary.values[id] ?? '';
  }

  /** A value id as first written. */
  display(id: number): string {
    return this.dictionary.display[id] ?? '';
  }

  /** Value ids are below this (the dictionary may be shared: it grows with the other indexes too). */
  get dictionarySize(): number {
    return this.dictionary.values.length;
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
