import type { AuthContext } from '../modules/stores/tokens.service.js';
import type { TSchema } from '@sinclair/typebox';
import type { Store } from '../modules/stores/store.js';

/** How a route's errors are written (CONTRACT §4): the seed's standard shapes, or the asset shape. */
export type ErrorShape = 'standard' | 'asset';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook; null when the request carried no valid token. */
    auth: AuthContext | null;
    /** The store named by store_uuid, looked up with the token: null when not in the caller's workspace. */
    namedStore: Store | null | undefined;
    /** Set by the store-scope hook on routes with `config.storeScoped`. */
    store: Store;
  }
  interface FastifyContextConfig {
    errorShape?: ErrorShape;
    /** Resolve `store_uuid` from the query string to a store of the caller's workspace. */
    storeScoped?: boolean;
    /** A read-only shopper endpoint: a publishable (search) key may call it. */
    shopper?: boolean;
    /**
     * This read first applies the store's few pending changes to the index it reads (at most
     * READ_YOUR_WRITES_LIMIT; a larger backlog is left to the background follower), so that it sees
     * the writes that came before it. The handler passes it on with readYourWritesOf(request).
     */
    readYourWrites?: boolean;
    /**
     * The request body of a route that parses it itself (multipart parts), by content type:
     * documentation only, since such a body cannot be validated before the handler streams it.
     */
    documentedBody?: Record<string, TSchema>;
  }
}
