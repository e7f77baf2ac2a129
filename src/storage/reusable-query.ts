import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { StorageHandle } from './dialect.js';

/**
 * A query built and compiled once per database, then run with new parameter values: for the
 * lookups every request makes, where Kysely's building and compiling cost more than SQLite's
 * execution. It runs through `readCommitted`, so it sees committed data only, as a named (prepared)
 * statement on PostgreSQL. Parameters are found by sentinel values, so their order in the SQL does
 * not matter.
 */
let definitions = 0;

export function reusableQuery<Row, K extends string>(
  names: readonly K[],
  build: (db: Kysely<Database>, params: Record<K, string>) => Compilable<Row>,
) {
  // One statement name per definition: its SQL is the same on every database (the schema is the
  // connection's search_path), so PostgreSQL can keep it prepared per connection.
  const statementName = `vitrine_reusable_${++definitions}`;
  const compiledByDb = new WeakMap<object, { query: CompiledQuery<Row>; order: K[] }>();
  return async (storage: StorageHandle, values: Record<K, unknown>): Promise<Row[]> => {
    const { db } = storage;
    let entry = compiledByDb.get(db);
    if (!entry) {
      const sentinels = Object.fromEntries(names.map((name) => [name, `\u0000${name}\u0000`])) as Record<K, string>;
      const query = build(db, sentinels).compile();
      const order = query.parameters.map((value) => {
        const name = names.find((n) => sentinels[n] === value);
        if (name === undefined) throw new Error('reusableQuery: a parameter is not one of the named ones');
        return name;
      });
      entry = { query, order };
      compiledByDb.set(db, entry);
    }
    return storage.readCommitted<Row>(
      { ...entry.query, parameters: entry.order.map((name) => values[name]) },
      statementName,
    );
  };
}
