import type { Db } from '../../storage/database.js';

/** Every pin list of a store, by source product code. */
export async function allPins(db: Db, storeId: string): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('product_pins')
    .select(['product_code', 'pinned'])
    .where('store_id', '=', storeId)
    .execute();
  return new Map(rows.map((row) => [row.product_code, JSON.parse(row.pinned) as string[]]));
}

/** Saves a product's pins and bumps the store's pins version, in the caller's transaction. */
export async function savePins(trx: Db, storeId: string, productCode: string, codes: string[]) {
  const pinned = JSON.stringify(codes);
  await trx
    .insertInto('product_pins')
    .values({ store_id: storeId, product_code: productCode, pinned })
    .onConflict((oc) => oc.columns(['store_id', 'product_code']).doUpdateSet({ pinned }))
    .execute();
  await trx
    .updateTable('stores')
    .set((eb) => ({ pins_version: eb('pins_version', '+', 1) }))
    .where('id', '=', storeId)
    .execute();
}
