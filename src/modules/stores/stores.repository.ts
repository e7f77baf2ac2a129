import type { Insertable } from 'kysely';
import type { Db, StorageHandle } from '../../storage/database.js';
import { reusableQuery } from '../../storage/reusable-query.js';
import type { StoresTable } from '../../storage/schema.js';

export function findWorkspaceByName(db: Db, name: string) {
  return db.selectFrom('workspaces').selectAll().where('name', '=', name).executeTakeFirst();
}

export function findWorkspaceById(db: Db, id: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertWorkspace(db: Db, row: { id: string; name: string; created_at: string }) {
  await db.insertInto('workspaces').values(row).execute();
}

export function listWorkspaces(db: Db) {
  return db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function insertStore(db: Db, row: Insertable<StoresTable>) {
  await db.insertInto('stores').values(row).execute();
}

export function findStoreById(db: Db, id: string) {
  return db.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The tenancy check: a store is found only inside the caller's workspace. */
export function findStoreInWorkspace(db: Db, workspaceId: string, id: string) {
  return db
    .selectFrom('stores')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export function listWorkspaceStores(db: Db, workspaceId: string) {
  return db
    .selectFrom('stores')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function listStores(db: Db) {
  return db.selectFrom('stores').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function updateSynonyms(db: Db, storeId: string, synonyms: string) {
  await db.updateTable('stores').set({ synonyms }).where('id', '=', storeId).execute();
}

export async function updateMappingProfile(db: Db, storeId: string, profile: string | null) {
  const result = await db
    .updateTable('stores')
    .set({ mapping_profile: profile })
    .where('id', '=', storeId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertToken(
  db: Db,
  row: {
    id: string;
    workspace_id: string;
    token_hash: string;
    created_at: string;
    scope: string;
    store_ids: string | null;
  },
) {
  await db
    .insertInto('api_tokens')
    .values({ ...row, revoked_at: null })
    .execute();
}

export function findActiveTokenByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'workspace_id', 'token_hash', 'scope', 'store_ids'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The per-request lookup: an active token and, in the same query, the named store when it belongs
 * to the token's workspace (null otherwise, so foreign and unknown stores look the same).
 */
const tokenWithStoreQuery = reusableQuery(['storeId', 'tokenHash'], (db, p) =>
  db
    .selectFrom('api_tokens as t')
    .leftJoin('stores as s', (join) => join.on('s.id', '=', p.storeId).onRef('s.workspace_id', '=', 't.workspace_id'))
    .select([
      't.id as token_id',
      't.workspace_id as token_workspace_id',
      't.token_hash',
      't.scope as token_scope',
      't.store_ids as token_store_ids',
      's.id',
      's.workspace_id',
      's.name',
      's.website',
      's.countries',
      's.channels',
      's.default_channel',
      's.taxonomy',
      's.linked_store_id',
      's.mapping_profile',
      's.change_seq',
      's.pins_version',
      's.language',
      's.index_language',
      's.created_at',
      's.synonyms',
      's.complements',
      's.vocabulary',
      's.search_rules',
    ])
    .where('t.token_hash', '=', p.tokenHash)
    .where('t.revoked_at', 'is', null),
);

export async function findActiveTokenWithStore(storage: StorageHandle, tokenHash: string, storeId: string) {
  return (await tokenWithStoreQuery(storage, { storeId, tokenHash }))[0];
}

export async function revokeToken(db: Db, tokenId: string, at: string) {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: at })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A workspace's tokens, newest first (their hashes stay here). */
export function listTokens(db: Db, workspaceId: string) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'scope', 'store_ids', 'created_at', 'revoked_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

export function findToken(db: Db, tokenId: string) {
  return db.selectFrom('api_tokens').select(['id', 'revoked_at']).where('id', '=', tokenId).executeTakeFirst();
}

export async function findAllowedOrigins(db: Db, storeId: string): Promise<string[] | undefined> {
  const row = await db.selectFrom('stores').select('allowed_origins').where('id', '=', storeId).executeTakeFirst();
  return row ? (JSON.parse(row.allowed_origins) as string[]) : undefined;
}

export async function setAllowedOrigins(db: Db, storeId: string, origins: string[]) {
  await db
    .updateTable('stores')
    .set({ allowed_origins: JSON.stringify(origins) })
    .where('id', '=', storeId)
    .execute();
}

/** Every store's change sequence: what background index builders poll. */
export async function changeSequences(db: Db): Promise<Array<{ id: string; change_seq: number }>> {
  const rows = await db.selectFrom('stores').select(['id', 'change_seq']).execute();
  return rows.map((row) => ({ id: row.id, change_seq: Number(row.change_seq) }));
}

/** The store's shopper key, made once: concurrent first events agree on the one stored. */
export async function shopperKey(db: Db, storeId: string, candidate: string): Promise<string> {
  await db
    .updateTable('stores')
    .set({ shopper_key: candidate })
    .where('id', '=', storeId)
    .where('shopper_key', 'is', null)
    .execute();
  const row = await db.selectFrom('stores').select('shopper_key').where('id', '=', storeId).executeTakeFirstOrThrow();
  return row.shopper_key!;
}

export async function updateSearchRules(db: Db, storeId: string, rules: string | null) {
  await db.updateTable('stores').set({ search_rules: rules }).where('id', '=', storeId).execute();
}

export async function tagging(db: Db, storeId: string): Promise<string | null> {
  const row = await db.selectFrom('stores').select('tagging').where('id', '=', storeId).executeTakeFirst();
  return row?.tagging ?? null;
}

export async function updateTagging(db: Db, storeId: string, tagging: string | null) {
  await db.updateTable('stores').set({ tagging }).where('id', '=', storeId).execute();
}

export async function storesWithTagging(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('stores').select('id').where('tagging', 'is not', null).execute();
  return rows.map((row) => row.id);
}

/** A store's catalog language; the index language too when `indexLanguage` is given (a store with nothing to re-index). */
export async function updateLanguage(db: Db, storeId: string, language: string, indexLanguage?: string) {
  await db
    .updateTable('stores')
    .set({ language, ...(indexLanguage ? { index_language: indexLanguage } : {}) })
    .where('id', '=', storeId)
    .execute();
}

/** The language a store's text index now holds (the rebuild that switched it commits with it). */
export async function updateIndexLanguage(db: Db, storeId: string, language: string) {
  await db.updateTable('stores').set({ index_language: language }).where('id', '=', storeId).execute();
}

export async function updateVocabulary(db: Db, storeId: string, vocabulary: string | null) {
  await db.updateTable('stores').set({ vocabulary }).where('id', '=', storeId).execute();
}

export async function updateComplements(db: Db, storeId: string, complements: string | null) {
  await db.updateTable('stores').set({ complements }).where('id', '=', storeId).execute();
}

/** Locks the store row (holding the store's writers back) and returns its change sequence. */
export async function lockChangeSequence(db: Db, storeId: string): Promise<number> {
  const row = await db.dialect
    .lockRows(db.selectFrom('stores').select('change_seq').where('id', '=', storeId))
    .executeTakeFirstOrThrow();
  return Number(row.change_seq);
}
