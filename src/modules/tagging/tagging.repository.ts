import type { Insertable } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { TagReviewsTable } from '../../storage/schema.js';
import { chunked } from '../../storage/chunks.js';

/** Every review of a store's suggestions (a store reviews at most as many as it has products × 3). */
export function reviews(db: Db, storeId: string) {
  return db
    .selectFrom('tag_reviews')
    .select(['product_code', 'field', 'image_url', 'decision'])
    .where('store_id', '=', storeId)
    .execute();
}

/** How many reviews a store has and the latest (what a kept list of suggestions was computed after). */
export async function reviewsVersion(db: Db, storeId: string): Promise<string> {
  const row = await db
    .selectFrom('tag_reviews')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('reviewed_at').as('latest')])
    .where('store_id', '=', storeId)
    .executeTakeFirst();
  return `${Number(row?.n ?? 0)}:${row?.latest ?? ''}`;
}

/** Records decisions (the latest decision for a product, field and image wins). */
export async function saveReviews(db: Db, rows: Array<Insertable<TagReviewsTable>>) {
  for (const part of chunked(db, rows, { paramsPerItem: 9 }))
    await db
      .insertInto('tag_reviews')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['store_id', 'product_code', 'field', 'image_url']).doUpdateSet((eb) => ({
          offered: eb.ref('excluded.offered'),
          confidence: eb.ref('excluded.confidence'),
          decision: eb.ref('excluded.decision'),
          value: eb.ref('excluded.value'),
          reviewed_at: eb.ref('excluded.reviewed_at'),
        })),
      )
      .execute();
}

/** Reviews per field and decision. */
export function reviewCounts(db: Db, storeId: string) {
  return db
    .selectFrom('tag_reviews')
    .select(['field', 'decision', (eb) => eb.fn.countAll<number>().as('n')])
    .where('store_id', '=', storeId)
    .groupBy(['field', 'decision'])
    .execute();
}
