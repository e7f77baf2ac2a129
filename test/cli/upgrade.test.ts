import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';
import { POSTGRES_SKIP } from '../helpers/backends.js';
import { until } from '../helpers/receiver.js';

// Upgrades (issue 45): a database written by the first release (v0.1.0, commit 6d5d8fe) with a
// catalog (PRODUCTS), a second store, a collection, a webhook subscription and two tokens migrates to the current
// schema on both engines with all of it intact, and answers searches exactly as a database the current
// release wrote from the same catalog. The old release is built from the repository's history.

const V010 = '6d5d8fe';
/** 10,000 was run and passes on both engines (VITRINE_UPGRADE_PRODUCTS=10000); npm test keeps to 3,000 for its time budget. */
const PRODUCTS = Number(process.env.VITRINE_UPGRADE_PRODUCTS ?? 3000);

/** Why the old release cannot be built here (no git history of it), or undefined. */
function unavailable(): string | undefined {
  try {
    execSync(`git cat-file -e ${V010}^{commit}`, { stdio: 'ignore' });
    return undefined;
  } catch {
    return `SKIPPED: commit ${V010} (v0.1.0) is not in this clone's history`;
  }
}
const SKIP = unavailable();

/**
 * The release's `src` emitted file by file without type checking (it was checked when it was made), its
 * JSON beside it: two seconds, where `tsc --noCheck` on the whole project (tests and benches too) took
 * 30 s or more of the suite's time.
 */
function transpileRelease(release: string) {
  const files = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
  for (const file of files(path.join(release, 'src'))) {
    const target = path.join(release, 'dist', path.relative(release, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (file.endsWith('.json')) fs.copyFileSync(file, target);
    else if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
      const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, esModuleInterop: true },
        fileName: file,
      });
      fs.writeFileSync(target.replace(/\.ts$/, '.js'), outputText);
    }
  }
}

/** A deterministic catalog: families of colourways across types, audiences and colours. */
function catalogCsv(file: string) {
  const types = [
    ['Dress', 'Dresses'],
    ['T-shirt', 'T-shirts'],
    ['Jeans', 'Jeans'],
    ['Sneakers', 'Sneakers'],
    ['Handbag', 'Handbags'],
    ['Jacket', 'Jackets'],
    ['Skirt', 'Skirts'],
    ['Shirt', 'Shirts'],
    ['Boots', 'Boots'],
    ['Scarf', 'Scarves'],
  ];
  const colours = ['Black', 'White', 'Red', 'Navy Blue', 'Green', 'Beige', 'Pink', 'Grey'];
  const audiences = ['Women', 'Men', 'Girls', 'Boys'];
  const brands = ['Aurora', 'Borealis', 'Cobalt', 'Dune', 'Ember', 'Fjord', 'Gala', 'Harbor'];
  const lines = ['product_code,Product Name,Category,Department,Colour,Selling Price,Currency,parent_code,Image URL 1'];
  for (let i = 0; i < PRODUCTS; i++) {
    const [type, category] = types[i % types.length];
    const colour = colours[Math.floor(i / 10) % colours.length];
    const audience = audiences[Math.floor(i / 80) % audiences.length];
    const brand = brands[Math.floor(i / 320) % brands.length];
    lines.push(
      `UP-${i},${brand} ${audience} ${colour} ${type} ${i % 97},${category},${audience},${colour},${(10 + (i % 190)).toFixed(2)},EUR,FAM-${Math.floor(i / 4)},https://images.example/UP-${i}.jpg`,
    );
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/** A collection's member codes, sorted (the answer's other fields grew between releases). */
async function membersOf(base: string, store: { store_uuid: string; api_token: string }, id: string) {
  const res = await fetch(`${base}/v1/collection/${id}/products?store_uuid=${store.store_uuid}&limit=1000`, {
    headers: { authorization: `Bearer ${store.api_token}` },
  });
  assert.equal(res.status, 200, await res.clone().text());
  const data = ((await res.json()) as { data: unknown }).data as
    Array<{ product_code: string }> | { products: Array<{ product_code: string }> };
  return (Array.isArray(data) ? data : data.products).map((p) => p.product_code).sort();
}

const QUERIES = ['dress', 'black sneakers', 'women red skirt', 'aurora jacket', 'navy blue shirt 42', 'bots'];

describe('upgrading from v0.1.0', { skip: SKIP }, () => {
  let release = '';
  let work = '';
  let csv = '';

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-upgrade-'));
    release = path.join(work, 'v0.1.0');
    fs.mkdirSync(release);
    execSync(`git archive ${V010} | tar -x -C ${release}`);
    fs.symlinkSync(path.resolve('node_modules'), path.join(release, 'node_modules'));
    transpileRelease(release);
    csv = path.join(work, 'catalog.csv');
    catalogCsv(csv);
  });
  after(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  for (const dialect of ['sqlite', 'postgres'] as const) {
    describe(dialect, { skip: dialect === 'postgres' ? POSTGRES_SKIP : false }, () => {
      const oldDatabase = cliDatabase(dialect);
      const freshDatabase = cliDatabase(dialect);

      it('migrates with every product, store, collection, token and subscription intact, and the same answers', async (t) => {
        const old = path.join(release, 'bin/vitrine.js');
        // A subscription to a local address (nothing is delivered: no product changes after it).
        const runOld = (args: string[]) => runCli(oldDatabase(), args, old, { VITRINE_ALLOW_PRIVATE_FETCH: 'true' });
        // 1. The first release writes its database.
        jsonOf(runOld(['migrate', '--json']));
        const shop = jsonOf(runOld(['store', 'create', '--workspace-name', 'Upgrade', '--name', 'Shop', '--json']));
        const second = jsonOf(runOld(['token', 'create', '--workspace', shop.workspace_id, '--json']));
        const imported = jsonOf(runOld(['import', csv, '--store', shop.store_uuid, '--json']));
        assert.equal(imported.rejected ?? 0, 0, JSON.stringify(imported));
        jsonOf(runOld(['demo', '--json']));
        const hook = jsonOf(
          runOld(['webhook', 'add', '--store', shop.store_uuid, '--url', 'http://127.0.0.1:9/hook', '--json']),
        );
        const oldServe = await startServe(oldDatabase(), {}, ['--processes', '1', '--no-worker'], old);
        let collectionId: string;
        let membersBefore: string[];
        try {
          const res = await fetch(`${oldServe.url}/v1/collection?store_uuid=${shop.store_uuid}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${shop.api_token}`, 'content-type': 'application/json' },
            body: JSON.stringify([{ name: 'Red dresses', filters: { Category: 'Dresses', Colour: 'Red' } }]),
          });
          const created = (await res.json()) as { data: { ids: string[] } };
          assert.ok(res.ok, JSON.stringify(created));
          collectionId = created.data.ids[0];
          // Rule memberships are computed in the background.
          await until(async () => (await membersOf(oldServe.url, shop, collectionId)).length > 0, 'members', 20_000);
          membersBefore = await membersOf(oldServe.url, shop, collectionId);
        } finally {
          await oldServe.stop();
        }
        // 2. The current release lists, then runs, what it adds.
        const dryRun = jsonOf(runCli(oldDatabase(), ['migrate', '--dry-run', '--json']));
        assert.ok(dryRun.pending.length > 0 && dryRun.pending.includes('0021-tagging'), JSON.stringify(dryRun));
        const migrated = jsonOf(runCli(oldDatabase(), ['migrate', '--json']));
        assert.deepEqual(migrated.applied, dryRun.pending);
        assert.deepEqual(jsonOf(runCli(oldDatabase(), ['migrate', '--dry-run', '--json'])).pending, []);
        t.diagnostic(`ran ${migrated.applied.join(', ')}`);
        // 3. The same catalog written by the current release, for the answers to compare with.
        jsonOf(runCli(freshDatabase(), ['migrate', '--json']));
        const fresh = jsonOf(
          runCli(freshDatabase(), ['store', 'create', '--workspace-name', 'Upgrade', '--name', 'Shop', '--json']),
        );
        jsonOf(runCli(freshDatabase(), ['import', csv, '--store', fresh.store_uuid, '--json']));

        const upgraded = await startServe(oldDatabase(), {}, ['--processes', '1', '--no-worker']);
        const current = await startServe(freshDatabase(), {}, ['--processes', '1', '--no-worker']);
        try {
          const get = async (base: string, url: string, token: string) => {
            const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } });
            assert.equal(res.status, 200, `${url}: ${res.status}`);
            return ((await res.json()) as { data: unknown }).data;
          };
          // Both tokens still work; every product is there.
          for (const token of [shop.api_token, second.api_token]) {
            const listed = (await get(upgraded.url, `/v1/products?store_uuid=${shop.store_uuid}&limit=1`, token)) as {
              total: number;
            };
            assert.equal(listed.total, PRODUCTS);
          }
          const stores = (await get(upgraded.url, `/v1/workspace/stores`, shop.api_token)) as unknown[];
          assert.equal(stores.length, 1);
          assert.deepEqual(await membersOf(upgraded.url, shop, collectionId), membersBefore, 'the collection');
          const hooks = jsonOf(runCli(oldDatabase(), ['webhook', 'list', '--store', shop.store_uuid, '--json']));
          assert.ok(JSON.stringify(hooks).includes(hook.id ?? hook.subscription_id ?? 'http://127.0.0.1:9/hook'));
          // The searches answer as on a database the current release wrote.
          for (const query of QUERIES) {
            const url = (store: string) => `/v1/search?store_uuid=${store}&query=${encodeURIComponent(query)}&limit=20`;
            const a = await get(upgraded.url, url(shop.store_uuid), shop.api_token);
            const b = await get(current.url, url(fresh.store_uuid), fresh.api_token);
            assert.deepEqual(a, b, query);
          }
        } finally {
          await upgraded.stop();
          await current.stop();
        }
      });
    });
  }
});
