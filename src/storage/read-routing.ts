import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';

/**
 * Where one request's reads may go. A request that only reads (GET) runs inside a route; once it is
 * authenticated the server may name a replica that has applied the caller's own writes
 * (src/storage/replicas.ts). Everything else — writes, transactions, raw SQL, background work,
 * requests outside a route — runs on the primary.
 */
export interface ReadRoute {
  /** The replica this request reads from; null once the primary was chosen (undefined: not decided yet). */
  replica?: ReplicaTarget | null;
}

/** A replica as the router uses it: a driver over its pool, and a name for metrics. */
export interface ReplicaTarget {
  readonly name: string;
  readonly driver: Driver;
  /** Counts a statement sent there (for /metrics). */
  counted(): void;
}

const routes = new AsyncLocalStorage<ReadRoute>();

/** Runs `work` (and everything it starts) with a route its reads may follow. */
export function withReadRoute<T>(route: ReadRoute, work: () => T): T {
  return routes.run(route, work);
}

/** The current request's route, if it has one. */
export function currentReadRoute(): ReadRoute | undefined {
  return routes.getStore();
}

/**
 * Runs `work` on the primary whatever the caller's route: what builds or follows a process-wide
 * in-memory index must read the same database its cursors and sequences come from.
 */
export function onPrimary<T>(work: () => T): T {
  return routes.exit(work);
}

/** A statement a replica may answer: a query-builder SELECT outside a transaction (raw SQL may do anything). */
export function isReplicaRead(query: CompiledQuery): boolean {
  return query.query.kind === 'SelectQueryNode';
}

/**
 * Sends each statement of a connection to the primary or to the route's replica: a connection is
 * taken from a pool only when a statement needs it, and a transaction pins everything to the primary.
 */
class RoutingConnection implements DatabaseConnection {
  #primary?: DatabaseConnection;
  #replica?: DatabaseConnection;
  #pinned = false;

  constructor(
    private readonly primaryDriver: Driver,
    private readonly replica: ReplicaTarget | undefined,
    /** Counts a statement on the primary, once the request's reads were routed (for /metrics). */
    private readonly countPrimary: (() => void) | undefined,
  ) {}

  async primary(): Promise<DatabaseConnection> {
    this.#primary ??= await this.primaryDriver.acquireConnection();
    return this.#primary;
  }

  pin() {
    this.#pinned = true;
  }

  async #target(query: CompiledQuery): Promise<DatabaseConnection> {
    if (this.replica && !this.#pinned && isReplicaRead(query)) {
      this.#replica ??= await this.replica.driver.acquireConnection();
      this.replica.counted();
      return this.#replica;
    }
    this.countPrimary?.();
    return this.primary();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return (await this.#target(query)).executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.#target(query)).streamQuery<R>(query, chunkSize);
  }

  async release() {
    const releases: Promise<void>[] = [];
    if (this.#primary) releases.push(this.primaryDriver.releaseConnection(this.#primary));
    if (this.#replica && this.replica) releases.push(this.replica.driver.releaseConnection(this.#replica));
    this.#primary = this.#replica = undefined;
    await Promise.all(releases);
  }
}

/** A Kysely driver over the primary's that lets a request's reads go to its route's replica. */
export class RoutingDriver implements Driver {
  constructor(
    private readonly primaryDriver: Driver,
    private readonly countPrimary: () => void = () => {},
  ) {}

  init() {
    return this.primaryDriver.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const route = currentReadRoute();
    return new RoutingConnection(
      this.primaryDriver,
      route?.replica ?? undefined,
      route?.replica !== undefined ? this.countPrimary : undefined,
    );
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const routing = connection as RoutingConnection;
    routing.pin();
    await this.primaryDriver.beginTransaction(await routing.primary(), settings);
  }

  async commitTransaction(connection: DatabaseConnection) {
    await this.primaryDriver.commitTransaction(await (connection as RoutingConnection).primary());
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    await this.primaryDriver.rollbackTransaction(await (connection as RoutingConnection).primary());
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['savepoint']>>[2],
  ) {
    await this.primaryDriver.savepoint!(await (connection as RoutingConnection).primary(), name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2],
  ) {
    await this.primaryDriver.rollbackToSavepoint!(await (connection as RoutingConnection).primary(), name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2],
  ) {
    await this.primaryDriver.releaseSavepoint!(await (connection as RoutingConnection).primary(), name, compile);
  }

  releaseConnection(connection: DatabaseConnection) {
    return (connection as RoutingConnection).release();
  }

  destroy() {
    return this.primaryDriver.destroy();
  }
}
