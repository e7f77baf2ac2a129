import { randomUUID } from 'node:crypto';
import type { StorageHandle } from '../../storage/database.js';
import { CommittedReadCache } from '../../storage/committed-cache.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import {
  generateApiToken,
  generatePublishableKey,
  hashApiToken,
  hashesEqual,
  looksLikeApiToken,
  TOKEN_SCOPES,
  type TokenScope,
} from './api-tokens.js';
import * as repo from './stores.repository.js';
import { storeFromRow, type Store } from './store.js';

export interface CreatedToken {
  token_id: string;
  api_token: string;
  scope: TokenScope;
  /** The stores a publishable key works for; null for a workspace token (every store). */
  store_uuids: string[] | null;
}
export interface TokenSummary {
  token_id: string;
  scope: TokenScope;
  store_uuids: string[] | null;
  created_at: string;
  revoked_at: string | null;
}
export interface AuthContext {
  workspaceId: string;
  tokenId: string;
  scope: TokenScope;
  /** A publishable key's stores; null: every store of the workspace. */
  storeIds: string[] | null;
}

function authContext(row: { workspace_id: string; id: string; scope: string; store_ids: string | null }): AuthContext {
  return {
    workspaceId: row.workspace_id,
    tokenId: row.id,
    scope: row.scope === 'search' ? 'search' : 'full',
    storeIds: row.store_ids === null ? null : (JSON.parse(row.store_ids) as string[]),
  };
}

/**
 * API tokens: issued and revoked by the operator (CLI and /admin/v1), resolved on every request.
 * A store's first token is issued by StoresService.createStore, in the store's own transaction.
 */
export class TokensService {
  // The per-request token lookups (by token hash; by token hash and store), reused until the next commit.
  readonly #tokens: CommittedReadCache<AuthContext | undefined>;
  readonly #tokensWithStore: CommittedReadCache<{ auth: AuthContext; store: Store | null } | undefined>;

  constructor(private readonly storage: StorageHandle) {
    this.#tokens = new CommittedReadCache(storage);
    this.#tokensWithStore = new CommittedReadCache(storage);
  }

  /**
   * A workspace token (scope full), or a publishable key (scope search) for the shopper endpoints of
   * the named stores of that workspace: safe to ship in a storefront's browser code.
   */
  async createToken(workspaceId: string, options: { scope?: string; storeIds?: string[] } = {}): Promise<CreatedToken> {
    if (!workspaceId || !(await repo.findWorkspaceById(this.storage.db, workspaceId))) {
      throw new NotFoundError(`workspace ${workspaceId} not found`, 'workspace');
    }
    const scope = (options.scope ?? 'full') as TokenScope;
    if (!TOKEN_SCOPES.includes(scope))
      throw new InvalidInputError(`scope must be one of ${TOKEN_SCOPES.join(', ')}`, 'scope');
    const storeIds = [...new Set(options.storeIds ?? [])];
    if (scope === 'full' && storeIds.length > 0)
      throw new InvalidInputError('stores are named only for a publishable key (scope search)', 'store_uuids');
    if (scope === 'search') {
      if (storeIds.length === 0)
        throw new InvalidInputError('a publishable key (scope search) names at least one store', 'store_uuids');
      for (const storeId of storeIds) {
        if (!(await repo.findStoreInWorkspace(this.storage.db, workspaceId, storeId)))
          throw new NotFoundError(`store ${storeId} not found in workspace ${workspaceId}`, 'store_uuids');
      }
    }
    const token = scope === 'search' ? generatePublishableKey() : generateApiToken();
    const id = randomUUID();
    await repo.insertToken(this.storage.db, {
      id,
      workspace_id: workspaceId,
      token_hash: hashApiToken(token),
      created_at: new Date().toISOString(),
      scope,
      store_ids: scope === 'search' ? JSON.stringify(storeIds) : null,
    });
    return { token_id: id, api_token: token, scope, store_uuids: scope === 'search' ? storeIds : null };
  }

  /** The workspace's tokens and keys, revoked ones included, newest first: never the token itself (only its hash is stored). */
  async listTokens(workspaceId: string): Promise<TokenSummary[]> {
    if (!workspaceId || !(await repo.findWorkspaceById(this.storage.db, workspaceId)))
      throw new NotFoundError(`workspace ${workspaceId} not found`, 'workspace');
    return (await repo.listTokens(this.storage.db, workspaceId)).map((row) => ({
      token_id: row.id,
      scope: row.scope === 'search' ? 'search' : 'full',
      store_uuids: row.store_ids === null ? null : (JSON.parse(row.store_ids) as string[]),
      created_at: row.created_at,
      revoked_at: row.revoked_at,
    }));
  }

  async revokeToken(tokenId: string): Promise<{ token_id: string; revoked: true }> {
    const found = tokenId ? await repo.findToken(this.storage.db, tokenId) : undefined;
    if (!found) throw new NotFoundError(`token ${tokenId} not found`, 'token_id');
    await repo.revokeToken(this.storage.db, tokenId, new Date().toISOString());
    return { token_id: tokenId, revoked: true };
  }

  /** Resolves a presented token; undefined for unknown, malformed or revoked ones (read every time, so revocation is immediate everywhere). */
  async authenticate(token: string): Promise<AuthContext | undefined> {
    if (!looksLikeApiToken(token)) return undefined;
    const hash = hashApiToken(token);
    return this.#tokens.get(hash, async () => {
      const row = await repo.findActiveTokenByHash(this.storage.db, hash);
      if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
      return authContext(row);
    });
  }

  /**
   * Resolves a token and, in one lookup, the store the request names (when it is in the token's
   * workspace). `store` is null for a foreign or unknown store, undefined when none was named.
   * Every request makes this lookup: its answer is reused until the next commit (CommittedReadCache).
   */
  async authenticateForStore(
    token: string,
    storeUuid: string | undefined,
  ): Promise<{ auth: AuthContext; store: Store | null | undefined } | undefined> {
    if (storeUuid === undefined) {
      const auth = await this.authenticate(token);
      return auth && { auth, store: undefined };
    }
    if (!looksLikeApiToken(token)) return undefined;
    const hash = hashApiToken(token);
    return this.#tokensWithStore.get(`${hash}\u0000${storeUuid}`, async () => {
      const row = await repo.findActiveTokenWithStore(this.storage, hash, storeUuid);
      if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
      const auth = authContext({
        workspace_id: row.token_workspace_id,
        id: row.token_id,
        scope: row.token_scope,
        store_ids: row.token_store_ids,
      });
      if (row.id === null) return { auth, store: null };
      return { auth, store: storeFromRow(row as Parameters<typeof storeFromRow>[0]) };
    });
  }
}
