import type { ChangeFeed } from '../../storage/change-feed.js';
import type { Store } from '../stores/store.js';

/** The indexes a store's answers read, each with the work it has not applied yet. */
export const INDEXES = ['search', 'vocabulary', 'facets', 'complements', 'collections', 'photos'] as const;
export type IndexName = (typeof INDEXES)[number];
export type PendingWork = Record<IndexName, number>;

export interface Freshness {
  /** Per index: catalog changes not applied yet (photos: also the images waiting to be embedded). */
  pending: PendingWork;
  /** Every index has applied every change the store has (failed images do not wait). */
  caught_up: boolean;
}

/** A caught-up standing is read again after this long (or at once when the store moves). */
const SHARED_FRESH_MS = 1000;
/** Stores whose standing a process keeps (the map is emptied past this). */
const STORES_KEPT = 10_000;

/** Where the shared followers of a store stand: the store's sequence, their cursors, images to embed. */
interface SharedStanding {
  latest: number;
  search: number;
  collections: number;
  photos: number;
  images: number;
}

/**
 * How far behind the catalog each of a store's indexes is, so a client can tell when answers have
 * settled after an import (`GET /v1/stores`, `/metrics`, `vitrine import --wait`). The shared
 * followers are read from their cursors in the database; the in-memory indexes (listing facets,
 * complete the look) from this process: they follow the log on their next request.
 */
export class IndexFreshness {
  /** Per store, the last standing that found the shared followers caught up (GET /v1/stores is hot). */
  readonly #caughtUp = new Map<string, { seq: number; at: number; standing: SharedStanding }>();

  constructor(
    private readonly deps: {
      changeLog: ChangeFeed;
      /** The feed_cursors consumers of the shared followers. */
      consumers: { search: string; collections: string; photos: string };
      /** Images waiting to be embedded (pending, retries included), per store that has any. */
      imagesPending: (storeId?: string) => Promise<Map<string, number>>;
      /** The change sequence this process's in-memory indexes of a store are at (undefined: none held). */
      listingSeq: (storeId: string) => number | undefined;
      complementsSeq: (storeId: string) => number | undefined;
    },
  ) {}

  /**
   * `store.changeSeq` (as the request read the store): a standing read within the last
   * SHARED_FRESH_MS that found every shared follower caught up at that same sequence still holds
   * (cursors only move forward), so the hot GET /v1/stores costs no query while nothing moves. A
   * standing with work pending is read again each time: a client polling sees the progress.
   */
  async of(store: Pick<Store, 'id'> & { changeSeq?: number }): Promise<Freshness> {
    const now = Date.now();
    const kept = store.changeSeq === undefined ? undefined : this.#caughtUp.get(store.id);
    const standing =
      kept && kept.seq === store.changeSeq && now - kept.at <= SHARED_FRESH_MS
        ? kept.standing
        : await this.#readShared(store.id);
    const { latest, search, collections, photos, images } = standing;
    if (
      store.changeSeq !== undefined &&
      standing !== kept?.standing &&
      Math.min(search, collections, photos) >= latest &&
      images === 0
    ) {
      if (this.#caughtUp.size >= STORES_KEPT) this.#caughtUp.clear();
      this.#caughtUp.set(store.id, { seq: store.changeSeq, at: now, standing });
    }
    const pending = this.#pendingOf(store.id, standing);
    return { pending, caught_up: INDEXES.every((index) => pending[index] === 0) };
  }

  async #readShared(storeId: string): Promise<SharedStanding> {
    const { changeLog, consumers } = this.deps;
    const [search, collections, photos, images] = await Promise.all([
      changeLog.positionOf(storeId, consumers.search),
      changeLog.positionOf(storeId, consumers.collections),
      changeLog.positionOf(storeId, consumers.photos),
      this.deps.imagesPending(storeId).then((byStore) => byStore.get(storeId) ?? 0),
    ]);
    return {
      latest: Math.max(search.latest, collections.latest, photos.latest),
      search: search.cursor,
      collections: collections.cursor,
      photos: photos.cursor,
      images,
    };
  }

  /** The stores with work pending in a shared follower or the photo queue, at most `limit` (/metrics sums them). */
  async behind(limit: number): Promise<Array<{ storeId: string; pending: PendingWork }>> {
    // One query per follower for every store at once: with a thousand stores indexing, a store at a
    // time made each /metrics scrape thousands of queries.
    const { changeLog, consumers } = this.deps;
    const [search, collections, photos, images] = await Promise.all([
      changeLog.storesBehind(consumers.search),
      changeLog.storesBehind(consumers.collections),
      changeLog.storesBehind(consumers.photos),
      this.deps.imagesPending(),
    ]);
    const storeIds = [...new Set([...search.keys(), ...collections.keys(), ...photos.keys(), ...images.keys()])]
      .sort()
      .slice(0, limit);
    return storeIds.map((storeId) => {
      // A follower that is not behind on the store stands at its latest sequence.
      const latest = (search.get(storeId) ?? collections.get(storeId) ?? photos.get(storeId))?.latest ?? 0;
      const cursor = (behind: Map<string, { cursor: number }>) => behind.get(storeId)?.cursor ?? latest;
      const standing: SharedStanding = {
        latest,
        search: cursor(search),
        collections: cursor(collections),
        photos: cursor(photos),
        images: images.get(storeId) ?? 0,
      };
      return { storeId, pending: this.#pendingOf(storeId, standing) };
    });
  }

  /** What each index of a store has still to apply, given where the shared followers stand. */
  #pendingOf(storeId: string, { latest, search, collections, photos, images }: SharedStanding): PendingWork {
    const behind = (cursor: number) => Math.max(0, latest - cursor);
    // An in-memory index this process does not hold is built from the database when first asked:
    // nothing is pending for it.
    const held = (seq: number | undefined) => (seq === undefined ? 0 : behind(seq));
    return {
      search: behind(search),
      // The typo vocabulary is read from the search index: it is as current as the index.
      vocabulary: behind(search),
      facets: held(this.deps.listingSeq(storeId)),
      complements: held(this.deps.complementsSeq(storeId)),
      collections: behind(collections),
      photos: behind(photos) + images,
    };
  }
}
