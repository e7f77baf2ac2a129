import { randomBytes, randomUUID } from 'node:crypto';
import type { Db, StorageHandle } from '../../storage/database.js';
import { inTransaction } from '../../storage/transactions.js';
import { InvalidInputError, StoreNotFoundError } from '../../errors.js';
import { isUniqueViolation } from '../../storage/sql-errors.js';
import { defaultMappingProfile, type MappingProfile } from '../products/mapping-profile.js';
import { generateApiToken, hashApiToken } from './api-tokens.js';
import type { AuthContext } from './tokens.service.js';
import * as repo from './stores.repository.js';
import { CorsPolicy } from './cors-policy.js';
import { storeFromRow, type Store, type StoreDetails } from './store.js';
import { MAX_NAME_LENGTH } from '../../catalog/limits.js';
import { DEFAULT_LANGUAGE, normalizeLanguage, SUPPORTED_LANGUAGES } from '../../languages/languages.js';

export interface CreateStoreInput {
  workspaceName: string;
  name: string;
  website?: string | null;
  countries?: string[];
  channels?: string[];
  taxonomy?: string;
  language?: string;
  linkedStoreId?: string | null;
}

/** A language tag to the supported primary tag it names; 422 naming `field` and listing the supported ones. */
export function checkLanguage(tag: unknown, field = 'language'): string {
  const language = typeof tag === 'string' ? normalizeLanguage(tag) : undefined;
  if (!language)
    throw new InvalidInputError(
      `${field} ${JSON.stringify(tag)} is not a supported catalog language; supported: ${SUPPORTED_LANGUAGES.join(', ')}`,
      field,
    );
  return language;
}

export interface CreatedStore {
  workspace_id: string;
  store_uuid: string;
  api_token: string;
}
/** A browser origin as browsers send it: scheme, host and port, nothing else. */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/;

/** Counts distinct parent codes with asset links per channel; the assets module provides it. */
export type ChannelUsage = (store: Store) => Promise<Record<string, number>>;

const CHANNEL_CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const COUNTRY_CODE = /^[A-Z]{2}$/;

function checkStoreInput(input: CreateStoreInput) {
  const workspaceName = input.workspaceName?.trim();
  if (!workspaceName) throw new InvalidInputError('workspace name must not be empty', 'workspace_name');
  if (workspaceName.length > MAX_NAME_LENGTH)
    throw new InvalidInputError(`workspace name must be at most ${MAX_NAME_LENGTH} characters`, 'workspace_name');
  const name = input.name?.trim();
  if (!name) throw new InvalidInputError('store name must not be empty', 'name');
  if (name.length > MAX_NAME_LENGTH)
    throw new InvalidInputError(`store name must be at most ${MAX_NAME_LENGTH} characters`, 'name');
  let website: string | null = null;
  if (input.website) {
    let url: URL | undefined;
    try {
      url = new URL(input.website);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol))
      throw new InvalidInputError('website must be an absolute http(s) URL', 'website');
    website = input.website;
  }
  const countries = (input.countries ?? []).map((c) => c.trim().toUpperCase());
  const badCountry = countries.find((c) => !COUNTRY_CODE.test(c));
  if (badCountry !== undefined)
    throw new InvalidInputError(`country "${badCountry}" must be a two-letter ISO 3166 code`, 'country');
  const channels = input.channels && input.channels.length > 0 ? input.channels.map((c) => c.trim()) : ['default'];
  const badChannel = channels.find((c) => !CHANNEL_CODE.test(c));
  if (badChannel !== undefined)
    throw new InvalidInputError(`channel "${badChannel}" must be 1-64 letters, digits, "_", "-" or "."`, 'channel');
  if (new Set(channels).size !== channels.length) throw new InvalidInputError('channels must not repeat', 'channel');
  const taxonomy = (input.taxonomy ?? 'fashion').trim();
  if (!taxonomy) throw new InvalidInputError('taxonomy must not be empty', 'taxonomy');
  const language = input.language === undefined ? DEFAULT_LANGUAGE : checkLanguage(input.language);
  return { workspaceName, name, website, countries: [...new Set(countries)], channels, taxonomy, language };
}

/** Workspaces and stores: what the operator creates (CLI and /admin/v1) and /v1 reads. Tokens: tokens.service.ts. */
export class StoresService {
  #channelUsage: ChannelUsage | undefined;
  readonly #shopperKeys = new Map<string, string>();
  /** The browser origins each store allows, cached for the CORS hooks. */
  readonly cors: CorsPolicy;

  constructor(private readonly storage: StorageHandle) {
    this.cors = new CorsPolicy(storage.db);
  }

  /** Lets the assets module fill `channels` in store details without this module knowing about assets. */
  setChannelUsage(usage: ChannelUsage) {
    this.#channelUsage = usage;
  }

  async createStore(input: CreateStoreInput): Promise<CreatedStore> {
    const checked = checkStoreInput(input);
    const now = new Date().toISOString();
    const token = generateApiToken();
    const storeId = randomUUID();
    const create = () =>
      inTransaction(this.storage, async (trx) => {
        if (input.linkedStoreId && !(await repo.findStoreById(trx, input.linkedStoreId))) {
          throw new InvalidInputError(`linked store ${input.linkedStoreId} does not exist`, 'linked_store');
        }
        let workspace = await repo.findWorkspaceByName(trx, checked.workspaceName);
        if (!workspace) {
          workspace = { id: randomUUID(), name: checked.workspaceName, created_at: now };
          await repo.insertWorkspace(trx, workspace);
        }
        await repo.insertStore(trx, {
          id: storeId,
          workspace_id: workspace.id,
          name: checked.name,
          website: checked.website,
          countries: JSON.stringify(checked.countries),
          channels: JSON.stringify(checked.channels),
          default_channel: checked.channels[0],
          taxonomy: checked.taxonomy,
          language: checked.language,
          index_language: checked.language,
          linked_store_id: input.linkedStoreId || null,
          mapping_profile: JSON.stringify(defaultMappingProfile()),
          created_at: now,
        });
        await repo.insertToken(trx, {
          id: randomUUID(),
          workspace_id: workspace.id,
          token_hash: hashApiToken(token),
          created_at: now,
          scope: 'full',
          store_ids: null,
        });
        return { workspace_id: workspace.id, store_uuid: storeId, api_token: token };
      });
    try {
      return await create();
    } catch (error) {
      // Two operators creating the first store of one workspace at once: the loser retries and joins it.
      if (isUniqueViolation(error)) return create();
      throw error;
    }
  }

  async listStores(): Promise<Array<StoreDetails & { store_uuid: string; default_channel: string }>> {
    const rows = await repo.listStores(this.storage.db);
    return Promise.all(
      rows.map(async (row) => {
        const store = storeFromRow(row);
        return { store_uuid: store.id, default_channel: store.defaultChannel, ...(await this.describeStore(store)) };
      }),
    );
  }

  /** The stores a token may call: every store of its workspace, or a publishable key's own. */
  async storesOfToken(
    auth: AuthContext,
  ): Promise<Array<{ store_uuid: string; store_name: string; default_channel: string }>> {
    const rows = await repo.listWorkspaceStores(this.storage.db, auth.workspaceId);
    return rows
      .map(storeFromRow)
      .filter((store) => auth.storeIds === null || auth.storeIds.includes(store.id))
      .map((store) => ({ store_uuid: store.id, store_name: store.name, default_channel: store.defaultChannel }));
  }

  async listWorkspaces() {
    const rows = await repo.listWorkspaces(this.storage.db);
    return rows.map((w) => ({ workspace_id: w.id, name: w.name, created_at: w.created_at }));
  }

  async createWorkspace(name: string) {
    const trimmed = name?.trim();
    if (!trimmed) throw new InvalidInputError('workspace name must not be empty', 'name');
    const existing = await repo.findWorkspaceByName(this.storage.db, trimmed);
    if (existing) return { workspace_id: existing.id, name: existing.name, created: false };
    const row = { id: randomUUID(), name: trimmed, created_at: new Date().toISOString() };
    await repo.insertWorkspace(this.storage.db, row);
    return { workspace_id: row.id, name: row.name, created: true };
  }

  /** The browser origins a store allows (CORS). */
  async allowedOrigins(storeUuid: string): Promise<string[]> {
    const origins = await repo.findAllowedOrigins(this.storage.db, storeUuid);
    if (!origins) throw new StoreNotFoundError();
    return origins;
  }

  /** Replaces a store's allowed origins: `https://shop.example` or `http://localhost:3000`, no path. */
  async setAllowedOrigins(storeUuid: string, origins: unknown): Promise<string[]> {
    if (!Array.isArray(origins) || origins.some((origin) => typeof origin !== 'string'))
      throw new InvalidInputError('allowed_origins must be an array of origins', 'allowed_origins');
    const normalised = [
      ...new Set((origins as string[]).map((origin) => origin.trim().toLowerCase().replace(/\/$/, ''))),
    ];
    const bad = normalised.find((origin) => !ORIGIN.test(origin));
    if (bad !== undefined)
      throw new InvalidInputError(
        `allowed_origins: ${JSON.stringify(bad)} is not an origin (scheme://host[:port], no path)`,
        'allowed_origins',
      );
    await this.getStore(storeUuid);
    await repo.setAllowedOrigins(this.storage.db, storeUuid, normalised);
    this.cors.forget(storeUuid);
    return normalised;
  }

  /** A store of the caller's workspace; any other id, foreign or unknown, is the same 404. */
  async getStoreForWorkspace(workspaceId: string, storeUuid: string): Promise<Store> {
    const row = await repo.findStoreInWorkspace(this.storage.db, workspaceId, storeUuid);
    if (!row) throw new StoreNotFoundError();
    return storeFromRow(row);
  }

  /** Operator access to any store (`db`: inside the caller's transaction). */
  async getStore(storeUuid: string, db: Db = this.storage.db): Promise<Store> {
    const row = await repo.findStoreById(db, storeUuid);
    if (!row) throw new StoreNotFoundError();
    return storeFromRow(row);
  }

  async describeStore(store: Store): Promise<StoreDetails> {
    const usage = this.#channelUsage ? await this.#channelUsage(store) : {};
    const channels: Record<string, number> = {};
    for (const channel of store.channels) channels[channel] = usage[channel] ?? 0;
    return {
      store_name: store.name,
      workspace_id: store.workspaceId,
      linked_store_id: store.linkedStoreId,
      store_website: store.website,
      country: store.countries,
      channels,
      store_taxonomy: store.taxonomy,
      store_language: store.language,
    };
  }

  /** Stores a store's mapping profile (null removes it), as the products module checked it (it owns its meaning). */
  async saveMappingProfile(storeUuid: string, profile: MappingProfile | null): Promise<void> {
    await this.getStore(storeUuid);
    await repo.updateMappingProfile(this.storage.db, storeUuid, profile && JSON.stringify(profile));
  }

  /** Stores a store's synonym groups, as the search module checked them (it owns their meaning). */
  async saveSynonyms(storeUuid: string, synonyms: string[][]): Promise<void> {
    await this.getStore(storeUuid);
    await repo.updateSynonyms(this.storage.db, storeUuid, JSON.stringify(synonyms));
  }

  /** The secret a store's shopper ids are hashed with (kept per process once read; never shown). */
  async shopperKey(storeId: string): Promise<string> {
    let key = this.#shopperKeys.get(storeId);
    if (!key)
      this.#shopperKeys.set(
        storeId,
        (key = await repo.shopperKey(this.storage.db, storeId, randomBytes(32).toString('base64url'))),
      );
    return key;
  }

  /** Stores a store's merchandising rules (JSON; null for none), as the search module checked them. */
  async saveSearchRules(storeUuid: string, rules: string | null): Promise<void> {
    await this.getStore(storeUuid);
    await repo.updateSearchRules(this.storage.db, storeUuid, rules);
  }

  /** Stores a store's complement taxonomy (JSON; null for the shipped one). The complements module owns its meaning. */
  async setComplementsTaxonomy(storeId: string, taxonomy: string | null): Promise<void> {
    await repo.updateComplements(this.storage.db, storeId, taxonomy);
  }

  /** Every store's id and change sequence (in-memory indexes poll it to stay warm). */
  changeSequences(): Promise<Array<{ id: string; change_seq: number }>> {
    return repo.changeSequences(this.storage.db);
  }

  /** A store's tagging settings (JSON; null: auto-apply off). The tagging module owns their meaning. */
  taggingSettings(storeId: string): Promise<string | null> {
    return repo.tagging(this.storage.db, storeId);
  }

  async saveTaggingSettings(storeId: string, settings: string | null): Promise<void> {
    await repo.updateTagging(this.storage.db, storeId, settings);
  }

  /** The stores with auto-apply on (the tagging worker's round). */
  storesWithTagging(): Promise<string[]> {
    return repo.storesWithTagging(this.storage.db);
  }

  /**
   * Sets a store's catalog language, in the caller's transaction. The text index keeps answering in
   * its language until the search module has rebuilt it (`indexLanguage` given: nothing to rebuild).
   */
  async setLanguage(storeId: string, language: string, db: Db, indexLanguage?: string): Promise<void> {
    await repo.updateLanguage(db, storeId, language, indexLanguage);
  }

  /** The language a store's text index holds, in the transaction of the rebuild that switched it. */
  async setIndexLanguage(storeId: string, language: string, db: Db): Promise<void> {
    await repo.updateIndexLanguage(db, storeId, language);
  }

  /** Stores a store's vocabulary overrides (JSON; null for none). The vocabulary module owns their meaning. */
  async setVocabularyOverrides(storeId: string, overrides: string | null, db: Db = this.storage.db): Promise<void> {
    await repo.updateVocabulary(db, storeId, overrides);
  }

  /** In the caller's transaction: locks the store row and returns its change sequence (a rebuild that must match one sequence). */
  lockChangeSequence(trx: Db, storeId: string): Promise<number> {
    return repo.lockChangeSequence(trx, storeId);
  }
}
