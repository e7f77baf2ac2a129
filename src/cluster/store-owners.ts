import cluster from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PeerPortMessage, PeerPortsMessage } from './messages.js';
import { dropStoreEverywhere } from '../storage/bounded-cache.js';

/** How long a store's size class is trusted before it is counted again (in the background). */
const SIZE_CHECK_MS = 60_000;
/** Stores whose size class is remembered; past it the memory starts over (a count each is cheap). */
const MAX_REMEMBERED_STORES = 100_000;

export interface StoreOwnersDeps {
  /** The store's products counted up to `limit` (a bounded count: a large store costs `limit` rows). */
  productsUpTo: (storeId: string, limit: number) => Promise<number>;
  /**
   * A large store served here while its own process restarted is its own process's again: besides
   * dropping its indexes (every per-store cache of this process), what else stops keeping it warm.
   */
  onHandedBack?: (storeId: string) => void;
}

interface SizeClass {
  large: boolean;
  checkedAt: number;
  checking?: Promise<boolean>;
}

/**
 * Which API process of `vitrine serve --processes N` serves a large store. Every process keeps its
 * own in-memory indexes of the stores it serves (listing, complete the look, photos): at 1M products
 * that is 1.5 GB a process, so N processes held N copies. A large store is served by one process
 * (chosen by its id; the others forward its calls to that process's private port), so its indexes
 * are held once per machine. The price: that store's calls use one core. While its process restarts,
 * the others serve it themselves rather than fail.
 */
export class StoreOwners {
  readonly #ports = new Map<number, number>();
  readonly #sizes = new Map<string, SizeClass>();
  #forwarded = 0;

  constructor(
    private readonly processIndex: number,
    private readonly processCount: number,
    /** VITRINE_LARGE_STORE_PRODUCTS: from this many products a store is served by one process; 0: off. */
    private readonly largeStoreProducts: number,
    private readonly deps: StoreOwnersDeps,
  ) {}

  get enabled(): boolean {
    return this.processCount > 1 && this.largeStoreProducts > 0;
  }

  /** Calls this process forwarded to the process serving their store. */
  get forwarded(): number {
    return this.#forwarded;
  }

  /** The process that serves a large store: FNV-1a of its id, modulo the number of processes. */
  ownerOf(storeId: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < storeId.length; i++) hash = Math.imul(hash ^ storeId.charCodeAt(i), 0x01000193);
    return (hash >>> 0) % this.processCount;
  }

  /** The private ports of the processes that are up (the primary's word). */
  setPorts(ports: Record<string, number>) {
    this.#ports.clear();
    for (const [index, port] of Object.entries(ports)) this.#ports.set(Number(index), port);
    // What this process built for another's large stores while that one was down: dropped.
    for (const [storeId, size] of this.#sizes) {
      const owner = this.ownerOf(storeId);
      if (size.large && owner !== this.processIndex && this.#ports.has(owner)) {
        this.deps.onHandedBack?.(storeId);
        dropStoreEverywhere(storeId);
      }
    }
  }

  /**
   * The private port of the process serving this store when that is another process that is up;
   * undefined when this process serves it (a small store, its own, or its process is restarting).
   */
  async peerPortFor(storeId: string): Promise<number | undefined> {
    if (!this.enabled) return undefined;
    const owner = this.ownerOf(storeId);
    if (owner === this.processIndex || !this.#ports.has(owner)) return undefined;
    if (!(await this.#isLarge(storeId))) return undefined;
    const port = this.#ports.get(owner);
    if (port !== undefined) this.#forwarded++;
    return port;
  }

  #isLarge(storeId: string): Promise<boolean> | boolean {
    const known = this.#sizes.get(storeId);
    // Never counted yet: every call waits for the one count (none may build the store's indexes here).
    if (known && known.checkedAt === 0) return known.checking ?? this.#count(storeId, known);
    if (known && Date.now() - known.checkedAt < SIZE_CHECK_MS) return known.large;
    if (known) {
      // A store that grew or shrank: counted again in the background, the last answer meanwhile.
      void this.#count(storeId, known).catch(() => undefined);
      return known.large;
    }
    if (this.#sizes.size >= MAX_REMEMBERED_STORES) this.#sizes.clear();
    const fresh: SizeClass = { large: false, checkedAt: 0 };
    this.#sizes.set(storeId, fresh);
    return this.#count(storeId, fresh);
  }

  #count(storeId: string, entry: SizeClass): Promise<boolean> {
    const limit = this.largeStoreProducts;
    entry.checking ??= this.deps
      .productsUpTo(storeId, limit)
      .then((count) => {
        entry.large = count >= limit;
        entry.checkedAt = Date.now();
        return entry.large;
      })
      .finally(() => (entry.checking = undefined));
    return entry.checking;
  }
}

/**
 * Opens this API process's private port on 127.0.0.1 (the same routes, for calls forwarded by the
 * other processes), tells the primary, and follows the primary's list of every process's port.
 */
export async function listenForPeers(
  owners: StoreOwners,
  processIndex: number,
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<http.Server | undefined> {
  if (!cluster.isWorker || !owners.enabled) return undefined;
  process.on('message', (message: PeerPortsMessage) => {
    if (message?.type === 'vitrine:peer-ports') owners.setPorts(message.ports);
  });
  const server = http.createServer(handler);
  // Longer than the forwarding side's keep-alive, so that a kept connection is not closed under it.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Exclusive: a cluster worker's listen(0) is otherwise the primary's one port shared by every worker.
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  process.send!({ type: 'vitrine:peer-port', index: processIndex, port } satisfies PeerPortMessage);
  return server;
}
