import type { Db } from '../../storage/database.js';
import type { GroupLink } from './asset-ranks.js';

export interface GroupKey {
  storeId: string;
  parentCode: string;
  channel: string;
  assetType: string;
}

export async function findAssetsByUrl(db: Db, storeId: string, urls: string[]) {
  if (urls.length === 0) return [];
  return db
    .selectFrom('assets')
    .select(['asset_id', 'url'])
    .where('store_id', '=', storeId)
    .where('url', 'in', urls)
    .execute();
}

export async function insertAssets(
  db: Db,
  rows: Array<{ store_id: string; asset_id: string; url: string; created_at: string }>,
) {
  if (rows.length === 0) return;
  await db
    .insertInto('assets')
    .values(rows)
    .onConflict((oc) => oc.columns(['store_id', 'url']).doNothing())
    .execute();
}

export function findAsset(db: Db, storeId: string, assetId: string) {
  return db
    .selectFrom('assets')
    .select(['asset_id', 'url'])
    .where('store_id', '=', storeId)
    .where('asset_id', '=', assetId)
    .executeTakeFirst();
}

export async function deleteAsset(db: Db, storeId: string, assetId: string) {
  await db.deleteFrom('assets').where('store_id', '=', storeId).where('asset_id', '=', assetId).execute();
}

export async function groupLinks(db: Db, key: GroupKey): Promise<GroupLink[]> {
  const rows = await db
    .selectFrom('asset_links')
    .select(['asset_id', 'url', 'label', 'numbered'])
    .where('store_id', '=', key.storeId)
    .where('channel', '=', key.channel)
    .where('asset_type', '=', key.assetType)
    .where('parent_code', '=', key.parentCode)
    .orderBy('rank')
    .execute();
  return rows.map((row) => ({
    assetId: row.asset_id,
    url: row.url,
    label: row.label,
    numbered: Boolean(row.numbered),
  }));
}

/** Rewrites a group's links with ranks 1..n (groups are small: a product's media on one channel). */
export async function writeGroup(db: Db, key: GroupKey, links: GroupLink[], now: string) {
  await db
    .deleteFrom('asset_links')
    .where('store_id', '=', key.storeId)
    .where('channel', '=', key.channel)
    .where('asset_type', '=', key.assetType)
    .where('parent_code', '=', key.parentCode)
    .execute();
  if (links.length === 0) return;
  await db
    .insertInto('asset_links')
    .values(
      links.map((link, i) => ({
        store_id: key.storeId,
        parent_code: key.parentCode,
        channel: key.channel,
        asset_type: key.assetType,
        asset_id: link.assetId,
        url: link.url,
        rank: i + 1,
        label: link.label,
        numbered: link.numbered ? 1 : 0,
        created_at: now,
      })),
    )
    .execute();
}

/** Groups in which an asset is linked, optionally narrowed to one parent_code and channel. */
export function groupsOfAsset(
  db: Db,
  storeId: string,
  assetId: string,
  where: { parentCode?: string; channel?: string } = {},
) {
  let query = db
    .selectFrom('asset_links')
    .select(['parent_code', 'channel', 'asset_type'])
    .where('store_id', '=', storeId)
    .where('asset_id', '=', assetId);
  if (where.parentCode !== undefined) query = query.where('parent_code', '=', where.parentCode);
  if (where.channel !== undefined) query = query.where('channel', '=', where.channel);
  return query.execute();
}

export async function countGroups(
  db: Db,
  storeId: string,
  channel: string,
  assetType: string,
  parentCode?: string,
): Promise<number> {
  let query = db
    .selectFrom('asset_links')
    .select((eb) => eb.fn.count('parent_code').distinct().as('n'))
    .where('store_id', '=', storeId)
    .where('channel', '=', channel)
    .where('asset_type', '=', assetType);
  if (parentCode !== undefined) query = query.where('parent_code', '=', parentCode);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/**
 * The links of one page of groups (parent codes in order). On PostgreSQL in one statement (the page's
 * parent codes as a common table expression, their links one primary-key range between the first and
 * the last): two statements cost a second round trip per listing. SQLite, called in-process, runs the
 * two simpler statements faster (about 9 % more listings per second in alternating runs, while the
 * single statement gave PostgreSQL about 13 % more; BENCHMARKS.md › Assets).
 */
export async function pageOfGroups(
  db: Db,
  storeId: string,
  channel: string,
  assetType: string,
  page: { parentCode?: string; offset: number; limit: number },
) {
  let parents = db
    .selectFrom('asset_links')
    .select('parent_code')
    .distinct()
    .where('store_id', '=', storeId)
    .where('channel', '=', channel)
    .where('asset_type', '=', assetType);
  if (page.parentCode !== undefined) parents = parents.where('parent_code', '=', page.parentCode);
  parents = parents.orderBy('parent_code').limit(page.limit).offset(page.offset);
  if (db.dialect.roundTripPerStatement)
    return db
      .with('page', () => parents)
      .selectFrom('asset_links')
      .select(['parent_code', 'rank', 'label', 'numbered', 'asset_id', 'url'])
      .where('store_id', '=', storeId)
      .where('channel', '=', channel)
      .where('asset_type', '=', assetType)
      .where('parent_code', '>=', (eb) => eb.selectFrom('page').select((p) => p.fn.min('parent_code').as('first')))
      .where('parent_code', '<=', (eb) => eb.selectFrom('page').select((p) => p.fn.max('parent_code').as('last')))
      .orderBy('parent_code')
      .orderBy('rank')
      .execute();
  const codes = (await parents.execute()).map((row) => row.parent_code);
  if (codes.length === 0) return [];
  return db
    .selectFrom('asset_links')
    .select(['parent_code', 'rank', 'label', 'numbered', 'asset_id', 'url'])
    .where('store_id', '=', storeId)
    .where('channel', '=', channel)
    .where('asset_type', '=', assetType)
    .where('parent_code', '>=', codes[0])
    .where('parent_code', '<=', codes[codes.length - 1])
    .orderBy('parent_code')
    .orderBy('rank')
    .execute();
}

/** Channel code -> distinct parent codes with at least one asset link on it (store details' `channels`). */
export async function channelUsage(db: Db, storeId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('asset_links')
    .select(['channel', (eb) => eb.fn.count('parent_code').distinct().as('n')])
    .where('store_id', '=', storeId)
    .groupBy('channel')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.channel, Number(row.n)]));
}

/** Image links of the given parent codes, any channel (what search by photo indexes). */
export function imageLinksOf(db: Db, storeId: string, channels: string[], parentCodes: string[]) {
  return db
    .selectFrom('asset_links')
    .select(['parent_code', 'asset_id', 'url'])
    .where('store_id', '=', storeId)
    .where('channel', 'in', channels)
    .where('asset_type', '=', 'image')
    .where('parent_code', 'in', parentCodes)
    .execute();
}
