import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { POSTGRES_SKIP } from '../helpers/backends.js';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';

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
      assert.deepEqual(Object.keys(summary).sort(), ['failed', 'failures', 'inserted', 'rows', 'seconds', 'updated']);
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
      assert.equal(again.updated, 3, 're-running the same file updates, duplicates nothing');
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
