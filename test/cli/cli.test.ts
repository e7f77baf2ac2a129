import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { POSTGRES_SKIP } from '../helpers/backends.js';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';

function cliSuite(dialect: 'sqlite' | 'postgres') {
  describe(`vitrine CLI [${dialect}]`, { skip: dialect === 'postgres' ? POSTGRES_SKIP : false }, () => {
    const databaseUrl = cliDatabase(dialect);
    const cli = (...args: string[]) => runCli(databaseUrl(), args);
    const storeCount = () => jsonOf(cli('store', 'list', '--json')).stores.length as number;

    it('migrate exits 0 and is idempotent', () => {
      assert.equal(cli('migrate').status, 0);
      const again = cli('migrate', '--json');
      assert.equal(again.status, 0);
      assert.deepEqual(JSON.parse(again.stdout), { migrated: true, applied: [] });
    });

    it('store create --json prints exactly one JSON object', () => {
      const r = cli(
        'store',
        'create',
        '--workspace-name',
        'Acme',
        '--name',
        'Acme FR',
        '--channel',
        'web',
        '--channel',
        'app',
        '--country',
        'FR',
        '--country',
        'DE',
        '--website',
        'https://acme.example',
        '--json',
      );
      assert.equal(r.status, 0, r.stderr);
      const created = JSON.parse(r.stdout);
      assert.deepEqual(Object.keys(created).sort(), ['api_token', 'store_uuid', 'workspace_id']);
      assert.match(created.api_token, /^vt_/);
      const list = jsonOf(cli('store', 'list', '--json')).stores;
      const listed = list.find((s: { store_uuid: string }) => s.store_uuid === created.store_uuid);
      assert.deepEqual(listed.channels, { web: 0, app: 0 });
      assert.equal(listed.default_channel, 'web');
      assert.deepEqual(listed.country, ['FR', 'DE']);
      // same workspace name: same workspace, new token
      const second = JSON.parse(
        cli('store', 'create', '--workspace-name', 'Acme', '--name', 'Acme DE', '--json').stdout,
      );
      assert.equal(second.workspace_id, created.workspace_id);
      assert.notEqual(second.api_token, created.api_token);
    });

    it('vocabulary show lists how labels resolve; vocabulary set merges overrides and refuses unknown groups', () => {
      const created = jsonOf(cli('store', 'create', '--workspace-name', 'Words', '--name', 'Words', '--json'));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-vocab-'));
      const file = path.join(dir, 'catalog.csv');
      fs.writeFileSync(
        file,
        [
          'product_code,Product Name,Category,Department,Colour,Selling Price,Image URL 1',
          'a,Strap top,Vest top,Ladieswear,Greenish Khaki,10,https://i.example/a.jpg',
          'b,Sleeping bag,Sleep Bag,Divided,Mole,20,https://i.example/b.jpg',
        ].join('\n'),
      );
      assert.equal(cli('import', '--store', created.store_uuid, file, '--json').status, 0);
      fs.rmSync(dir, { recursive: true, force: true });
      const shown = jsonOf(cli('vocabulary', 'show', '--store', created.store_uuid, '--json'));
      const vest = shown.categories.find((c: { label: string }) => c.label === 'Vest top');
      assert.deepEqual([vest.group, vest.how], ['TOPWEAR', 'exact']);
      assert.equal(shown.departments.find((d: { label: string }) => d.label === 'Divided').audience, null);
      const text = cli('vocabulary', 'show', '--store', created.store_uuid);
      assert.match(text.stdout, /Ladieswear {2}1 {2}-> women/);

      const set = cli('vocabulary', 'set', '--store', created.store_uuid, '--department', 'Divided=women', '--json');
      assert.equal(set.status, 0, set.stderr);
      assert.deepEqual(jsonOf(set).overrides.departments, { Divided: 'women' });
      const more = cli(
        'vocabulary',
        'set',
        '--store',
        created.store_uuid,
        '--category',
        'Sleep Bag=nightwear',
        '--json',
      );
      assert.deepEqual(jsonOf(more).overrides, {
        categories: { 'Sleep Bag': 'NIGHTWEAR' },
        departments: { Divided: 'women' },
        colours: {},
      });
      const bad = cli('vocabulary', 'set', '--store', created.store_uuid, '--category', 'Sleep Bag=BEDS');
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr, /BEDS/);
      assert.equal(bad.stderr.trim().split('\n').length, 1);
      const removed = cli('vocabulary', 'set', '--store', created.store_uuid, '--department', 'Divided=', '--json');
      assert.deepEqual(jsonOf(removed).overrides.departments, {});
    });

    it("images status lists the store's image pipeline; an unknown store fails with one line", () => {
      const created = jsonOf(cli('store', 'create', '--workspace-name', 'Pics', '--name', 'Pics', '--json'));
      const file = path.join(os.tmpdir(), `vitrine-images-${process.pid}-${dialect}.csv`);
      fs.writeFileSync(
        file,
        'product_code,Product Name,Category,Selling Price,Image URL 1,Image URL 2\nI1,Shirt,Shirts,10,https://img.example/i1.jpg,https://img.example/i1b.jpg\nI2,Jeans,Jeans,12,https://img.example/i1.jpg,\n',
      );
      assert.equal(cli('import', '--store', created.store_uuid, file, '--json').status, 0);
      const r = cli('images', 'status', '--store', created.store_uuid, '--json');
      assert.equal(r.status, 0, r.stderr);
      const status = JSON.parse(r.stdout);
      assert.deepEqual(
        { images: status.images, pending: status.pending, indexed: status.indexed, failed: status.failed },
        { images: 2, pending: 2, indexed: 0, failed: 0 },
      );
      const unknown = cli('images', 'status', '--store', '00000000-0000-0000-0000-000000000000', '--json');
      assert.notEqual(unknown.status, 0);
      assert.equal(unknown.stderr.trim().split('\n').length, 1);
      fs.rmSync(file, { force: true });
    });

    it('fails with one line on stderr, a non-zero exit and nothing created on bad arguments', () => {
      const before = storeCount();
      for (const args of [
        ['store', 'create', '--workspace-name', 'X', '--json'],
        ['store', 'create', '--name', 'X'],
        ['store', 'create', '--workspace-name', 'X', '--name', 'S', '--website', 'not a url'],
        ['store', 'create', '--workspace-name', 'X', '--name', 'S', '--country', 'France'],
        ['store', 'create', '--workspace-name', 'X', '--name', 'S', '--linked-store', 'nope'],
        ['serve', '--port', 'abc'],
        ['token', 'create'],
        ['token', 'create', '--workspace', 'nope'],
        ['token', 'revoke', 'nope'],
        ['token', 'list', '--workspace', 'nope'],
        ['bogus'],
      ]) {
        const r = cli(...args);
        assert.notEqual(r.status, 0, args.join(' '));
        assert.equal(r.stdout, '', args.join(' '));
        assert.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /^vitrine: /);
      }
      assert.equal(storeCount(), before);
    });

    it('creates and revokes tokens', () => {
      const created = jsonOf(cli('store', 'create', '--workspace-name', 'Tok', '--name', 'T', '--json'));
      const token = cli('token', 'create', '--workspace', created.workspace_id, '--json');
      assert.equal(token.status, 0, token.stderr);
      const { token_id, api_token } = JSON.parse(token.stdout);
      assert.match(api_token, /^vt_/);
      assert.equal(cli('token', 'revoke', token_id).status, 0);
      const twice = cli('token', 'revoke', token_id, '--json');
      assert.equal(twice.status, 0);
      const listed = JSON.parse(cli('token', 'list', '--workspace', created.workspace_id, '--json').stdout) as Array<{
        token_id: string;
        revoked_at: string | null;
      }>;
      assert.equal(listed.length, 2);
      assert.equal(typeof listed.find((t) => t.token_id === token_id)?.revoked_at, 'string');
      assert.ok(!JSON.stringify(listed).includes(api_token));
      assert.match(
        cli('token', 'list', '--workspace', created.workspace_id).stdout,
        new RegExp(`${token_id}  workspace token  created .*  revoked `),
      );
    });

    it('sets a mapping profile from a file and refuses a broken one', () => {
      const created = jsonOf(cli('store', 'create', '--workspace-name', 'Map', '--name', 'M', '--json'));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-map-'));
      const good = path.join(dir, 'mapping.json');
      fs.writeFileSync(
        good,
        JSON.stringify({ fields: { id: 'product_code', productDisplayName: 'Product Name' }, required: ['Category'] }),
      );
      const r = cli('mapping', 'set', '--store', created.store_uuid, '--file', good, '--json');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).mapping.fields.id, 'product_code');
      const bad = path.join(dir, 'bad.json');
      fs.writeFileSync(bad, '{"fields": ');
      const broken = cli('mapping', 'set', '--store', created.store_uuid, '--file', bad);
      assert.notEqual(broken.status, 0);
      assert.match(broken.stderr, /^vitrine: cannot read mapping file/);
      assert.notEqual(cli('mapping', 'set', '--store', 'nope', '--file', good).status, 0);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('prints search and product analytics of a store, and refuses a bad day', () => {
      const created = jsonOf(cli('store', 'create', '--workspace-name', 'Analytics', '--name', 'A', '--json'));
      const search = cli('analytics', 'search', '--store', created.store_uuid, '--json');
      assert.equal(search.status, 0, search.stderr);
      const report = JSON.parse(search.stdout);
      assert.deepEqual(report.top_queries, []);
      assert.match(report.to, /^\d{4}-\d{2}-\d{2}$/);
      const products = cli('analytics', 'products', '--store', created.store_uuid);
      assert.equal(products.status, 0, products.stderr);
      assert.match(products.stdout, /^products, /);
      const bad = cli('analytics', 'search', '--store', created.store_uuid, '--from', 'soon');
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr, /from/);
    });

    it("shows and sets a store's merchandising rules, refusing a faulty rule with its path", () => {
      const created = jsonOf(cli('store', 'create', '--workspace-name', 'Rules', '--name', 'R', '--json'));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-rules-'));
      const file = path.join(dir, 'rules.json');
      const rules = [
        { id: 'pin', when: { query: 'dress', match: 'contains' }, pin: [{ product_code: 'A', position: 2 }] },
        { id: 'hide', when: { always: true }, hide: ['B'] },
      ];
      fs.writeFileSync(file, JSON.stringify({ rules }));
      const set = cli('search-rules', 'set', '--store', created.store_uuid, '--file', file, '--json');
      assert.equal(set.status, 0, set.stderr);
      assert.equal(JSON.parse(set.stdout).rules.length, 2);
      const shown = cli('search-rules', 'show', '--store', created.store_uuid);
      assert.equal(shown.status, 0, shown.stderr);
      assert.deepEqual(
        JSON.parse(shown.stdout).rules.map((r: { id: string }) => r.id),
        ['pin', 'hide'],
      );
      fs.writeFileSync(
        file,
        JSON.stringify({ rules: [{ id: 'x', when: { always: true }, boost: [{ filters: { Fabrik: 'silk' } }] }] }),
      );
      const bad = cli('search-rules', 'set', '--store', created.store_uuid, '--file', file);
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr, /rules\[0\]\.boost\[0\]\.filters\.Fabrik/);
      assert.equal(bad.stderr.trim().split('\n').length, 1);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("issues a publishable key for named stores and sets a store's allowed origins", () => {
      const created = jsonOf(cli('store', 'create', '--workspace-name', 'Front', '--name', 'Shop', '--json'));
      const key = jsonOf(
        cli(
          'token',
          'create',
          '--workspace',
          created.workspace_id,
          '--scope',
          'search',
          '--store',
          created.store_uuid,
          '--json',
        ),
      );
      assert.match(key.api_token, /^vt_pk_/);
      assert.equal(key.scope, 'search');
      assert.deepEqual(key.store_uuids, [created.store_uuid]);
      for (const args of [
        ['token', 'create', '--workspace', created.workspace_id, '--scope', 'search'],
        ['token', 'create', '--workspace', created.workspace_id, '--scope', 'everything'],
        ['store', 'cors', '--store', created.store_uuid, '--origin', 'https://shop.example/path'],
      ]) {
        const r = cli(...args);
        assert.notEqual(r.status, 0, args.join(' '));
        assert.match(r.stderr, /^vitrine: /);
      }
      const set = jsonOf(
        cli(
          'store',
          'cors',
          '--store',
          created.store_uuid,
          '--origin',
          'https://shop.example',
          '--origin',
          'http://localhost:5173',
          '--json',
        ),
      );
      assert.deepEqual(set.allowed_origins, ['https://shop.example', 'http://localhost:5173']);
      assert.deepEqual(
        jsonOf(cli('store', 'cors', '--store', created.store_uuid, '--json')).allowed_origins,
        set.allowed_origins,
      );
      assert.deepEqual(
        jsonOf(cli('store', 'cors', '--store', created.store_uuid, '--clear', '--json')).allowed_origins,
        [],
      );
    });
  });
}

describe('vitrine CLI start-up', () => {
  it('prints its version, and marks required options in help', () => {
    const version = runCli('sqlite::memory:', ['--version']);
    assert.equal(version.status, 0);
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), pkg.version);
    const help = runCli('sqlite::memory:', ['store', 'create', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--workspace-name <name>\s+\(required\)/);
    assert.match(help.stdout, /--website <url>\s+store website/);
  });

  it('names the setting to fix when the database cannot be reached or the port is taken', async () => {
    const refused = runCli('postgres://postgres@127.0.0.1:1/test', ['store', 'list']);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /^vitrine: DATABASE_URL: cannot connect to 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
    const wrong = runCli('mysql://localhost/x', ['store', 'list']);
    assert.match(wrong.stderr, /^vitrine: DATABASE_URL must start with sqlite:/);

    const net = await import('node:net');
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as import('node:net').AddressInfo;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-port-'));
    try {
      const serve = runCli(`sqlite:${path.join(dir, 'x.db')}`, ['serve', '--port', String(port)]);
      assert.notEqual(serve.status, 0);
      assert.match(serve.stderr, new RegExp(`PORT: 127\\.0\\.0\\.1:${port} is already in use`));
      assert.doesNotMatch(serve.stdout, /serving the catalog API/, 'no "serving" line before the failure');
    } finally {
      taken.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

cliSuite('sqlite');
cliSuite('postgres');
