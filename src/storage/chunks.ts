import type { StorageDialect } from './dialect.js';

export interface ChunkOptions {
  /** Bind parameters each item adds to the statement (columns of a row; 1 for an IN list). */
  paramsPerItem?: number;
  /** An upper bound of our own (statement size, memory), below the engine's limit. */
  maxItems?: number;
  /** Parameters the rest of the statement binds (store id, other filters). */
  reserved?: number;
}

/**
 * Splits items into statement-sized chunks that never bind more parameters than the engine allows
 * (`dialect.maxParameters`): the one chunking rule for multi-row inserts and IN lists.
 */
export function chunked<T>(
  on: { readonly dialect: StorageDialect } | StorageDialect,
  items: readonly T[],
  options: ChunkOptions = {},
): T[][] {
  const dialect = 'dialect' in on ? on.dialect : on;
  const { paramsPerItem = 1, maxItems = Number.POSITIVE_INFINITY, reserved = 16 } = options;
  const size = Math.max(1, Math.min(maxItems, Math.floor((dialect.maxParameters - reserved) / paramsPerItem)));
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
