import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json } from '../helpers/test-app.js';
import { product } from '../factories/products.js';
import { ProductQueries, type ProductPage } from '../../src/modules/products/product-queries.js';
import { ProductAttributeIndex } from '../../src/modules/products/attribute-index.js';
import { SeqCache } from '../../src/storage/seq-cache.js';
import { sql } from 'kysely';
import { ValueDictionary } from '../../src/catalog/attribute-columns.js';
import { byteOrder, readAttributeRows } from '../../src/modules/products/attribute-rows.js';
import { pagesInStorageOrder } from '../../src/modules/products/storage-order.js';

// The products listing's attribute filters and facets answered from the in-memory attribute index must
// be exactly those of reading every product (AttributeScan), for every kind of condition, with a status,
// and after edits, deletions and new products.
describeEachDialect('products listing attribute index', (ctx) => {
  const colours = ['Navy Blue', 'Red', 'Black', 'Off-White', 'Olive'];
  const departments = ['Men', 'Women', 'Ladieswear', 'Boys', 'Womens'];
  const categories = ['T-Shirts', 'Tshirts', 'Dresses', 'Jeans', 'Casual Shoes'];
  const statuses = ['new', 'active', 'draft', 'inactive', 'under review'];
  const prices = ['49.90', '12', 80, '', 'n/a', '1299'];
  // Deterministic mix (no Math.random): every combination shows up.
  const pick = <T>(values: T[], i: number, step: number) => values[(i * step + Math.floor(i / 7)) % values.length];
  const catalog = (count: number, from = 0) =>
    Array.from({ length: count }, (_, n) => {
      const i = n + from;
      return product(`A-${String(i).padStart(4, '0')}`, {
        // Some products spell the name in lower case: names match whatever their case.
        [i % 11 === 0 ? 'colour' : 'Colour']: pick(colours, i, 3),
        Department: pick(departments, i, 2),
        Category: pick(categories, i, 5),
        'Selling Price': pick(prices, i, 7),
        Brand: i % 4 === 0 ? undefined : i % 3 === 0 ? ' acme ' : 'Acme',
        Season: pick(['Summer', 'Winter', 'Fall'], i, 1),
        // A list value: the index leaves this attribute to a read of the products.
        ...(i % 13 === 0 ? { Tags: ['eco', 'basic'] } : { Tags: 'basic' }),
        Status: pick(statuses, i, 1),
      });
    });
  const write = async (payload: Array<Record<string, unknown>>, method: 'POST' | 'PUT' = 'POST') => {
    for (let at = 0; at < payload.length; at += 100) {
      const res = await ctx().request({
        method,
        url: `/v1/products?store_uuid=${ctx().store.store_uuid}`,
        payload: payload.slice(at, at + 100),
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  };
  const filters = (value: unknown) => JSON.stringify(value);
  const views: Array<Partial<ProductPage>> = [
    { filters: filters({ Colour: 'navy blue' }) },
    { filters: filters({ colour: ['Red', 'off white'] }), facets: ['Colour', 'Brand'] },
    { filters: filters({ Department: 'Women' }), facets: ['Department', 'Category', 'Season'] },
    { filters: filters({ Category: 't-shirt', 'Selling Price': { lte: 50 } }), facets: ['Colour', 'Selling Price'] },
    { filters: filters({ 'Selling Price': { gt: 20, lt: 2000 } }), status: 'active' },
    { filters: filters({ Brand: 'acme', Season: ['winter', 'fall'] }), facets: ['Brand', 'Season'], facetLimit: 1 },
    { filters: filters({ Fabric: 'linen' }), facets: ['Fabric'] },
    { facets: ['Colour', 'Department', 'Category', 'Brand', 'Season', 'Usage'], status: 'draft' },
    { facets: ['Colour'], status: 'problem' },
    // A list-valued attribute and a name for every product: read from the products.
    { filters: filters({ Tags: 'eco' }), facets: ['Tags'] },
    { filters: filters({ 'Product Name': 'Shirt A-0042' }) },
    { filters: filters({ Colour: 'Black' }), reason: 'Missing price' },
  ];
  const answers = async (queries: ProductQueries) => {
    const store = await ctx().container.stores.getStore(ctx().store.store_uuid);
    const all = [];
    for (const view of views)
      for (const offset of [0, 37]) all.push(await queries.listProducts(store, { offset, limit: 25, ...view }));
    return all;
  };

  it('answers every view as reading every product does, and follows edits, deletions and new products', async () => {
    await write(catalog(260));
    const { storage, productsRead, changeLog } = ctx().container;
    const scan = () => new ProductQueries(storage, new SeqCache('scan', 0));
    const index = new ProductAttributeIndex({
      storage,
      products: productsRead,
      changeLog,
      budgetBytes: 64 * 1024 * 1024,
      distinctCheckAt: 50,
    });
    const indexed = new ProductQueries(storage, new SeqCache('indexed', 0), { attributes: index });
    const threadFailures: unknown[] = [];
    // The same index read by threads of their own (large stores'): one, and two taking chunks of the
    // codes from either end (one chunk, and many); their values adopted into the store's dictionary.
    const inThreads = (threads: number, chunkSize?: number) =>
      new ProductAttributeIndex({
        storage,
        products: productsRead,
        changeLog,
        budgetBytes: 64 * 1024 * 1024,
        distinctCheckAt: 50,
        threadFrom: 1,
        threads,
        chunkSize,
        // It would read on the event loop instead: the answers would not tell.
        onError: (_, error) => threadFailures.push(error),
      });
    const threadedIndexes = [inThreads(1), inThreads(2), inThreads(2, 37)];
    const threaded = threadedIndexes.map(
      (attributes, k) => new ProductQueries(storage, new SeqCache(`threaded ${k}`, 0), { attributes }),
    );
    const compare = async (when: string) => {
      const expected = await answers(scan());
      assert.ok(expected.filter((answer) => answer.total > 0).length >= 8, `${when}: most views match something`);
      assert.deepEqual(await answers(indexed), expected, when);
      for (const [k, queries] of threaded.entries())
        assert.deepEqual(await answers(queries), expected, `${when}, read in threads (${k})`);
      assert.deepEqual(threadFailures, [], `${when}: the thread read`);
    };
    await compare('built');
    // Edits and a status change are followed in place; a deletion leaves the listing.
    await write(
      [
        { product_code: 'A-0001', Colour: 'Navy Blue', Department: 'Women' },
        { product_code: 'A-0002', Status: 'draft', Season: 'Winter' },
        { product_code: 'A-0003', 'Selling Price': '19' },
      ],
      'PUT',
    );
    const deleted = await ctx().request({
      method: 'DELETE',
      url: `/v1/products?store_uuid=${ctx().store.store_uuid}&sku_codes=A-0004,A-0005`,
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    await compare('after edits and deletions');
    // New products between existing codes take their place in code order (the database's: UTF-8 bytes).
    const between = [
      ...Array.from({ length: 26 }, (_, i) => `A-00${String(i).padStart(2, '0')}5`),
      'a-0001',
      'A-0010é',
      'A-0010-x',
      'A-Ω',
    ];
    await write(catalog(30, 1000).map((p, i) => ({ ...p, product_code: between[i] })));
    await compare('after new products');
    index.close();
    for (const threadedIndex of threadedIndexes) threadedIndex.close();
  });

  it('keeps its rows in code order when a product is deleted and another added while it reads', async () => {
    // The last product written holds the largest rowid and a code in the middle of the order; deleted
    // while the build reads, SQLite gives the next product written the same rowid, which the build,
    // reading by rowid, finds at the listed place of the first: it must read the code index again.
    await write(
      Array.from({ length: 30 }, (_, i) => product(`R-${String(i).padStart(2, '0')}`, { Colour: pick(colours, i, 3) })),
    );
    await write([product('R-15b', { Colour: 'Red' })]);
    const { storage } = ctx().container;
    const store = await ctx().container.stores.getStore(ctx().store.store_uuid);
    const rowidOf = async (code: string) =>
      (
        await sql<{
          id: number;
        }>`select rowid as id from products where store_id = ${store.id} and product_code = ${code}`.execute(storage.db)
      ).rows[0]?.id;
    const reused = ctx().dialect === 'sqlite' ? await rowidOf('R-15b') : undefined;
    const source = pagesInStorageOrder(storage, store.id, 8, { after: 'R-', upTo: 'R-\uffff' });
    let first = true;
    const pages = (async function* () {
      for await (const page of source.pages) {
        yield page;
        if (!first) continue;
        first = false;
        const res = await ctx().request({
          method: 'DELETE',
          url: `/v1/products?store_uuid=${ctx().store.store_uuid}&sku_codes=R-15b`,
        });
        assert.equal(res.statusCode, 200, res.body);
        await write([product('R-99', { Colour: 'Black' })]);
      }
    })();
    const rows = await readAttributeRows(storage, store.id, new ValueDictionary(), {
      pages: { ...source, pages },
      yieldEachPage: false,
    });
    if (reused !== undefined) assert.equal(await rowidOf('R-99'), reused, 'SQLite gave the rowid again');
    const listed = Array.from(rows.order, (row) => rows.codes.at(row));
    assert.deepEqual(
      listed,
      [...listed].sort((a, b) => byteOrder(a, b)),
      'the rows in code order',
    );
    assert.equal(listed.length, 31, listed.join());
    assert.equal(listed.at(-1), 'R-99');
    assert.ok(!listed.includes('R-15b'), 'the deleted product is not listed');
    assert.ok(rows.byteOrdered);
  });

  it('serves the console filter through GET /v1/products', async () => {
    await write(catalog(40));
    const res = await ctx().request({
      method: 'GET',
      url: `/v1/products?store_uuid=${ctx().store.store_uuid}&filters=${encodeURIComponent(filters({ Colour: 'Red' }))}&facets=Colour&limit=100`,
    });
    assert.equal(res.statusCode, 200);
    const data = json(res).data;
    assert.ok(data.total > 0);
    assert.ok(data.products.every((p: any) => String(p.Colour ?? p.colour).toLowerCase() === 'red'));
    assert.equal(data.facets.Colour.find((f: any) => f.value === 'Red').count, data.total);
  });

  it('finds a filtered page in the first products while a large store is indexing, its total at least', async () => {
    await write(catalog(260));
    const { storage, productsRead, changeLog } = ctx().container;
    const store = await ctx().container.stores.getStore(ctx().store.store_uuid);
    const scan = new ProductQueries(storage, new SeqCache('scan', 0));
    // threadFrom 1: every store counts as large (its build reads in a thread).
    const fresh = () =>
      new ProductAttributeIndex({ storage, products: productsRead, changeLog, budgetBytes: 1 << 26, threadFrom: 1 });
    const index = fresh();
    const queries = new ProductQueries(storage, new SeqCache('early', 1 << 20), { attributes: index });
    const women = { filters: filters({ Department: 'Women' }), offset: 5, limit: 10 };
    const expected = await scan.listProducts(store, women);
    assert.ok(expected.total > 30, `${expected.total} products of Women`);

    // No index kept: the page is found among the first products (100 read: enough for 16 matches).
    const early = await queries.listProducts(store, { ...women, totalPrecision: 'at_least' });
    assert.equal(early.total_precision, 'at_least');
    assert.deepEqual(early.products, expected.products, 'the page the index would answer');
    assert.ok(early.total > women.offset + women.limit && early.total < expected.total, `total ${early.total}`);
    // Without asking for a lower bound, the answer waits for the build (started by the first).
    assert.deepEqual(await queries.listProducts(store, women), expected);
    const indexed = await queries.listProducts(store, { ...women, totalPrecision: 'at_least' });
    assert.deepEqual(indexed, expected, 'kept: the index answers (exact: GET /v1/products says so)');

    // A filter few products pass: every product read before the page fills, so the total is exact.
    const other = fresh();
    const rare = { filters: filters({ Colour: 'Olive', Season: 'Winter' }), status: 'draft', offset: 0, limit: 50 };
    const rareExpected = await scan.listProducts(store, rare);
    const rareEarly = await new ProductQueries(storage, new SeqCache('rare', 0), { attributes: other }).listProducts(
      store,
      { ...rare, totalPrecision: 'at_least' },
    );
    assert.deepEqual(rareEarly, rareExpected);
    // Facets count every product: they wait for the index.
    const third = fresh();
    const faceted = await new ProductQueries(storage, new SeqCache('faceted', 0), { attributes: third }).listProducts(
      store,
      { ...women, facets: ['Colour'], totalPrecision: 'at_least' },
    );
    assert.equal(faceted.total, expected.total);
    assert.equal(faceted.total_precision, undefined, 'not a lower bound');
    for (const attributes of [index, other, third]) attributes.close();
  });

  it('says the precision of GET /v1/products totals when asked, and rejects another', async () => {
    await write(catalog(40));
    const url = `/v1/products?store_uuid=${ctx().store.store_uuid}&limit=5`;
    const plain = json(await ctx().request({ method: 'GET', url })).data;
    assert.equal(plain.total_precision, undefined);
    const asked = json(await ctx().request({ method: 'GET', url: `${url}&total_precision=at_least` })).data;
    assert.deepEqual(asked, { ...plain, total_precision: 'exact' }, 'a small store counts at once');
    const res = await ctx().request({ method: 'GET', url: `${url}&total_precision=roughly` });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /total_precision/);
  });
});
