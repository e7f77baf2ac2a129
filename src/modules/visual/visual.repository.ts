import type { Updateable } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { ImagesTable } from '../../storage/schema.js';
import { chunked } from '../../storage/chunks.js';
import type { ImageRef } from './image-catalog.js';

/** Removes the image references of the given owners; returns the URLs they referenced. */
export async function releaseRefs(
  db: Db,
  storeId: string,
  kind: 'product' | 'asset',
  keys: string[],
): Promise<Set<string>> {
  const released = new Set<string>();
  for (const chunk of chunked(db, keys, { maxItems: 500 })) {
    const old = await db
      .deleteFrom('image_refs')
      .where('store_id', '=', storeId)
      .where('owner_kind', '=', kind)
      .where('owner_key', 'in', chunk)
      .returning('url')
      .execute();
    for (const { url } of old) released.add(url);
  }
  return released;
}

/** Stores references and queues every URL not seen before as a pending image. */
export async function addRefs(db: Db, storeId: string, refs: ImageRef[], now: string) {
  for (const part of chunked(db, refs, { paramsPerItem: 12 })) {
    await db
      .insertInto('image_refs')
      .values(
        part.map((r) => ({
          store_id: storeId,
          owner_kind: r.ownerKind,
          owner_key: r.ownerKey,
          slot: r.slot,
          url: r.url,
        })),
      )
      .execute();
    const urls = [...new Set(part.map((r) => r.url))];
    await db
      .insertInto('images')
      .values(urls.map((url) => ({ store_id: storeId, url, state: 'pending', run_after: now, updated_at: now })))
      .onConflict((oc) => oc.columns(['store_id', 'url']).doNothing())
      .execute();
  }
}

/** Deletes the images (with their vectors) of URLs that no reference names any more. */
export async function deleteOrphans(db: Db, storeId: string, candidates: string[]) {
  for (const part of chunked(db, candidates, { maxItems: 500 })) {
    const kept = await db
      .selectFrom('image_refs')
      .select('url')
      .distinct()
      .where('store_id', '=', storeId)
      .where('url', 'in', part)
      .execute();
    const keep = new Set(kept.map((k) => k.url));
    const orphans = part.filter((url) => !keep.has(url));
    if (orphans.length > 0)
      await db.deleteFrom('images').where('store_id', '=', storeId).where('url', 'in', orphans).execute();
  }
}

export function allRefs(db: Db, storeId: string) {
  return db
    .selectFrom('image_refs')
    .select(['owner_kind', 'owner_key', 'url'])
    .where('store_id', '=', storeId)
    .execute();
}

export async function refsOf(db: Db, storeId: string, kind: 'product' | 'asset', keys: string[]) {
  const rows = [];
  for (const part of chunked(db, keys, { maxItems: 500 })) {
    rows.push(
      ...(await db
        .selectFrom('image_refs')
        .select(['owner_key', 'url'])
        .where('store_id', '=', storeId)
        .where('owner_kind', '=', kind)
        .where('owner_key', 'in', part)
        .execute()),
    );
  }
  return rows;
}

/** A page of a store's indexed vectors of one model, in URL order after `after`. */
export function pageOfVectors(db: Db, storeId: string, model: string, after: string, limit: number) {
  return db
    .selectFrom('images')
    .select(['url', 'vector', 'scale'])
    .where('store_id', '=', storeId)
    .where('state', '=', 'indexed')
    .where('model', '=', model)
    .where('url', '>', after)
    .orderBy('url')
    .limit(limit)
    .execute();
}

export async function imagesByUrl(db: Db, storeId: string, urls: string[]) {
  const rows = [];
  for (const part of chunked(db, urls, { maxItems: 500 })) {
    rows.push(
      ...(await db
        .selectFrom('images')
        .select(['url', 'vector', 'scale', 'state', 'model'])
        .where('store_id', '=', storeId)
        .where('url', 'in', part)
        .execute()),
    );
  }
  return rows;
}

/** The last error of failed images. */
export async function imageErrors(db: Db, storeId: string, urls: string[]) {
  const rows = [];
  for (const part of chunked(db, urls, { maxItems: 500 }))
    rows.push(
      ...(await db
        .selectFrom('images')
        .select(['url', 'error'])
        .where('store_id', '=', storeId)
        .where('url', 'in', part)
        .execute()),
    );
  return rows;
}

/** Records a job's outcome only while `workerId` holds its lease; false when the lease was lost. */
export async function updateHeldImage(
  db: Db,
  storeId: string,
  url: string,
  workerId: string,
  values: Updateable<ImagesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('images')
    .set(values)
    .where('store_id', '=', storeId)
    .where('url', '=', url)
    .where('claimed_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function requeueOtherModels(db: Db, model: string): Promise<number> {
  const result = await db
    .updateTable('images')
    .set({ state: 'pending', attempts: 0, run_after: new Date().toISOString() })
    .where('state', '=', 'indexed')
    // Two ranges of images_model_idx (migration 0024) rather than `<>`, which reads every indexed image.
    .where((eb) => eb.or([eb('model', '<', model), eb('model', '>', model)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function requeueFailed(db: Db, storeId: string): Promise<number> {
  const result = await db
    .updateTable('images')
    .set({ state: 'pending', attempts: 0, error: null, run_after: new Date().toISOString() })
    .where('store_id', '=', storeId)
    .where('state', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Images of every store by pipeline state (the /metrics queue depth). */
export async function countByState(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('images')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
}

/** Images waiting to be embedded (retries included), per store that has any. */
export async function pendingByStore(db: Db, storeId?: string): Promise<Map<string, number>> {
  let query = db
    .selectFrom('images')
    .select(['store_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('state', '=', 'pending');
  if (storeId !== undefined) query = query.where('store_id', '=', storeId);
  const rows = await query.groupBy('store_id').execute();
  return new Map(rows.map((row) => [row.store_id, Number(row.n)]));
}

export async function queueStatus(db: Db, storeId: string, failuresLimit: number) {
  const counts = await db
    .selectFrom('images')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('store_id', '=', storeId)
    .groupBy('state')
    .execute();
  const retrying = await db
    .selectFrom('images')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('state', '=', 'pending')
    .where('error', 'is not', null)
    .executeTakeFirstOrThrow();
  const failures = await db
    .selectFrom('images')
    .select(['url', 'state', 'error', 'attempts', 'updated_at'])
    .where('store_id', '=', storeId)
    .where('error', 'is not', null)
    .where('state', '<>', 'indexed')
    .orderBy('updated_at', 'desc')
    .limit(failuresLimit)
    .execute();
  return { counts, retrying: Number(retrying.n), failures };
}
