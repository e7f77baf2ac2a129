import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { afterEach, describe, it } from 'node:test';
import { compactAfterBuild, configureHeapCompaction, heapCompactionStats } from '../../src/storage/heap-compaction.js';
import { LiveStoreIndex, type LiveIndex } from '../../src/storage/live-store-index.js';

const MB = 1024 * 1024;
const DEFAULTS = { minIndexBytes: 64 * MB, buildToPause: 5 };

const oldSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_size;

/** Old-space pages each left holding a few live objects among dead ones: what a large build leaves. */
function fragmentHeap(): unknown[] {
  let all: Array<{ a: number; b: string }> = [];
  for (let i = 0; i < 600_000; i++) all.push({ a: i, b: `value ${i}` });
  // Promoted to old space by the collections that the allocation above runs, then nine in ten dropped.
  const kept = all.filter((_, i) => i % 10 === 0);
  all = [];
  return kept;
}

describe('heap compaction after a large index build', () => {
  afterEach(() => configureHeapCompaction(DEFAULTS));

  it('leaves the heap alone after a small build, a quick build, or when turned off', () => {
    configureHeapCompaction(DEFAULTS);
    const before = heapCompactionStats().compactions;
    assert.equal(compactAfterBuild(10 * MB, 60_000), false, 'an index below VITRINE_HEAP_COMPACT_MB');
    assert.equal(compactAfterBuild(500 * MB, 1), false, 'a build much shorter than the pause it would cost');
    configureHeapCompaction({ minIndexBytes: 0 });
    assert.equal(compactAfterBuild(500 * MB, 60_000), false, 'VITRINE_HEAP_COMPACT_MB=0');
    assert.equal(heapCompactionStats().compactions, before);
  });

  it('compacts a fragmented heap once a large build ends, handing pages back', () => {
    const kept = fragmentHeap();
    configureHeapCompaction({ minIndexBytes: 1, buildToPause: 0 });
    const before = heapCompactionStats();
    const spaceBefore = oldSpace();
    assert.equal(compactAfterBuild(100 * MB, 60_000), true);
    const after = heapCompactionStats();
    assert.equal(after.compactions, before.compactions + 1);
    assert.ok(after.pauseSeconds > before.pauseSeconds);
    // Pages that each held a tenth of their objects are emptied and returned.
    assert.ok(spaceBefore - oldSpace() > 5 * MB, `old space ${spaceBefore} -> ${oldSpace()}`);
    assert.equal(kept.length, 60_000);
  });

  it('is asked by a live index at the end of each build, with the index estimate and the build time', async () => {
    configureHeapCompaction({ minIndexBytes: 1, buildToPause: 0 });
    interface Big extends LiveIndex {
      bytes: number;
    }
    const index = new LiveStoreIndex<Big>({
      name: 'test.compaction',
      budgetBytes: 1024 * MB,
      sizeOf: (i) => i.bytes,
      build: async (_, target) => ({ seq: target.seq, key: target.key, bytes: 200 * MB }),
      follow: async () => true,
    });
    const before = heapCompactionStats().compactions;
    await index.current('store', { seq: 1, key: 'k' }, undefined);
    assert.equal(heapCompactionStats().compactions, before + 1);
    // Current: no build, no compaction.
    await index.current('store', { seq: 1, key: 'k' }, undefined);
    assert.equal(heapCompactionStats().compactions, before + 1);
    index.close();
  });
});

/** A process that keeps 30 % of what it allocates, as index builds do: the most heap it committed, in MB. */
function peakHeapMb(percent: number, nodeFlags: string[] = []): number {
  const module = fileURLToPath(new URL('../../src/storage/heap-compaction.js', import.meta.url));
  const script = `
    const v8 = await import('node:v8');
    const { configureHeapGrowth } = await import(${JSON.stringify(module)});
    configureHeapGrowth(${percent});
    const kept = [];
    let peak = 0;
    for (let round = 0; round < 40; round++) {
      const block = [];
      for (let i = 0; i < 50000; i++) block.push({ a: i, b: 'x' + i, c: [i, i + 1] });
      kept.push(block.slice(0, 15000));
      peak = Math.max(peak, v8.getHeapStatistics().total_heap_size);
    }
    console.log(peak / 1048576);`;
  return Number(
    execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], { encoding: 'utf8' }),
  );
}

describe('heap growth (VITRINE_HEAP_GROWTH_PERCENT)', () => {
  it("collects before the heap has grown far past what it keeps, unless node's own flag says otherwise", () => {
    const v8Own = peakHeapMb(0);
    const at20 = peakHeapMb(20);
    assert.ok(at20 < v8Own * 0.9, `20 %: ${at20} MB at most, V8's own: ${v8Own} MB`);
    // The operator's flag wins over the setting.
    const operator = peakHeapMb(20, ['--heap-growing-percent=300']);
    assert.ok(operator > at20 * 1.1, `node --heap-growing-percent=300: ${operator} MB, the setting's 20 %: ${at20} MB`);
  });
});
