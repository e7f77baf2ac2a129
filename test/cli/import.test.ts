import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { POSTGRES_SKIP } from '../helpers/backends.js';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-import-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
};

// A slice of the real styles.csv layout, with its unquoted-comma problem on one line.
const STYLES = `id,gender,masterCategory,subCategory,articleType,baseColour,season,year,usage,productDisplayName
15970,Men,Apparel,Topwear,Shirts,Navy Blue,Fall,2011,Casual,Turtle Check Men Navy Blue Shirt
39386,Men,Apparel,Bottomwear,Jeans,Blue,Summer,2012,Casual,Peter England Men Party Blue Jeans
44065,Men,Personal Care,Fragrance,Perfume and Body Mist,Blue,Spring,2017,Casual,Boss Men Perfume, After Shave Balm
59263,Women,Accessories,Watches,Watches,Silver,Winter,2016,Casual,Titan Women Silver Watch
15970,Men,Apparel,Topwear,Shirts,Navy Blue,Fall,2011,Casual,Turtle Check Men Navy Blue Shirt v2
`;
const MAPPING = {
  fields: {
    id: 'product_code',
    productDisplayName: 'Product Name',
    articleType: 'Category',
    gender: 'Department',
    baseColour: 'Colour',
  },
  required: [],
};

function importSuite(dialect: 'sqlite' | 'postgres') {
  describe(`vitrine import [${dialect}]`, { skip: dialect === 'postgres' ? POSTGRES_SKIP : false }, () => {
    const databaseUrl = cliDatabase(dialect);
    const cli = (...args: string[]) => runCli(databaseUrl(), args);
    let store = '';
    const products = () => jsonOf(cli('store', 'list', '--json'));

    it('imports a CSV through the mapping profile, reporting malformed lines with their line numbers', () => {
      store = JSON.parse(
        cli('store', 'create', '--workspace-name', 'Imp', '--name', 'Imp', '--json').stdout,
      ).store_uuid;
      assert.equal(
        cli('mapping', 'set', '--store', store, '--file', file('mapping.json', JSON.stringify(MAPPING))).status,
        0,
      );
      const rejects = path.join(dir, 'rejects.ndjson');
      const r = cli('import', '--store', store, file('styles.csv', STYLES), '--json', '--rejects', rejects);
      assert.equal(r.status, 0, r.stderr);
      const summary = JSON.parse(r.stdout);
      assert.deepEqual(Object.keys(summary).sort(), [
        'dry_run',
        'failed',
        'failures',
        'hint',
        'inserted',
        'mode',
        'problems',
        'rows',
        'seconds',
        'statuses',
        'suggested_mapping',
        'unchanged',
        'updated',
      ]);
      assert.deepEqual(summary.statuses, { problem: 3 });
      assert.deepEqual(summary.problems, { 'Missing price': 3, 'Missing images': 3 });
      assert.equal(
        summary.hint,
        '3 products are in `problem`: Missing price 3, Missing images 3 — see README › Quality checks',
      );
      assert.match(r.stderr, /3 products are in `problem`/, 'the hint is said on stderr too');
      assert.equal(summary.rows, 5);
      assert.equal(summary.inserted, 3, 'the same product twice: the last row wins, stored once');
      assert.equal(summary.failed, 1);
      assert.deepEqual(summary.failures, { field_count: 1 });
      const [reject] = fs
        .readFileSync(rejects, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(reject.line, 4);
      assert.equal(reject.reason, 'field_count');
      assert.equal(reject.product_code, '44065');
      assert.ok(products().stores.length >= 1);
      // unknown columns are kept as attributes: masterCategory is not in the mapping
      const again = jsonOf(cli('import', '--store', store, file('styles.csv', STYLES), '--json'));
      assert.equal(again.inserted, 0);
      assert.equal(again.unchanged, 3, 're-running the same file changes nothing, duplicates nothing');
    });

    it('detects the delimiter and reads JSON arrays and NDJSON, rejecting broken lines alone', () => {
      const semicolons = cli(
        'import',
        '--store',
        store,
        file('semi.csv', 'product_code;Product Name;Category;Selling Price\nS1;"Semi; colon";Shirts;10\n'),
        '--json',
      );
      assert.equal(JSON.parse(semicolons.stdout).inserted, 1, semicolons.stderr);
      const json = JSON.parse(
        cli(
          'import',
          '--store',
          store,
          file(
            'items.json',
            JSON.stringify([{ product_code: 'J1', 'Product Name': 'A' }, { product_code: 'J2' }, 'nope']),
          ),
          '--json',
        ).stdout,
      );
      assert.equal(json.rows, 3);
      assert.equal(json.inserted, 2);
      assert.deepEqual(json.failures, { not_an_object: 1 });
      const ndjson = JSON.parse(
        cli(
          'import',
          '--store',
          store,
          file('items.ndjson', '{"product_code":"N1"}\n{"product_code": broken\n\n{"product_code":"N2"}\n'),
          '--json',
        ).stdout,
      );
      assert.equal(ndjson.inserted, 2);
      assert.deepEqual(ndjson.failures, { invalid_json: 1 });
    });

    it('reports rows that are not valid UTF-8 and items the product rules refuse', () => {
      const bytes = Buffer.concat([
        Buffer.from('product_code,Product Name\nU1,ok\nU2,'),
        Buffer.from([0xff, 0xfe, 0x41]),
        Buffer.from('\n,no code\n'),
      ]);
      const r = jsonOf(cli('import', '--store', store, file('bad.csv', bytes), '--json'));
      assert.equal(r.inserted, 1);
      assert.deepEqual(r.failures, { invalid_encoding: 1, 'Missing SKU': 1 });
      const latin = JSON.parse(
        cli(
          'import',
          '--store',
          store,
          file('latin.csv', Buffer.from('product_code,Product Name\nL1,Écharpe\n', 'latin1')),
          '--encoding',
          'latin1',
          '--json',
        ).stdout,
      );
      assert.equal(latin.inserted, 1);
    });

    it('merges a price feed, dry-runs, uploads a folder of photos, and exports a file that imports back unchanged', () => {
      const feed = file('prices.csv', 'id,Selling Price\n15970,19.90\n39386,29\n99999,5\n');
      const dry = jsonOf(cli('import', '--store', store, feed, '--mode', 'merge', '--dry-run', '--json'));
      // A merge creates what is new (99999: price only, so held back in problem).
      assert.deepEqual([dry.dry_run, dry.updated, dry.inserted, dry.failed], [true, 2, 1, 0], JSON.stringify(dry));
      assert.equal(
        dry.hint,
        '3 products would be in `problem`: Missing images 2, Missing title and images 1, Missing category 1 — see README › Quality checks',
      );
      const merged = jsonOf(cli('import', '--store', store, feed, '--mode', 'merge', '--json'));
      assert.deepEqual([merged.updated, merged.inserted], [2, 1]);

      const photos = fs.mkdtempSync(path.join(dir, 'photos-'));
      const jpeg = fs.readFileSync(path.resolve('samples/demo/photos/DEMO-001.jpg'));
      fs.writeFileSync(path.join(photos, '15970.jpg'), jpeg);
      fs.writeFileSync(
        path.join(photos, '15970_2.jpg'),
        fs.readFileSync(path.resolve('samples/demo/photos/DEMO-002.jpg')),
      );
      fs.writeFileSync(path.join(photos, '39386.jpg'), jpeg);
      fs.writeFileSync(path.join(photos, 'unknown-code.jpg'), jpeg);
      fs.writeFileSync(path.join(photos, '59263.jpg'), 'not a photo');
      const uploaded = jsonOf(cli('import', '--store', store, '--images', photos, '--json'));
      assert.deepEqual(
        [uploaded.images.files, uploaded.images.matched, uploaded.images.uploaded, uploaded.images.products],
        [5, 4, 3, 2],
        JSON.stringify(uploaded),
      );
      assert.deepEqual(uploaded.images.failures, { unsupported_type: 1 });
      assert.deepEqual(uploaded.images.unmatched_files, ['unknown-code.jpg']);

      const exported = path.join(dir, `export-${dialect}.ndjson`);
      const written = jsonOf(cli('export', '--store', store, exported, '--json'));
      const lines = fs
        .readFileSync(exported, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(written.products, lines.length);
      const shirt = lines.find((l) => l.product_code === '15970');
      assert.equal(shirt['Selling Price'], '19.90');
      assert.match(shirt['Image URL 1'], /\/media\/[0-9a-f]{64}\.jpg$/);
      assert.match(shirt['Image URL 2'], /\/media\/[0-9a-f]{64}\.jpg$/);
      assert.equal(shirt.Status, 'new', 'price and photo: the shirt passes the checks');
      const roundTrip = jsonOf(cli('import', '--store', store, exported, '--json'));
      assert.equal(roundTrip.unchanged, lines.length, JSON.stringify(roundTrip));
      assert.deepEqual([roundTrip.inserted, roundTrip.updated, roundTrip.failed], [0, 0, 0]);

      const badStatus = cli('export', '--store', store, path.join(dir, 'x.ndjson'), '--status', 'sold');
      assert.notEqual(badStatus.status, 0);
      assert.match(badStatus.stderr, /--status must be one of/);
      const badMode = cli('import', '--store', store, feed, '--mode', 'upsert');
      assert.notEqual(badMode.status, 0);
      assert.match(badMode.stderr, /--mode must be one of replace, merge/);
    });

    it('waits with --wait until every index has applied the import, and says what is pending when nothing applies it', async () => {
      const created = JSON.parse(cli('store', 'create', '--workspace-name', 'Wait', '--name', 'Wait', '--json').stdout);
      assert.equal(
        cli('mapping', 'set', '--store', created.store_uuid, '--file', file('mapping.json', JSON.stringify(MAPPING)))
          .status,
        0,
      );
      // No server runs: nothing applies the import, and --wait says so.
      const alone = cli('import', '--store', created.store_uuid, file('wait1.csv', STYLES), '--wait', '1');
      assert.equal(alone.status, 1, alone.stdout);
      assert.match(
        alone.stderr,
        /had not applied the import after 1 s \(pending: search \d+, vocabulary \d+, collections \d+, photos \d+\)/,
      );
      const served = await startServe(databaseUrl(), {}, ['--processes', '1']);
      try {
        const more = STYLES.replaceAll('Navy Blue Shirt', 'Navy Blue Oxford Shirt');
        const waited = cli('import', '--store', created.store_uuid, file('wait2.csv', more), '--wait', '60', '--json');
        assert.equal(waited.status, 0, waited.stderr);
        assert.ok(JSON.parse(waited.stdout).indexes_caught_up_seconds >= 0);
        // The server's own in-memory indexes (facets, complete the look) follow within a moment of the
        // shared ones --wait waited for: a client polling GET /v1/stores sees them catch up.
        let indexes: { caught_up: boolean; pending: object } | undefined;
        for (let tries = 0; tries < 50 && !indexes?.caught_up; tries++) {
          if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
          const res = await fetch(`${served.url}/v1/stores?store_uuid=${created.store_uuid}`, {
            headers: { authorization: `Bearer ${created.api_token}` },
          });
          indexes = ((await res.json()) as { data: { indexes: typeof indexes } }).data.indexes;
        }
        assert.equal(indexes?.caught_up, true, JSON.stringify(indexes));
      } finally {
        await served.stop();
      }
    });

    it('fails with one line for an empty file, a JSON file that is not an array, an unknown store or format', () => {
      for (const [args, message] of [
        [[file('empty.csv', '')], /empty/],
        [[file('notarray.json', '{"product_code": "x"}')], /array/],
        [['--encoding', 'ebcdic', file('x.csv', 'a\n1\n')], /encoding/],
        [[file('catalog.xml', '<x/>')], /format/],
        [[path.join(dir, 'missing.csv')], /no such file/],
      ] as Array<[string[], RegExp]>) {
        const r = cli('import', '--store', store, ...args);
        assert.notEqual(r.status, 0, args.join(' '));
        assert.match(r.stderr.trim(), message);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      }
      const unknown = cli(
        'import',
        '--store',
        '00000000-0000-0000-0000-000000000000',
        file('ok.csv', 'product_code\nx\n'),
      );
      assert.notEqual(unknown.status, 0);
      assert.match(unknown.stderr, /store not found/);
      const headerOnly = JSON.parse(
        cli('import', '--store', store, file('header.csv', 'product_code,Product Name\n'), '--json').stdout,
      );
      assert.equal(headerOnly.rows, 0);
    });
  });
}

importSuite('sqlite');
importSuite('postgres');
