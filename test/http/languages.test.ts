import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';
import { until } from '../helpers/receiver.js';

type StoreRef = { store_uuid: string; api_token: string };

let serial = 0;
const product = (fields: Record<string, unknown>) => ({
  product_code: `l${++serial}`,
  'Selling Price': '40',
  Currency: 'EUR',
  'Image URL 1': `https://i.example/l${serial}.jpg`,
  ...fields,
});

async function storeIn(t: TestApp, language: string, products: Array<Record<string, unknown>>): Promise<StoreRef> {
  const res = await t.request({
    method: 'POST',
    url: '/admin/v1/stores',
    headers: adminHeaders,
    payload: { workspace_name: `lang-${language}`, name: `Boutique ${language}`, language },
    token: null,
  });
  assert.equal(res.statusCode, 201, res.body);
  const store = json(res).data as StoreRef;
  if (products.length > 0) {
    const put = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${store.store_uuid}`,
      payload: products,
      token: store.api_token,
    });
    assert.equal(put.statusCode, 200, put.body);
  }
  return store;
}

async function search(t: TestApp, store: StoreRef, query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/v1/search?store_uuid=${store.store_uuid}&query=${encodeURIComponent(query)}&limit=50`,
    token: store.api_token,
  });
  assert.equal(res.statusCode, 200, res.body);
  return json(res).data as Array<{ product_code: string; score: number }>;
}

const codes = async (t: TestApp, store: StoreRef, query: string) =>
  (await search(t, store, query)).map((hit) => hit.product_code).sort();

const FRENCH = [
  {
    product_code: 'fr-robe',
    'Product Name': 'Robe rouge longue',
    Category: 'Robes',
    Department: 'Femme',
    Colour: 'Rouge',
  },
  {
    product_code: 'fr-soiree',
    'Product Name': 'Robe de soirée noire',
    Category: 'Robes',
    Department: 'Femme',
    Colour: 'Noir',
  },
  {
    product_code: 'fr-chaussures',
    'Product Name': 'Chaussures de ville en cuir',
    Category: 'Chaussures',
    Department: 'Femme',
    Colour: 'Noir',
  },
  {
    product_code: 'fr-sac',
    'Product Name': 'Sac à main matelassé',
    Category: 'Sacs',
    Department: 'Femme',
    Colour: 'Beige',
  },
  {
    product_code: 'fr-echarpe',
    'Product Name': "L'écharpe d'hiver en laine",
    Category: 'Écharpes',
    Department: 'Homme',
    Colour: 'Gris',
  },
  {
    product_code: 'fr-chemise',
    'Product Name': 'Chemise blanche en lin',
    Category: 'Chemises',
    Department: 'Homme',
    Colour: 'Blanc',
  },
  {
    product_code: 'fr-dresses',
    'Product Name': 'Wrap Dress',
    Category: 'Dresses',
    Department: 'Women',
    Colour: 'Blue',
  },
].map(product);

const GERMAN = [
  {
    product_code: 'de-sommerkleid',
    'Product Name': 'Sommerkleid mit Blumen',
    Category: 'Kleider',
    Department: 'Damen',
    Colour: 'Rot',
  },
  {
    product_code: 'de-lederjacke',
    'Product Name': 'Lederjacke Biker',
    Category: 'Jacken',
    Department: 'Herren',
    Colour: 'Schwarz',
  },
  {
    product_code: 'de-schuhe',
    'Product Name': 'Damenschuhe Leder',
    Category: 'Schuhe',
    Department: 'Damen',
    Colour: 'Braun',
  },
  { product_code: 'de-bh', 'Product Name': 'Spitzen BH', Category: 'BHs', Department: 'Damen', Colour: 'Weiß' },
  {
    product_code: 'de-tasche',
    'Product Name': 'Handtasche aus Leder',
    Category: 'Taschen',
    Department: 'Damen',
    Colour: 'Rot',
  },
].map(product);

const ENGLISH = [
  {
    product_code: 'en-dress',
    'Product Name': 'Red Summer Dress',
    Category: 'Dresses',
    Department: 'Women',
    Colour: 'Red',
  },
  {
    product_code: 'en-shoes',
    'Product Name': 'Black Leather Shoes',
    Category: 'Shoes',
    Department: 'Women',
    Colour: 'Black',
  },
  {
    product_code: 'en-robe',
    'Product Name': 'Cotton Bath Robe',
    Category: 'Robes',
    Department: 'Women',
    Colour: 'White',
  },
].map(product);

describeEachDialect(
  'catalogs in the shopper language',
  (ctx) => {
    it('a store has a language: created with one, shown by GET /v1/stores, an unsupported tag is 422 listing the supported ones', async () => {
      const t = ctx();
      const fr = await storeIn(t, 'fr-CA', []);
      const listed = await t.request({
        method: 'GET',
        url: `/v1/stores?store_uuid=${fr.store_uuid}`,
        token: fr.api_token,
      });
      assert.equal(listed.statusCode, 200, listed.body);
      assert.equal((json(listed).data as { store_language: string }).store_language, 'fr');
      const bad = await t.request({
        method: 'POST',
        url: '/admin/v1/stores',
        headers: adminHeaders,
        payload: { workspace_name: 'lang-bad', name: 'B', language: 'xx' },
        token: null,
      });
      assert.equal(bad.statusCode, 422, bad.body);
      assert.match(bad.body, /language/);
      for (const code of ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt', 'sv', 'da'])
        assert.match(bad.body, new RegExp(`\\b${code}\\b`));
      const put = await t.request({
        method: 'PUT',
        url: `/admin/v1/stores/${fr.store_uuid}/language`,
        headers: adminHeaders,
        payload: { language: 'klingon' },
        token: null,
      });
      assert.equal(put.statusCode, 422, put.body);
      // The default stays English.
      assert.equal((await t.container.stores.getStore(t.store.store_uuid)).language, 'en');
    });

    it('French, German and English stores side by side each answer in their language, and none disturbs the others', async () => {
      const t = ctx();
      const en = await storeIn(t, 'en', ENGLISH);
      const before = await search(t, en, 'red dress');
      const fr = await storeIn(t, 'fr', FRENCH);
      const de = await storeIn(t, 'de', GERMAN);
      // French: plurals and feminines by the Snowball stemmer, accents folded, elisions and stop words.
      assert.deepEqual(await codes(t, fr, 'robe rouge'), ['fr-robe']);
      assert.deepEqual(await codes(t, fr, 'robes'), ['fr-robe', 'fr-soiree']);
      assert.deepEqual(await codes(t, fr, 'chaussure'), ['fr-chaussures']);
      assert.deepEqual(await codes(t, fr, "l'echarpe"), ['fr-echarpe']);
      assert.deepEqual(await codes(t, fr, 'écharpes'), ['fr-echarpe']);
      assert.deepEqual(await codes(t, fr, 'robe de soiree'), ['fr-soiree']);
      assert.deepEqual(await codes(t, fr, 'chemises blanches'), ['fr-chemise']);
      // The vocabulary's audience and colour concepts in French: "femme" finds the women's products.
      assert.ok((await codes(t, fr, 'robe femme')).includes('fr-robe'));
      // German: compounds are their catalog words, apart and together.
      assert.deepEqual(await codes(t, de, 'kleid'), ['de-sommerkleid']);
      assert.deepEqual(await codes(t, de, 'Sommer Kleid'), ['de-sommerkleid']);
      assert.deepEqual(await codes(t, de, 'Sommerkleider'), ['de-sommerkleid']);
      assert.deepEqual(await codes(t, de, 'Jacke'), ['de-lederjacke']);
      assert.deepEqual(await codes(t, de, 'schuhe damen'), ['de-schuhe']);
      assert.deepEqual(await codes(t, de, 'BH'), ['de-bh']);
      // English is unchanged, its scores included, with the other stores beside it.
      assert.deepEqual(await search(t, en, 'red dress'), before);
      assert.deepEqual(await codes(t, en, 'robe'), ['en-robe']);
    });

    it('suggestions and did-you-mean use the store language: one suggestion per French stem, a typo spelled as the catalog does', async () => {
      const t = ctx();
      const fr = await storeIn(t, 'fr', FRENCH);
      const suggest = await t.request({
        method: 'GET',
        url: `/v1/search/suggest?store_uuid=${fr.store_uuid}&prefix=rob`,
        token: fr.api_token,
      });
      assert.equal(suggest.statusCode, 200, suggest.body);
      const queries = (json(suggest).data.queries as Array<{ text: string }>).map((q) => q.text);
      const robes = queries.filter((q) => q.startsWith('rob'));
      assert.equal(robes.length, 1, `robe and robes are one word: ${queries.join(', ')}`);
      assert.match(robes[0], /^robes?$/, 'a word of the catalog, not its stem');
      const listing = await t.request({
        method: 'POST',
        url: `/v1/search/query?store_uuid=${fr.store_uuid}`,
        payload: { query: 'chausures' },
        token: fr.api_token,
      });
      assert.equal(listing.statusCode, 200, listing.body);
      const answer = json(listing).data as { corrected_query: string | null; hits: Array<{ product_code: string }> };
      assert.deepEqual(
        answer.hits.map((h) => h.product_code),
        ['fr-chaussures'],
      );
      assert.equal(answer.corrected_query, 'chaussures');
    });

    it('the catalog vocabulary reads French and German labels: complete the look and the vocabulary report', async () => {
      const t = ctx();
      const fr = await storeIn(t, 'fr', FRENCH);
      const report = await t.request({
        method: 'GET',
        url: `/admin/v1/stores/${fr.store_uuid}/vocabulary`,
        headers: adminHeaders,
        token: null,
      });
      assert.equal(report.statusCode, 200, report.body);
      const body = json(report).data as {
        categories: Array<{ label: string; group: string | null; concept: string | null }>;
        departments: Array<{ label: string; audience: string | null }>;
        colours: Array<{ label: string; family: string | null }>;
      };
      const category = (label: string) => body.categories.find((c) => c.label === label);
      assert.equal(category('Robes')?.concept, 'dress', 'a French store reads Robes as dresses, not bathrobes');
      assert.equal(category('Chaussures')?.group, 'FOOTWEAR');
      assert.equal(category('Sacs')?.group, 'BAGS');
      assert.equal(category('Dresses')?.group, 'DRESSES', 'English labels are still understood');
      assert.equal(body.departments.find((d) => d.label === 'Femme')?.audience, 'women');
      assert.equal(body.departments.find((d) => d.label === 'Homme')?.audience, 'men');
      assert.equal(body.colours.find((c) => c.label === 'Rouge')?.family, 'red');
      assert.equal(body.colours.find((c) => c.label === 'Noir')?.family, 'black');
      const res = await t.request({
        method: 'GET',
        url: `/v1/complementary?store_uuid=${fr.store_uuid}&product_code=fr-robe`,
        token: fr.api_token,
      });
      assert.equal(res.statusCode, 200, res.body);
      const suggested = (json(res).data.categories as Array<{ products: Array<{ product_code: string }> }>).flatMap(
        (c) => c.products.map((p) => p.product_code),
      );
      assert.ok(suggested.includes('fr-chaussures') && suggested.includes('fr-sac'), JSON.stringify(suggested));
      assert.ok(
        !suggested.includes('fr-chemise') && !suggested.includes('fr-echarpe'),
        'never a man’s product for a woman’s dress',
      );
      // The same labels in an English store: Robes are bathrobes there.
      const en = await storeIn(t, 'en', ENGLISH);
      const enReport = await t.request({
        method: 'GET',
        url: `/admin/v1/stores/${en.store_uuid}/vocabulary`,
        headers: adminHeaders,
        token: null,
      });
      const robes = (json(enReport).data as typeof body).categories.find((c) => c.label === 'Robes');
      assert.equal(robes?.group, 'NIGHTWEAR');
    });

    it('switching a language re-indexes the store in the background, the old index answering until the new one is ready', async () => {
      const t = ctx();
      const store = await storeIn(t, 'en', GERMAN);
      assert.deepEqual(await codes(t, store, 'sommer kleid '), [], 'English does not split German compounds');
      const put = await t.request({
        method: 'PUT',
        url: `/admin/v1/stores/${store.store_uuid}/language`,
        headers: adminHeaders,
        payload: { language: 'de' },
        token: null,
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(json(put).data.language, 'de');
      await until(async () => (await codes(t, store, 'sommer kleid ')).length === 1, 'the German index');
      const after = await t.request({
        method: 'GET',
        url: `/admin/v1/stores/${store.store_uuid}/language`,
        headers: adminHeaders,
        token: null,
      });
      assert.deepEqual(json(after).data, {
        store_uuid: store.store_uuid,
        language: 'de',
        index_language: 'de',
        reindexing: false,
        supported: ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt', 'sv', 'da'],
      });
      assert.deepEqual(await codes(t, store, 'Jacke'), ['de-lederjacke']);
    });

    it('bad input: mixed scripts, right-to-left text, emoji, a 500-character label and a title in another language are indexed and found', async () => {
      const t = ctx();
      const store = await storeIn(t, 'fr', [
        product({ product_code: 'mix', 'Product Name': 'Robe Кимоно 着物 soie', Category: 'Robes' }),
        product({ product_code: 'rtl', 'Product Name': 'فستان سهرة robe', Category: 'Robes' }),
        product({ product_code: 'emoji', 'Product Name': 'T-shirt 🌈 arc-en-ciel ✨', Category: 'T-shirts' }),
        product({ product_code: 'long', 'Product Name': 'Pull torsadé', Category: `Pulls ${'très '.repeat(100)}` }),
        product({ product_code: 'english', 'Product Name': 'Striped Linen Shirt', Category: 'Shirts' }),
      ]);
      assert.deepEqual(await codes(t, store, 'кимоно'), ['mix']);
      assert.deepEqual(await codes(t, store, '着物'), ['mix']);
      assert.deepEqual(await codes(t, store, 'فستان'), ['rtl']);
      assert.deepEqual(await codes(t, store, 'arc-en-ciel'), ['emoji']);
      assert.deepEqual(await codes(t, store, 'pull'), ['long']);
      assert.deepEqual(await codes(t, store, 'linen shirt'), ['english']);
    });
  },
  { adminToken: ADMIN_TOKEN },
);
