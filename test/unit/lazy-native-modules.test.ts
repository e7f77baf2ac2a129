import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';

// The compiled test runs from build/test/unit; the modules it loads are the build's src/.
const BUILD_SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const url = (file: string) => pathToFileURL(path.join(BUILD_SRC, file)).href;

/**
 * An API process that has handled no image and runs without Redis loads neither sharp (libvips,
 * ~20 MB resident) nor ioredis (~2 MB of heap) nor undici (~3 MB, outbound fetches): issue 42's footprint. Checked in a fresh process,
 * with sharp loaded afterwards through the same path an upload takes, so the check can see it.
 */
describe('native and optional modules load on first use', () => {
  it('a built app on SQLite without Redis has not loaded sharp, ioredis, pg or undici; the first image work loads sharp', () => {
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const { createContainer } = await import(${JSON.stringify(url('container.js'))});
      const { loadConfig } = await import(${JSON.stringify(url('config.js'))});
      const { buildApp } = await import(${JSON.stringify(url('app.js'))});
      const container = createContainer(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }));
      const app = await buildApp(container);
      await app.ready();
      const loaded = () => Object.keys(require.cache).flatMap((k) => /node_modules\\/(sharp|ioredis|pg|undici)\\//.exec(k)?.[1] ?? []);
      const before = [...new Set(loaded())];
      const { loadSharp } = await import(${JSON.stringify(url('vision/lazy-sharp.js'))});
      await loadSharp()({ create: { width: 2, height: 2, channels: 3, background: '#fff' } }).png().toBuffer();
      console.log(JSON.stringify({ before, after: [...new Set(loaded())] }));
      process.exit(0);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const { before, after } = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
      before: string[];
      after: string[];
    };
    assert.deepEqual(before, []);
    assert.deepEqual(after, ['sharp']);
  });
});
