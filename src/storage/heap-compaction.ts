import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * One compacting collection after a large in-memory index build.
 *
 * A build reads every product of a store: its rows' garbage and the index's own objects fill the
 * same heap pages, and V8's ordinary collections leave those pages part-used for good (a 1M-product
 * store in one process, idle for a minute after its listing, complete-the-look and photo indexes
 * were built: old space 1,173 MB for 692 MB live, RSS 2,296 MB). A compacting collection moves the
 * live objects together and hands the emptied pages back: RSS 1,664 MB, in a 1.9 s pause.
 *
 * The pause blocks the process, so it is taken only at the end of a build that held its first
 * requests much longer (a build at least `buildToPause` times the expected pause), never after the
 * small builds of a many-store database: there, bounding how far the heap grows between full
 * collections (configureHeapGrowth, below) keeps the builds' garbage from piling up instead.
 */
export interface HeapCompactionPolicy {
  /** A build whose index is estimated below this many bytes leaves the heap alone (0: never compact). */
  minIndexBytes: number;
  /** The build must have taken this many times the expected pause. */
  buildToPause: number;
}

export interface HeapCompactionStats {
  compactions: number;
  /** Seconds the process was paused by them, in all. */
  pauseSeconds: number;
  /** Heap bytes handed back by them, in all. */
  releasedBytes: number;
}

const MB = 1024 * 1024;
/** The pause expected per MB of used heap (garbage included) until one is measured (1.3–2.2 measured here). */
const FIRST_MS_PER_MB = 2;

let policy: HeapCompactionPolicy = { minIndexBytes: 64 * MB, buildToPause: 5 };
let msPerMb = FIRST_MS_PER_MB;
const stats: HeapCompactionStats = { compactions: 0, pauseSeconds: 0, releasedBytes: 0 };
let collectGarbage: (() => void) | undefined;

export function configureHeapCompaction(next: Partial<HeapCompactionPolicy>) {
  policy = { ...policy, ...next };
}

export function heapCompactionStats(): HeapCompactionStats {
  return { ...stats };
}

/**
 * How far V8 lets the old generation grow past what its last full collection kept before it collects
 * again. V8's own factor goes up to 4× on a fast machine. Touching 400 stores of 2,000 products (every
 * store's indexes built, bench/tenants.bench.ts, one hour, two API processes): V8's own, 2,248 MB of heap
 * committed for 1,646 used, the group's RSS 2,835 MB, touched in 42 s; 50 %: 1,442 MB committed, RSS
 * 1,992 MB, 45 s; 20 %: 1,329 MB, RSS 1,875 MB, but 57 s (full collections of a large heap, more often).
 * An operator's own `node --heap-growing-percent` wins; 0 leaves V8's own heuristics.
 */
export function configureHeapGrowth(percent: number) {
  if (process.execArgv.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${Math.max(0, Math.round(percent))}`);
}

/** Called when an index build ends: compacts the heap when the build was large and long enough. Returns whether it did. */
export function compactAfterBuild(indexBytes: number, buildMs: number): boolean {
  if (policy.minIndexBytes <= 0 || indexBytes < policy.minIndexBytes) return false;
  // The heap's used size counts the build's garbage until the next collection: it cannot tell how
  // much a compaction would hand back, and a build this large always leaves plenty.
  const before = v8.getHeapStatistics();
  if (buildMs < policy.buildToPause * msPerMb * (before.used_heap_size / MB)) return false;
  const started = performance.now();
  compactNow();
  const pauseMs = performance.now() - started;
  const after = v8.getHeapStatistics();
  // Per MB used before, as the next estimate reads it (the garbage included).
  msPerMb = pauseMs / Math.max(1, before.used_heap_size / MB);
  stats.compactions++;
  stats.pauseSeconds += pauseMs / 1000;
  stats.releasedBytes += Math.max(0, before.total_heap_size - after.total_heap_size);
  return true;
}

/** A full collection that compacts every fragmented page (not only those V8's heuristics pick). */
function compactNow() {
  // The `gc` function of --expose-gc, made available at run time as test tools do (jest's leak
  // detector): the flag only adds a function; the compaction flag is set around the one call.
  if (!collectGarbage) {
    v8.setFlagsFromString('--expose-gc');
    collectGarbage = vm.runInNewContext('gc') as () => void;
  }
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    collectGarbage();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}
