import type { Db } from '../../storage/database.js';

export async function findPins(db: Db, storeId: string, productCode: string): Promise<string[]> {
  const row = await db
    .selectFrom('product_pins')
    .select('pinned')
    .where('store_id', '=', storeId)
    .where('product_code', '=', productCode)
    .executeTakeFirst();
  return row ? (JSON.parse(row.pinned) as string[]) : [];
}

export async function savePins(db: Db, storeId: string, productCode: string, codes: string[]) {
  const pinned = JSON.stringify(codes);
  await db
    .insertInto('product_pins')
    .values({ store_id: storeId, product_code: productCode, pinned })
    .onConflict((oc) => oc.columns(['store_id', 'product_code']).doUpdateSet({ pinned }))
    .execute();
}
