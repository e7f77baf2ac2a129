import type { Db } from '../../storage/database.js';
import { chunked } from '../../storage/chunks.js';

/** Typo-vocabulary terms of a store written after `afterSeq` (with their document frequencies). */
export function vocabularySince(db: Db, storeId: string, afterSeq: number) {
  return db
    .selectFrom('search_vocab')
    .select(['term', 'df', 'seq'])
    .where('store_id', '=', storeId)
    .where('seq', '>', afterSeq)
    .execute();
}

/** Adds document frequencies to a store's vocabulary, stamping the terms with `seq`. */
export async function addVocabulary(db: Db, storeId: string, frequency: Map<string, number>, seq: number) {
  for (const chunk of chunked(db, [...frequency], { paramsPerItem: 4, maxItems: 1000 })) {
    await db
      .insertInto('search_vocab')
      .values(chunk.map(([term, df]) => ({ store_id: storeId, term, df, seq })))
      .onConflict((oc) =>
        oc.columns(['store_id', 'term']).doUpdateSet((eb) => ({
          df: eb('search_vocab.df', '+', eb.ref('excluded.df')),
          seq: eb.ref('excluded.seq'),
        })),
      )
      .execute();
  }
}

export async function clearVocabulary(db: Db, storeId: string) {
  await db.deleteFrom('search_vocab').where('store_id', '=', storeId).execute();
}
