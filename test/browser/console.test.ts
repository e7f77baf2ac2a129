import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_SKIP, launchChromium, transferSize, watchLongTasks } from '../helpers/browser.js';
import { drawShape, startImageServer, type ImageServer } from '../helpers/images.js';
import { startServe, type ServedVitrine } from '../helpers/serve.js';
import { ADMIN_TOKEN } from '../factories/admin.js';

// The merchandiser console in a real browser against a real `vitrine serve` on a SQLite file: what a
// merchandiser does on a working day, and the bad input the console must survive.

const ADMIN = ADMIN_TOKEN;
const BIG_PRODUCTS = 44_000;
const HOSTILE_NAME = '<img src=x onerror="window.__xss=1">Bold <b>deal</b><script>window.__xss=2</script>';

interface CreatedStore {
  workspace_id: string;
  store_uuid: string;
  api_token: string;
}

describe('console in Chromium', { skip: CHROMIUM_SKIP }, () => {
  let served: ServedVitrine;
  let images: ImageServer;
  let browser: Browser;
  let page: Page;
  let store: CreatedStore;
  let other: CreatedStore;
  let big: CreatedStore;
  let dir: string;
  const pageErrors: string[] = [];

  const api = async (method: string, url: string, token: string, body?: unknown) => {
    const res = await fetch(`${served.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as { data: any };
    assert.ok(res.ok, `${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const console = (hash = '') => `${served.url}/console/${hash}`;
  const alertText = () => page.getByRole('alert').first().innerText();

  before(async () => {
    const photos = new Map<string, Buffer>();
    const shapes = [
      ['DRESS-1', 'triangle', '#c0392b'],
      ['DRESS-2', 'triangle', '#2c3e50'],
      ['DRESS-3', 'triangle', '#27ae60'],
      ['SHIRT-1', 'square', '#c0392b'],
      ['SHIRT-2', 'square', '#2980b9'],
      ['BAG-1', 'circle', '#8e44ad'],
    ] as const;
    for (const [code, shape, colour] of shapes) photos.set(`/${code}.jpg`, await drawShape(shape, colour));
    images = await startImageServer(photos);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-console-'));
    served = await startServe(
      `sqlite:${path.join(dir, 'console.db')}`,
      { VITRINE_ADMIN_TOKEN: ADMIN, VITRINE_ALLOW_PRIVATE_FETCH: 'true' },
      ['--processes', '1'],
    );
    store = await api('POST', '/admin/v1/stores', ADMIN, { workspace_name: 'Console shop', name: 'Boutique' });
    other = await api('POST', '/admin/v1/stores', ADMIN, { workspace_name: 'Someone else', name: 'Not yours' });
    const product = (code: string, name: string, category: string, price: string) => ({
      product_code: code,
      'Product Name': name,
      Department: 'Women',
      Category: category,
      'Selling Price': price,
      Currency: 'EUR',
      'Image URL 1': photos.has(`/${code}.jpg`) ? `${images.base}/${code}.jpg` : `${images.base}/missing.jpg`,
    });
    await api('POST', `/v1/products?store_uuid=${store.store_uuid}`, store.api_token, [
      product('DRESS-1', 'Red Midi Dress', 'Dresses', '59.90'),
      product('DRESS-2', 'Navy Midi Dress', 'Dresses', '64.90'),
      product('DRESS-3', 'Green Wrap Dress', 'Dresses', '49.90'),
      product('SHIRT-1', 'Red Linen Shirt', 'Shirts', '39.90'),
      product('SHIRT-2', 'Blue Oxford Shirt', 'Shirts', '44.90'),
      product('BAG-1', 'Purple Tote Bag', 'Bags', '29.90'),
      product('NOPRICE-1', 'Grey Scarf', 'Scarves', ''),
      product('NOPRICE-2', 'Black Belt', 'Belts', ''),
      product('HTML-1', HOSTILE_NAME, 'Shirts', '19.90'),
    ]);
    await api('POST', `/v1/assets?store_uuid=${store.store_uuid}&channel=default`, store.api_token, [
      {
        parent_code: 'DRESS-1',
        asset_type: 'image',
        assets: { 'Image URL 2': `${images.base}/DRESS-2.jpg`, 'Image URL 1': `${images.base}/DRESS-1.jpg` },
      },
    ]);
    await api('POST', `/v1/products?store_uuid=${other.store_uuid}`, other.api_token, [
      product('SECRET-1', 'Other workspace product', 'Dresses', '10'),
    ]);
    // A second store of the same workspace with a catalog the size of the real one (44k products).
    big = await api('POST', '/admin/v1/stores', ADMIN, { workspace_name: 'Console shop', name: 'Big catalog' });
    const colours = ['Red', 'Navy', 'Green', 'Black', 'White', 'Beige', 'Grey', 'Pink', 'Yellow', 'Brown', 'Blue'];
    const articles = [
      'Dress',
      'Shirt',
      'Tshirt',
      'Jeans',
      'Skirt',
      'Jacket',
      'Kurta',
      'Sneakers',
      'Heels',
      'Watch',
      'Bag',
    ];
    const bigProduct = (i: number) => ({
      product_code: `BIG-${String(i).padStart(6, '0')}`,
      'Product Name': `${colours[i % colours.length]} ${articles[Math.floor(i / colours.length) % articles.length]} ${i}`,
      Department: i % 2 ? 'Women' : 'Men',
      Category: articles[Math.floor(i / colours.length) % articles.length],
      'Selling Price': i % 97 === 0 ? '' : String(5 + (i % 200)),
      Currency: 'EUR',
    });
    const batches = Array.from({ length: BIG_PRODUCTS / 100 }, (_, b) =>
      Array.from({ length: 100 }, (_, i) => bigProduct(b * 100 + i)),
    );
    await Promise.all(
      [0, 1, 2, 3].map(async (worker) => {
        for (let b = worker; b < batches.length; b += 4)
          await api('POST', `/v1/products?store_uuid=${big.store_uuid}`, big.api_token, batches[b]);
      }),
    );
    // The photos get indexed in the background: wait until search by photo can find them.
    for (let waited = 0; ; waited += 250) {
      const status = await api('GET', `/admin/v1/stores/${store.store_uuid}/images`, ADMIN);
      if (status.indexed >= shapes.length) break;
      assert.ok(waited < 90_000, `images not indexed: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('dialog', (dialog) => {
      pageErrors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
  });

  after(async () => {
    await browser?.close();
    await served?.stop();
    await images?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page with a strict CSP, immutable hashed assets, and less than 150 KB of compressed JS + CSS', async () => {
    const res = await fetch(console(), { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    // Images too come from this server only (catalog images as its thumbnails).
    assert.match(csp, /img-src 'self' data: blob:(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await res.text();
    assert.doesNotMatch(html, /https?:\/\//, 'no external script, style or font');
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), html);
    let compressed = 0;
    for (const asset of assets) {
      const file = await fetch(`${served.url}${asset}`, { headers: { 'accept-encoding': 'br' } });
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(file.headers.get('content-encoding'), 'br');
      compressed += await transferSize(`${served.url}${asset}`);
    }
    const redirect = await fetch(`${served.url}/console`, { redirect: 'manual' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/console/');
    assert.ok(compressed < 150 * 1024, `${compressed} bytes`);
  });

  it('refuses a wrong token with a clear sign-in error and shows nothing else', async () => {
    await page.goto(console());
    await page.getByLabel('API token').fill('vt_this-token-does-not-exist');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await alertText(), /token was not accepted/i);
    assert.equal(await page.getByRole('navigation', { name: 'Screens' }).count(), 0);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'a refused token is not kept');
  });

  it('signs in from the keyboard and shows the health counts, failure reasons and image pipeline', async () => {
    await page.getByLabel('API token').fill('');
    await page.getByLabel('API token').focus();
    await page.keyboard.type(store.api_token);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN);
    await page.keyboard.press('Enter');
    const counts = page.getByTestId('status-counts');
    await counts.waitFor();
    assert.match(await counts.locator('[data-status="problem"]').innerText(), /^2\b/);
    assert.match(await counts.locator('[data-status="new"]').innerText(), /^7\b/);
    const failures = page.getByTestId('failures');
    assert.match(await failures.innerText(), /Missing price\s+2/);
    await page.getByTestId('image-counts').waitFor();
    assert.match(await page.getByTestId('image-counts').innerText(), /6\s+indexed/);
    assert.ok(!page.url().includes(store.api_token), 'the token is never in the URL');
    assert.equal(await page.evaluate(() => localStorage.length), 0, 'nothing in localStorage');
  });

  it('filters products by a failure reason, in under 300 ms per page', async () => {
    await page.getByRole('link', { name: 'Missing price' }).click();
    await page.getByTestId('reason-filter').waitFor();
    const table = page.getByTestId('products');
    await table.locator('tbody tr[data-code="NOPRICE-1"]').waitFor();
    const codes = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-code')));
    assert.deepEqual(codes, ['NOPRICE-1', 'NOPRICE-2']);
    const ms = Number(await table.getAttribute('data-render-ms'));
    assert.ok(ms > 0 && ms < 300, `${ms} ms`);
    // clearing the reason shows every product again
    await page.getByRole('button', { name: 'Stop filtering by Missing price' }).click();
    await table.locator('tbody tr[data-code="BAG-1"]').waitFor();
  });

  it('shows a product name holding HTML or script as text, never runs it', async () => {
    await page.getByLabel('Code or name').fill('deal');
    await page.getByLabel('Code or name').press('Enter');
    const row = page.getByTestId('products').locator('tbody tr[data-code="HTML-1"]');
    await row.waitFor();
    assert.equal(await row.locator('td.name').innerText(), HOSTILE_NAME);
    assert.equal(await row.locator('td.name b, td.name script, td.name img').count(), 0);
    await row.getByRole('link', { name: 'HTML-1' }).click();
    await page.getByTestId('attributes').waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.deepEqual(pageErrors, []);
  });

  it('opens a product with its attributes, images, complements and similar products, and changes its status', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/products/DRESS-1`));
    await page.getByTestId('attributes').waitFor();
    assert.equal(await page.getByLabel('Product Name', { exact: true }).inputValue(), 'Red Midi Dress');
    const ranks = page.locator('section[aria-label="Asset links per channel"] ol.ranks li .asset-name');
    await ranks.first().waitFor();
    assert.deepEqual(await ranks.allInnerTexts(), ['Image URL 1', 'Image URL 2']);
    // Catalog images (on another host) are shown as thumbnails the service made: blob: URLs, decoded.
    const gallery = page.locator('.gallery img.thumb').first();
    await gallery.waitFor();
    assert.match((await gallery.getAttribute('src')) ?? '', /^blob:/);
    await page.waitForFunction(() => document.querySelector<HTMLImageElement>('.gallery img.thumb')?.naturalWidth);
    await page.getByRole('heading', { name: 'Visually similar' }).waitFor();
    await page.locator('section[aria-label="Visually similar"] .grid li').first().waitFor();
    await page.locator('section[aria-label="Complete the look"] .grid li').first().waitFor();
    await page.getByRole('button', { name: 'Set draft' }).click();
    await page.getByText('Status set to draft.').waitFor();
    await page.locator('h1 .badge-draft').waitFor();
    const stored = await api(
      'GET',
      `/v1/products?store_uuid=${store.store_uuid}&product_code=DRESS-1`,
      store.api_token,
    );
    assert.equal(stored.products[0].status, 'draft');
    // back for the searches below
    await page.getByRole('button', { name: 'Set active' }).click();
    await page.locator('h1 .badge-active').waitFor();
  });

  it('edits a product in place: the API refusal next to its field, the save in the change feed, hostile text kept as text', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/products/DRESS-3`));
    const field = (name: string) => page.getByLabel(name, { exact: true });
    await field('Product Name').waitFor();
    // A field the API refuses (Stock must read as a count): its words next to it, nothing stored.
    await page.getByLabel('New field name').fill('Stock');
    await page.getByLabel('New field value').fill('many');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const refusal = page.locator('tr[data-field="Stock"] .field-error');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /^Stock must be an integer/);
    assert.equal(await field('Stock').getAttribute('aria-invalid'), 'true');
    const path = `/v1/products?store_uuid=${store.store_uuid}&product_code=DRESS-3`;
    assert.equal((await api('GET', path, store.api_token)).products[0].Stock, undefined);

    const before = (await api('GET', `/v1/changes?store_uuid=${store.store_uuid}&limit=1`, store.api_token))
      .latest_sequence;
    await field('Stock').fill('3');
    await field('Product Name').fill(HOSTILE_NAME);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const stored = (await api('GET', path, store.api_token)).products[0];
    assert.deepEqual([stored.Stock, stored['Product Name']], ['3', HOSTILE_NAME]);
    const changes = await api('GET', `/v1/changes?store_uuid=${store.store_uuid}&after=${before}`, store.api_token);
    assert.deepEqual(
      changes.changes.map((c: { code: string }) => c.code),
      ['DRESS-3'],
      'one change, through the public API',
    );
    assert.equal(await field('Product Name').inputValue(), HOSTILE_NAME);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    await field('Product Name').fill('Green Wrap Dress');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  });

  it('re-ranks asset links by keyboard and by dragging, links an uploaded photo, unlinks and deletes', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/products/DRESS-1`));
    const group = page.locator('.asset-group[data-channel="default"]');
    const names = () => group.locator('li code.url').allInnerTexts();
    await group.locator('li').first().waitFor();
    const [first, second] = [`${images.base}/DRESS-1.jpg`, `${images.base}/DRESS-2.jpg`];
    assert.deepEqual(await names(), [first, second]);
    const stored = async (): Promise<Array<Record<string, string>>> =>
      (
        await api(
          'GET',
          `/v1/assets?store_uuid=${store.store_uuid}&channel=default&parent_code=DRESS-1`,
          store.api_token,
        )
      ).assets['DRESS-1']?.assets ?? [];
    await group.getByRole('button', { name: `Move ${first} down` }).click();
    assert.deepEqual(await names(), [second, first]);
    await group.getByRole('button', { name: 'Save order' }).click();
    await group.getByText('Order saved.').waitFor();
    assert.equal(Object.entries((await stored())[0]).find(([k]) => k !== 'asset_id')?.[1], second);
    // Back by dragging the first onto the second.
    await group.locator('li').first().dragTo(group.locator('li').nth(1));
    assert.deepEqual(await names(), [first, second]);
    await group.getByRole('button', { name: 'Save order' }).click();
    await group.getByText('Order saved.').waitFor();
    assert.equal(Object.entries((await stored())[0]).find(([k]) => k !== 'asset_id')?.[1], first);

    // A photo uploaded here, linked last; unlinked; uploaded again and deleted everywhere.
    const photo = { name: 'back.jpg', mimeType: 'image/jpeg', buffer: await drawShape('circle', '#d35400') };
    const upload = page.getByLabel(/Upload and link a photo/);
    await upload.setInputFiles(photo);
    await page.getByText('back.jpg linked on default.').waitFor();
    await group.locator('li').nth(2).waitFor();
    const uploaded = (await names())[2];
    assert.match(uploaded, /\/media\//);
    await group.locator('li').nth(2).getByRole('button', { name: 'Unlink' }).click();
    await group.getByText(/unlinked\.$/).waitFor();
    assert.equal((await stored()).length, 2);
    await upload.setInputFiles(photo);
    await group.locator('li').nth(2).waitFor();
    await group.locator('li').nth(2).getByRole('button', { name: 'Delete' }).click();
    await group
      .locator('li')
      .nth(2)
      .getByRole('button', { name: /Click again/ })
      .click();
    await group.getByText(/deleted\.$/).waitFor();
    await group.locator('li').nth(2).waitFor({ state: 'detached' });
    assert.deepEqual(await names(), [first, second]);
    assert.equal((await stored()).length, 2);
  });

  it('shows an edit made through the API while the form was open as a conflict, and overwrites nothing', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/products/SHIRT-2`));
    const field = (name: string) => page.getByLabel(name, { exact: true });
    await field('Product Name').waitFor();
    await field('Product Name').fill('Blue Oxford Shirt, slim');
    // Someone else changes the product meanwhile.
    await api('PUT', `/v1/products?store_uuid=${store.store_uuid}`, store.api_token, [
      { product_code: 'SHIRT-2', Category: 'Formal Shirts' },
    ]);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByTestId('conflict').waitFor();
    assert.match(await page.getByTestId('conflict').innerText(), /changed this product since you opened it/);
    const stored = (
      await api('GET', `/v1/products?store_uuid=${store.store_uuid}&product_code=SHIRT-2`, store.api_token)
    ).products[0];
    assert.deepEqual([stored['Product Name'], stored.Category], ['Blue Oxford Shirt', 'Formal Shirts']);
    assert.equal(await field('Product Name').inputValue(), 'Blue Oxford Shirt, slim', 'the edit is still in the form');
    await page.getByRole('button', { name: /Reload the product/ }).click();
    await page.waitForFunction(
      () => document.querySelector<HTMLInputElement>('tr[data-field="Category"] input')?.value === 'Formal Shirts',
    );
    assert.equal(await page.getByTestId('conflict').count(), 0);
    await api('PUT', `/v1/products?store_uuid=${store.store_uuid}`, store.api_token, [
      { product_code: 'SHIRT-2', Category: 'Shirts' },
    ]);
  });

  it('creates a product from the console, and refuses a code that is taken without touching its product', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/products`));
    await page.getByRole('button', { name: 'New product' }).click();
    const form = page.getByRole('form', { name: 'New product' });
    await form.getByLabel('product_code').fill('NEW-1');
    await form.getByLabel('Product Name').fill('Ochre Shift Dress');
    await form.getByLabel('Category').fill('Dresses');
    await form.getByLabel('Selling Price').fill('54.90');
    await form.getByRole('button', { name: 'Create product' }).click();
    await page.waitForURL(/products\/NEW-1$/);
    await page.getByLabel('Product Name', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Product Name', { exact: true }).inputValue(), 'Ochre Shift Dress');

    await page.goto(console(`#/s/${store.store_uuid}/products`));
    await page.getByRole('button', { name: 'New product' }).click();
    await form.getByLabel('product_code').fill('SHIRT-1');
    await form.getByLabel('Product Name').fill('Overwritten?');
    await form.getByRole('button', { name: 'Create product' }).click();
    await form.locator('.field-error').waitFor();
    assert.match(await form.locator('.field-error').innerText(), /SHIRT-1 already exists/);
    const kept = (await api('GET', `/v1/products?store_uuid=${store.store_uuid}&product_code=SHIRT-1`, store.api_token))
      .products[0];
    assert.equal(kept['Product Name'], 'Red Linen Shirt');
    await api('DELETE', `/v1/products?store_uuid=${store.store_uuid}&sku_codes=NEW-1`, store.api_token);
  });

  it('edits products in a grid (typing, a pasted block, fill down), acts on a selection and on the filter, and undoes', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/bulk?q=shirt`));
    const grid = page.getByTestId('bulk-grid');
    await grid.locator('tbody tr').nth(1).waitFor();
    const codes = await grid
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.code));
    assert.deepEqual(codes, ['SHIRT-1', 'SHIRT-2']);
    const read = async () =>
      (await api('GET', `/v1/products?store_uuid=${store.store_uuid}&product_code=SHIRT-1,SHIRT-2`, store.api_token))
        .products as Array<Record<string, string>>;
    // A block pasted from a spreadsheet (two rows, two columns: Colour and Selling Price), then a value filled down.
    const colour = page.getByLabel('Colour of SHIRT-1');
    await colour.focus();
    await page.evaluate(() => {
      const input = document.activeElement as HTMLInputElement;
      const data = new DataTransfer();
      data.setData('text/plain', 'Red\t41.90\nBlue\t46.90\n');
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    assert.equal(await page.getByLabel('Colour of SHIRT-2').inputValue(), 'Blue');
    assert.equal(await page.getByLabel('Selling Price of SHIRT-2').inputValue(), '46.90');
    await page.getByLabel('Stock of SHIRT-1').fill('5');
    await page.getByLabel('Stock of SHIRT-1').press('Control+d');
    assert.equal(await page.getByLabel('Stock of SHIRT-2').inputValue(), '5');
    await page.getByLabel('Stock of SHIRT-2').press('ArrowUp');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Stock of SHIRT-1');
    await page.getByRole('button', { name: 'Save 2 edited product(s)' }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/done — 2 changed, 0 failed/)
      .waitFor();
    assert.deepEqual(
      (await read()).map((p) => [p.Colour, p['Selling Price'], p.Stock]),
      [
        ['Red', '41.90', '5'],
        ['Blue', '46.90', '5'],
      ],
    );
    await page.getByRole('button', { name: /^Undo the edits of 2 product/ }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/^Undoing .*done — 2 changed/)
      .waitFor();
    assert.deepEqual(
      (await read()).map((p) => [p.Colour, p['Selling Price'], p.Stock]),
      [
        [undefined, '39.90', undefined],
        [undefined, '44.90', undefined],
      ],
    );

    // A field set on every product the filter matches, previewed, then undone.
    const actions = page.getByRole('form', { name: 'Bulk action' });
    await actions.getByLabel('Products').selectOption('all');
    await actions.getByLabel('Action').selectOption('field');
    await actions.getByLabel('Field', { exact: true }).fill('Season');
    await actions.getByLabel(/^Value/).fill('Summer');
    await actions.getByRole('button', { name: 'Preview' }).click();
    assert.match(
      await page.getByTestId('bulk-preview').innerText(),
      /Set Season to “Summer” on 2 product\(s\): SHIRT-1, SHIRT-2/,
    );
    await page.getByTestId('bulk-preview').getByRole('button', { name: 'Apply' }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/done — 2 changed/)
      .waitFor();
    assert.deepEqual(
      (await read()).map((p) => p.Season),
      ['Summer', 'Summer'],
    );
    await page.getByRole('button', { name: /^Undo set season/ }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/^Undoing .*done/)
      .waitFor();
    assert.deepEqual(
      (await read()).map((p) => p.Season),
      [undefined, undefined],
    );

    // Delete a selected product, then undo: it comes back whole.
    await page.getByLabel('Select SHIRT-2').check();
    await actions.getByLabel('Products').selectOption('selected');
    await actions.getByLabel('Action').selectOption('delete');
    await actions.getByRole('button', { name: 'Preview' }).click();
    await page.getByTestId('bulk-preview').getByRole('button', { name: 'Apply' }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/done — 1 changed/)
      .waitFor();
    assert.deepEqual(
      (await read()).map((p) => p.product_code),
      ['SHIRT-1'],
    );
    await page.getByRole('button', { name: /^Undo delete 1 product/ }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/^Undoing .*done — 1 changed/)
      .waitFor();
    const back = (await read()).find((p) => p.product_code === 'SHIRT-2')!;
    assert.deepEqual([back['Product Name'], back.Category], ['Blue Oxford Shirt', 'Shirts']);

    // An edit someone else made meanwhile: that row fails as a conflict, listed; nothing overwritten.
    await page.getByLabel('Colour of SHIRT-1').fill('Green');
    await api('PUT', `/v1/products?store_uuid=${store.store_uuid}`, store.api_token, [
      { product_code: 'SHIRT-1', Colour: 'Ecru' },
    ]);
    await page.getByRole('button', { name: 'Save 1 edited product(s)' }).click();
    await page.getByTestId('bulk-failures').waitFor();
    assert.match(await page.getByTestId('bulk-failures').innerText(), /SHIRT-1\s+conflict/);
    assert.equal((await read())[0].Colour, 'Ecru');
    await api('PUT', `/v1/products?store_uuid=${store.store_uuid}`, store.api_token, [
      { product_code: 'SHIRT-1', Colour: null },
    ]);
  });

  it('filters by attribute values counted over the other filters, and acts in bulk on exactly that set', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/products`));
    // Closed until asked for (its counts are read ahead, its options drawn once open).
    await page.getByText('Filter by attribute').click();
    const facets = page.getByTestId('facet-filters');
    const category = facets.getByLabel('Category');
    await category.locator('option', { hasText: 'Dresses (3)' }).waitFor({ state: 'attached' });
    await category.selectOption('Dresses');
    const table = page.locator('[data-testid="products"][aria-busy="false"]');
    await page.waitForFunction(() => location.hash.includes('filters='));
    // The unfiltered page also shows DRESS-3, and the filtered read may not have started yet: wait for a
    // settled table holding dresses only (a filter that lets other products through times out here).
    await page.waitForFunction(() => {
      const shown = document.querySelector('[data-testid="products"]');
      const rows = [...(shown?.querySelectorAll<HTMLElement>('tbody tr') ?? [])];
      return (
        shown?.getAttribute('aria-busy') === 'false' &&
        rows.length > 0 &&
        rows.every((row) => row.dataset.code?.startsWith('DRESS-'))
      );
    });
    const listed = () =>
      table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.code));
    assert.deepEqual(await listed(), ['DRESS-1', 'DRESS-2', 'DRESS-3']);
    // Disjunctive: the other categories still offered with their counts; a status narrows the counts.
    assert.ok((await category.locator('option').allInnerTexts()).includes('Shirts (3)'));
    await page.getByRole('link', { name: 'Edit these products in bulk' }).click();
    const grid = page.getByTestId('bulk-grid');
    await grid.locator('tbody tr[data-code="DRESS-3"]').waitFor();
    assert.equal(await page.getByTestId('facet-filters').getByLabel('Category').inputValue(), 'Dresses');
    const actions = page.getByRole('form', { name: 'Bulk action' });
    await actions.getByLabel('Products').selectOption('all');
    await actions.getByLabel('Action').selectOption('field');
    await actions.getByLabel('Field', { exact: true }).fill('Season');
    await actions.getByLabel(/^Value/).fill('Winter');
    await actions.getByRole('button', { name: 'Preview' }).click();
    assert.match(
      await page.getByTestId('bulk-preview').innerText(),
      /Set Season to “Winter” on 3 product\(s\): DRESS-1, DRESS-2, DRESS-3/,
    );
    await page.getByTestId('bulk-preview').getByRole('button', { name: 'Apply' }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/done — 3 changed/)
      .waitFor();
    const seasons = async () =>
      (
        (await api('GET', `/v1/products?store_uuid=${store.store_uuid}&facets=Season`, store.api_token)).facets as {
          Season: unknown;
        }
      ).Season;
    assert.deepEqual(await seasons(), [{ value: 'Winter', count: 3 }]);
    // The new value is a facet too, at once.
    await page
      .getByTestId('facet-filters')
      .getByLabel('Season')
      .locator('option', { hasText: 'Winter (3)' })
      .waitFor({ state: 'attached' });
    await page.getByRole('button', { name: /^Undo set season/ }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/^Undoing .*done — 3 changed/)
      .waitFor();
    assert.deepEqual(await seasons(), []);
  });

  it('merchandises a query: pins by dragging in the live preview and by keyboard, hides, saves, and shoppers get it', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/merchandising`));
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Rule id').fill('dresses');
    await page.getByLabel('Query').fill('dress');
    const cards = page.getByTestId('merch-preview').locator('li');
    await page.waitForFunction(() => {
      const shown = [...document.querySelectorAll<HTMLElement>('[data-testid="merch-preview"] li')];
      return shown.length === 3 && shown.every((li) => li.dataset.code?.startsWith('DRESS-'));
    });
    const order = async () => cards.evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.code));
    const before = await order();
    const last = before[2]!;
    // Playwright's HTML5 drag is a mouse gesture a busy browser can miss: wait for its effect, once more if missed.
    const draggedFirst = () =>
      page
        .waitForFunction(
          (code) => document.querySelector<HTMLElement>('[data-testid="merch-preview"] li')?.dataset.code === code,
          last,
          { timeout: 3_000 },
        )
        .then(() => true)
        .catch(() => false);
    await cards.nth(2).dragTo(cards.nth(0));
    if (!(await draggedFirst())) await cards.nth(2).dragTo(cards.nth(0));
    assert.deepEqual((await order())[0], last, 'dragged to position 1');
    // Keyboard: the second card one place down (pinned at 3); then hide the one now second.
    const second = (await order())[1]!;
    await cards
      .nth(1)
      .getByRole('button', { name: `Pin ${second} one place down` })
      .click();
    // The preview renders after the click's event: wait for the order it must show.
    const shows = (codes: string[]) =>
      page.waitForFunction(
        (expected) =>
          [...document.querySelectorAll<HTMLElement>('[data-testid="merch-preview"] li')]
            .map((li) => li.dataset.code)
            .join() === expected.join(),
        codes,
      );
    const hidden = before.find((code) => code !== last && code !== second)!;
    await shows([last, hidden, second]);
    await cards.nth(1).getByRole('button', { name: 'Hide' }).click();
    await shows([last, second]);
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Rule dresses saved: listings apply it now.').waitFor();

    const rules = (await api('GET', `/admin/v1/stores/${store.store_uuid}/search-rules`, ADMIN)).rules;
    assert.deepEqual(rules[0].hide, [hidden]);
    assert.deepEqual(
      rules[0].pin.map((p: { product_code: string; position: number }) => [p.position, p.product_code]),
      [
        [1, last],
        [3, second],
      ],
    );
    const listing = await api('POST', `/v1/search/query?store_uuid=${store.store_uuid}`, store.api_token, {
      query: 'dress',
    });
    assert.equal(listing.hits[0].product_code, last);
    assert.ok(!listing.hits.some((h: { product_code: string }) => h.product_code === hidden));
    assert.deepEqual(listing.applied_rules, ['dresses']);

    await page.getByRole('button', { name: 'Delete rule' }).click();
    await page.getByText('Rule deleted.').waitFor();
    assert.deepEqual((await api('GET', `/admin/v1/stores/${store.store_uuid}/search-rules`, ADMIN)).rules, []);
  });

  it('checks an import first (refused rows by line, nothing written), then imports the valid rows with one click', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/import`));
    const csv =
      'product_code,Product Name,Category,Selling Price,Currency,Image URL 1\nSKIRT-1,Pleated Skirt,Skirts,35,EUR,https://img.invalid/s1.jpg\n,No code here,Skirts,20,EUR,\nSKIRT-2,Denim Skirt,Skirts,45,EUR,https://img.invalid/s2.jpg\n';
    await page
      .getByLabel(/Catalog file/)
      .setInputFiles({ name: 'skirts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Check the file' }).click();
    const checked = page.getByTestId('dry-run-result');
    await checked.waitFor();
    assert.match(await checked.innerText(), /Nothing is written yet\. 1 row\(s\) would be refused/);
    const refused = page.getByTestId('rejects').locator('tbody tr');
    await refused.first().waitFor();
    assert.deepEqual(
      (await refused.first().locator('td').allInnerTexts()).slice(0, 3),
      ['3', '—', 'Missing SKU'],
      'the line of the file, as a spreadsheet numbers it',
    );
    const path = `/v1/products?store_uuid=${store.store_uuid}&product_code=SKIRT-1,SKIRT-2`;
    assert.equal((await api('GET', path, store.api_token)).products.length, 0, 'a check writes nothing');
    await checked.getByRole('button', { name: 'Import the 2 valid row(s)' }).click();
    await page.locator('[data-testid="import-status"][data-state="done"]').waitFor();
    await page
      .getByTestId('import-summary')
      .getByText(/2 inserted/)
      .waitFor();
    assert.equal((await api('GET', path, store.api_token)).products.length, 2);
    assert.match(
      await page.getByTestId('import-summary').innerText(),
      /3 rows .* 2 inserted, 0 updated, 0 unchanged, 1 rejected/s,
    );
    assert.match(await page.getByTestId('rejects').innerText(), /Missing SKU/);
  });

  it('shows the API error for an import file that is not a catalog', async () => {
    await page.getByLabel(/Catalog file/).setInputFiles({
      name: 'holiday.json',
      mimeType: 'application/json',
      buffer: Buffer.from('this is a holiday note, not a catalog'),
    });
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.locator('[data-testid="import-status"][data-state="failed"]').waitFor();
    assert.match(await alertText(), /The import failed: the JSON file must be one array of product objects/);
  });

  it('offers the mapping a catalog with its own column names needs, and imports it with one click', async () => {
    const csv =
      'Product_ID,Product_Name,Product_Brand,Gender,Price,Primary_Color\n10017413,DKNY Unisex Black Trolley Bag,DKNY,Unisex,11745, Black\n';
    await page
      .getByLabel(/Catalog file/)
      .setInputFiles({ name: 'myntra.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Check the file' }).click();
    const suggestion = page.getByTestId('suggested-mapping');
    await suggestion.waitFor();
    assert.match(await suggestion.innerText(), /Product_ID\s+→ product_code/);
    await suggestion.getByRole('button', { name: 'Use this mapping and import again' }).click();
    // Checked again under the new mapping: the row is valid now.
    await page.getByTestId('dry-run-result').getByRole('button', { name: 'Import the 1 valid row(s)' }).click();
    await page
      .getByTestId('import-summary')
      .getByText(/1 inserted/)
      .waitFor();
    const stored = await api(
      'GET',
      `/v1/products?store_uuid=${store.store_uuid}&product_code=10017413`,
      store.api_token,
    );
    assert.equal(stored.products[0]['Product Name'], 'DKNY Unisex Black Trolley Bag');
    assert.equal(stored.products[0].Colour.trim(), 'Black');
  });

  it('builds a rule collection with a live preview, then saves it', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/collections/new`));
    await page.getByLabel('Name').fill('Dresses under 60');
    await page.getByLabel(/^Filters/).fill('{"Category": "Dresses", "Selling Price": {"lte": 60}}');
    const preview = page.getByTestId('preview');
    await preview.getByText(/^2 products/).waitFor();
    assert.match(await preview.innerText(), /Red Midi Dress/);
    assert.match(await preview.innerText(), /Green Wrap Dress/);
    await page.getByLabel(/^Filters/).fill('{"Category": "Dresses", "Selling Price": {"between": 3}}');
    assert.match(await page.locator('section[aria-label="Preview (not saved)"] [role="alert"]').innerText(), /refused/);
    await page.getByLabel(/^Filters/).fill('{"Category": "Dresses"}');
    await preview.getByText(/^3 products/).waitFor();
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.waitForURL(/#\/s\/[^/]+\/collections\/col_/);
    await page.getByRole('link', { name: '← Collections' }).click();
    const list = page.getByTestId('collections');
    await list.getByText('Dresses under 60').waitFor();
    assert.match(await list.innerText(), /Dresses under 60\s+active\s+3/);
    // edit it: below minProducts it would be hidden, and the preview says so before saving
    // The collection arrives late, as under load: the form waits for it instead of taking a change
    // that the arriving collection would overwrite.
    await page.route(
      /\/v1\/collection\?/,
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue();
      },
      { times: 1 },
    );
    await list.getByRole('link', { name: 'Dresses under 60' }).click();
    await page.getByText('Loading the collection…').waitFor();
    await page.getByLabel(/^Minimum products/).waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Dresses under 60', 'the form shows the collection');
    await preview.getByText(/^3 products/).waitFor();
    await page.getByLabel(/^Minimum products/).fill('5');
    await preview
      .locator('.badge-hidden')
      .waitFor()
      .catch(async (error: Error) => {
        // This wait timed out once in a while under npm test's concurrency and never alone: say what the page showed.
        const shown = await page
          .locator('main')
          .innerText({ timeout: 1000 })
          .catch(() => '(no main)');
        const typed = await page
          .getByLabel(/^Minimum products/)
          .inputValue({ timeout: 1000 })
          .catch(() => '?');
        throw new Error(`${error.message}\nMinimum products field: ${typed}\npage:\n${shown.slice(0, 1500)}`);
      });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('link', { name: '← Collections' }).click();
    await list.getByText('Dresses under 60').waitFor();
    assert.match(await page.getByTestId('collections').innerText(), /Dresses under 60\s+hidden\s+3/);
    // its stored status is still active: editing again offers active, not the effective hidden
    await page.getByTestId('collections').getByRole('link', { name: 'Dresses under 60' }).click();
    await preview.getByText(/^3 products/).waitFor();
    assert.equal(await page.getByLabel('Status').inputValue(), 'active');
  });

  it('deletes a collection after asking, and exports the products as CSV', async () => {
    // still on the collection's editor, where the last test left it
    await page.getByRole('heading', { name: 'Edit Dresses under 60' }).waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete collection' }).click();
    await page.waitForURL(/#\/s\/[^/]+\/collections$/);
    await page.getByTestId('collections').waitFor();
    assert.equal(await page.getByTestId('collections').getByText('Dresses under 60').count(), 0);

    await page.goto(console(`#/s/${store.store_uuid}/products?status=problem`));
    await page.getByTestId('products').locator('tbody tr').first().waitFor();
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export problem products (CSV)' }).click(),
    ]);
    assert.match(file.suggestedFilename(), /^Boutique products \(problem\)\.csv$/);
    const csv = fs.readFileSync(await file.path(), 'utf8');
    const lines = csv.trim().split('\n');
    assert.match(lines[0], /product_code/);
    // the two without a price, and the bag imported with the suggested mapping (no image)
    assert.deepEqual(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
      ['10017413', 'NOPRICE-1', 'NOPRICE-2'],
    );
  });

  it('runs a text search as a shopper sees it', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/search`));
    const results = page.getByTestId('results').first();
    // Without words it browses the catalog, newest first, with facets beside the results.
    await results.locator('li').first().waitFor();
    await page.getByRole('group', { name: 'Category' }).waitFor();
    await page.getByLabel('Search as a shopper').fill('red dress');
    await page
      .getByRole('status')
      .filter({ hasText: /results/ })
      .first()
      .waitFor();
    const first = results.locator('li').first();
    for (let i = 0; i < 50 && !/DRESS-1/.test(await first.innerText()); i++) await page.waitForTimeout(100);
    assert.match(await first.innerText(), /Red Midi Dress[\s\S]*DRESS-1/);
    // Ticking a facet value filters the listing; the facet still offers the other values (disjunctive).
    await page.getByLabel('Search as a shopper').fill('');
    const category = page.getByRole('group', { name: 'Category' });
    const boxes = category.getByRole('checkbox');
    // The browse replaces the words' facets once the typing pause (250 ms) and the request are over.
    let offered = 0;
    for (let i = 0; i < 50; i++) {
      await page.waitForTimeout(100);
      const now = await boxes.count();
      if (now > 1 && now === offered) break;
      offered = now;
    }
    assert.ok(offered > 1, `${offered} categories offered when browsing`);
    await boxes.first().check();
    await page.waitForTimeout(400);
    assert.equal(await category.getByRole('checkbox').count(), offered);
  });

  it('runs a photo search, and says a 20 MB photo is too large', async () => {
    const photo = await drawShape('triangle', '#c0392b');
    await page
      .getByLabel(/Drop a photo here/)
      .setInputFiles({ name: 'look.jpg', mimeType: 'image/jpeg', buffer: photo });
    const results = page.locator('section[aria-label="Search by photo"] [data-testid="results"]');
    await results.locator('li').first().waitFor();
    assert.match(await results.locator('li').first().innerText(), /DRESS-1/);
    const huge = Buffer.alloc(20 * 1024 * 1024, 0xff);
    photo.copy(huge, 0, 0, 4);
    await page
      .getByLabel(/Drop a photo here/)
      .setInputFiles({ name: 'huge.jpg', mimeType: 'image/jpeg', buffer: huge });
    const alert = page.locator('section[aria-label="Search by photo"] [role="alert"]');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Too large/);
    assert.match(await alert.innerText(), /Request id: \S+/);
  });

  it('renders a page of 50 products of a 44k-product store in under 300 ms, whatever the page or filter', async () => {
    const timings: string[] = [];
    const ATTRIBUTES = encodeURIComponent('{"Category":"Jeans","Department":"Women"}');
    // The screen reads the Filters panel's counts ahead, and the first count builds the store's attribute
    // index in the background (BENCHMARKS.md › Console): the views are timed once it is built, as on a
    // screen someone has been looking at (under a loaded CI, views during the build took up to 380 ms).
    await page.goto(console(`#/s/${big.store_uuid}/products?offset=50`));
    await page.locator('details.facet-filters[data-counts="ready"]').waitFor({ timeout: 60_000 });
    for (const [label, query] of [
      ['first page', ''],
      ['page 500', '?offset=24950'],
      ['last page', `?offset=${BIG_PRODUCTS - 50}`],
      ['status problem', '?status=problem'],
      ['reason Missing price', '?reason=Missing%20price'],
      ['code or name "navy jeans"', '?q=navy%20jeans'],
    ]) {
      // A hash change keeps the previous page's table until the new page starts loading: without its
      // render mark, the wait below cannot take that table for this page's (CI once counted its rows
      // just as it turned busy, and found none).
      await page.evaluate(() => document.querySelector('[data-testid="products"]')?.removeAttribute('data-render-ms'));
      await page.goto(console(`#/s/${big.store_uuid}/products${query}`));
      const table = page.locator('[data-testid="products"][aria-busy="false"][data-render-ms]');
      await table.waitFor();
      const ms = Number(await table.getAttribute('data-render-ms'));
      timings.push(`${label} ${ms.toFixed(0)} ms`);
      assert.ok(ms > 0 && ms < 300, `${label}: ${ms} ms`);
      assert.ok((await table.locator('tbody tr').count()) > 0, label);
    }
    // An attribute filter reads the store's attribute index, which the Filters panel's counts (counted
    // ahead above) built: its first read is given 1.5 s all the same (what building the index would take
    // at 44k), its next page 300 ms like the rest. Last: its facet counts (the attribute filters open once
    // a value is chosen) run after it. The last view's render mark goes first, as in the loop above (CI once
    // took the "navy jeans" table for this one and counted its rows as it turned busy: none).
    await page.evaluate(() => document.querySelector('[data-testid="products"]')?.removeAttribute('data-render-ms'));
    await page.goto(console(`#/s/${big.store_uuid}/products?filters=${ATTRIBUTES}`));
    const scanned = page.locator('[data-testid="products"][aria-busy="false"][data-render-ms]');
    await scanned.waitFor();
    const firstMs = Number(await scanned.getAttribute('data-render-ms'));
    timings.push(`attributes, first read ${firstMs.toFixed(0)} ms`);
    assert.ok(firstMs < 1500, `attributes, first read: ${firstMs} ms`);
    assert.equal(await scanned.locator('tbody tr').count(), 50);
    await page.evaluate(() => document.querySelector('[data-testid="products"]')?.removeAttribute('data-render-ms'));
    await page.goto(console(`#/s/${big.store_uuid}/products?filters=${ATTRIBUTES}&offset=50`));
    await scanned.waitFor();
    const nextMs = Number(await scanned.getAttribute('data-render-ms'));
    timings.push(`attributes, page 2 ${nextMs.toFixed(0)} ms`);
    assert.ok(nextMs > 0 && nextMs < 300, `attributes, page 2: ${nextMs} ms`);
    // The facet counts of the filter come after its rows (and are done before the next test measures frames).
    await page
      .getByTestId('facet-filters')
      .getByLabel('Category')
      .locator('option', { hasText: /^Jeans \(/ })
      .waitFor({ state: 'attached' });
    process.stdout.write(`console products screen, ${BIG_PRODUCTS} products: ${timings.join(', ')}\n`);
  });

  it('edits the grid of a 44k-product store from the keyboard alone, with no frame over 100 ms', async () => {
    await page.goto(console(`#/s/${big.store_uuid}/bulk`));
    const grid = page.getByTestId('bulk-grid');
    await grid.locator('tbody tr').nth(49).waitFor();
    const longTasks = await watchLongTasks(page);
    await page.getByLabel('Category of BIG-000000').focus();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.type('x');
      await page.keyboard.press('ArrowDown');
    }
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Category of BIG-000030',
    );
    await page.getByLabel('Colour of BIG-000000').focus();
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData('text/plain', Array.from({ length: 50 }, (_, i) => `Shade ${i}`).join('\n'));
      document.activeElement!.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
      );
    });
    assert.equal(await page.getByLabel('Colour of BIG-000049').inputValue(), 'Shade 49');
    await page.getByLabel('Stock of BIG-000000').fill('7');
    await page.keyboard.press('Control+d');
    for (let n = 0; n < 5; n++) {
      await page.getByRole('button', { name: 'Next →' }).focus();
      await page.keyboard.press('Enter');
      await grid.locator(`tbody tr[data-code="BIG-${String((n + 1) * 50).padStart(6, '0')}"]`).waitFor();
    }
    await page.getByRole('button', { name: 'Save 50 edited product(s)' }).waitFor();
    const long = await longTasks();
    process.stdout.write(
      `console bulk grid, ${BIG_PRODUCTS} products: long tasks ${JSON.stringify(long.map(Math.round))}\n`,
    );
    assert.ok(
      long.every((ms) => ms < 100),
      `a frame over 100 ms: ${long.join(', ')}`,
    );
    await page.getByRole('button', { name: 'Discard edits' }).click();
  });

  it('shows what shoppers searched for, found nothing for, and looked at without buying', async () => {
    await api('POST', `/v1/events?store_uuid=${store.store_uuid}`, store.api_token, [
      { event_id: 'an-1', type: 'search', query: 'Velvet Cape', hits: 0, session_id: 'an-s1' },
      { event_id: 'an-2', type: 'search', query: 'red dress', hits: 3, session_id: 'an-s1' },
      { event_id: 'an-3', type: 'click', product_code: 'DRESS-1', query: 'red dress', session_id: 'an-s1' },
      { event_id: 'an-4', type: 'view', product_code: 'DRESS-1', session_id: 'an-s2' },
    ]);
    await page.goto(console(`#/s/${store.store_uuid}/analytics`));
    const zero = page.getByRole('region', { name: 'Queries that found nothing' });
    await zero.locator('td').first().waitFor();
    assert.match(await zero.innerText(), /velvet cape\s+1/);
    const top = page.getByRole('region', { name: 'Top queries' });
    assert.match(await top.innerText(), /red dress\s+1\s+1\s+100 %/);
    const viewed = page.getByRole('region', { name: 'Viewed, never bought' });
    await viewed.getByRole('link', { name: 'DRESS-1' }).click();
    await page.waitForURL(/products\/DRESS-1/);
  });

  it('shows the catalog language and changes it, the text index rebuilt in the background', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/vocabulary`));
    const select = page.getByLabel('Language of the catalog');
    await select.waitFor();
    assert.equal(await select.inputValue(), 'en');
    await select.selectOption('fr');
    await page.getByRole('button', { name: 'Change language' }).click();
    const status = page.getByText(/read the catalog in French \(fr\)/);
    await status.waitFor({ timeout: 15_000 });
    const stores = await api('GET', `/v1/stores?store_uuid=${store.store_uuid}`, store.api_token);
    assert.equal(stores.store_language, 'fr');
    await page.screenshot({ path: path.join(dir, 'language.png') });
    await api('PUT', `/admin/v1/stores/${store.store_uuid}/language`, ADMIN, { language: 'en' });
  });

  it('reviews photo suggestions from the keyboard and accepts a group above a confidence at once', async () => {
    await page.goto(console(`#/s/${store.store_uuid}/tagging`));
    await page.getByRole('button', { name: /^Colour/ }).click();
    const cards = page.getByTestId('suggestion');
    await cards.first().waitFor({ timeout: 15_000 });
    const before = await cards.count();
    const first = (await cards.first().getAttribute('aria-label'))!.split(':')[0];
    await cards.first().focus();
    await page.keyboard.press('a');
    await page.getByRole('status').filter({ hasText: '1 accepted' }).waitFor();
    let colour: unknown;
    for (let i = 0; i < 50 && !colour; i++) {
      const product = await api(
        'GET',
        `/v1/products?store_uuid=${store.store_uuid}&product_code=${first}`,
        store.api_token,
      );
      colour = product.products[0].Colour;
      if (!colour) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(colour, `${first} got a colour`);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="suggestion"]').length === n - 1, before);
    await cards.first().focus();
    await page.keyboard.press('r');
    await page.getByRole('status').filter({ hasText: '1 rejected' }).waitFor();
    await page.getByLabel('Accept from confidence').fill('0');
    const acceptAll = page.getByRole('button', { name: /^Accept \d+ from 0 %/ }).first();
    const n = Number(/Accept (\d+)/.exec((await acceptAll.innerText()) ?? '')![1]);
    await acceptAll.click();
    await page
      .getByRole('status')
      .filter({ hasText: `${n} accepted` })
      .waitFor();
    await page.screenshot({ path: path.join(dir, 'tagging.png'), fullPage: true });
    fs.copyFileSync(path.join(dir, 'tagging.png'), '/tmp/console-tagging.png');
  });

  it("shows another workspace's store typed into the URL as not found, and nothing of it", async () => {
    await page.goto(console(`#/s/${other.store_uuid}/products`));
    assert.match(await alertText(), /Store not found/);
    assert.equal(await page.getByTestId('products').count(), 0);
    assert.equal(await page.getByRole('navigation', { name: 'Screens' }).count(), 0);
    assert.ok(!(await page.content()).includes('SECRET-1'));
  });

  it('gives every control a label', async () => {
    for (const hash of [
      'health',
      'products',
      'import',
      'collections/new',
      'search',
      'tagging',
      'vocabulary',
      'analytics',
      'merchandising',
      'settings',
      'bulk',
    ]) {
      await page.goto(console(`#/s/${store.store_uuid}/${hash}`));
      await page.locator('main h1').first().waitFor();
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea, button')]
          .filter((el) => {
            const labels = (el as HTMLInputElement).labels;
            const named =
              (labels && labels.length > 0) ||
              el.getAttribute('aria-label') ||
              (el.tagName === 'BUTTON' && (el.textContent ?? '').trim() !== '');
            return !named;
          })
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      assert.deepEqual(unlabelled, [], hash);
    }
  });

  it('keeps hostile text as text in every field it edits: attributes, grid cells, rules, the mapping profile', async () => {
    const injected = () =>
      page.evaluate(() => ({
        xss: (window as unknown as { __xss?: number }).__xss,
        nodes: document.querySelectorAll('img[src="x"], b, main script').length,
      }));
    // A field named and valued with markup, through the attribute editor.
    await page.goto(console(`#/s/${store.store_uuid}/products/BAG-1`));
    await page.getByLabel('New field name').fill(HOSTILE_NAME);
    await page.getByLabel('New field value').fill(HOSTILE_NAME);
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await page.locator(`tr[data-field="${HOSTILE_NAME.replace(/"/g, '\\"')}"] input`).waitFor();
    assert.deepEqual(await injected(), { xss: undefined, nodes: 0 });
    // A grid cell.
    await page.goto(console(`#/s/${store.store_uuid}/bulk?q=bag`));
    await page.getByLabel('Category of BAG-1').fill(HOSTILE_NAME);
    await page.getByRole('button', { name: 'Save 1 edited product(s)' }).click();
    await page
      .getByTestId('bulk-status')
      .getByText(/done — 1 changed/)
      .waitFor();
    await page.reload();
    await page.getByLabel('Category of BAG-1').waitFor();
    assert.equal(await page.getByLabel('Category of BAG-1').inputValue(), HOSTILE_NAME);
    assert.deepEqual(await injected(), { xss: undefined, nodes: 0 });
    await api('PUT', `/v1/products?store_uuid=${store.store_uuid}`, store.api_token, [
      { product_code: 'BAG-1', Category: 'Bags', [HOSTILE_NAME]: null },
    ]);
    // A merchandising rule whose query is markup, listed after saving.
    await page.goto(console(`#/s/${store.store_uuid}/merchandising`));
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Rule id').fill('hostile');
    await page.getByLabel('Query').fill(HOSTILE_NAME);
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Rule hostile saved: listings apply it now.').waitFor();
    await page.reload();
    await page
      .getByTestId('rules')
      .getByText(/“<img src=x/)
      .waitFor();
    assert.deepEqual(await injected(), { xss: undefined, nodes: 0 });
    await api('PUT', `/admin/v1/stores/${store.store_uuid}/search-rules`, ADMIN, { rules: [] });
    // A mapping profile column named with markup.
    const mapping = await api('GET', `/admin/v1/stores/${store.store_uuid}/mapping`, ADMIN);
    await page.goto(console(`#/s/${store.store_uuid}/settings`));
    const fields = page.getByLabel(/^Column names of your files/);
    await fields.fill(`${HOSTILE_NAME} = Product Name`);
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    await page.reload();
    await page.waitForFunction(
      (hostile) => document.querySelector<HTMLTextAreaElement>('#mapping-fields')?.value.includes(hostile),
      HOSTILE_NAME,
    );
    assert.deepEqual(await injected(), { xss: undefined, nodes: 0 });
    await api('PUT', `/admin/v1/stores/${store.store_uuid}/mapping`, ADMIN, mapping);
  });

  it('says so when the token is revoked in the middle of a bulk action, and writes nothing with it', async () => {
    const spare = await api('POST', '/admin/v1/tokens', ADMIN, { workspace_id: store.workspace_id });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(spare.api_token);
    await page.getByLabel(/Operator token/).fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('status-counts').waitFor();
    const colourNow = async () =>
      (await api('GET', `/v1/products?store_uuid=${store.store_uuid}&product_code=SHIRT-1`, store.api_token))
        .products[0].Colour;
    // Whatever an earlier test left (tag review may have given it one), the revoked write must not land.
    const before = await colourNow();
    await page.goto(console(`#/s/${store.store_uuid}/bulk?q=shirt`));
    await page.getByLabel('Colour of SHIRT-1').fill('Teal');
    await api('DELETE', `/admin/v1/tokens/${spare.token_id}`, ADMIN);
    await page.getByRole('button', { name: 'Save 1 edited product(s)' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /token was not accepted/ })
      .waitFor();
    assert.equal(await colourNow(), before);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(store.api_token);
    await page.getByLabel(/Operator token/).fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('status-counts').waitFor();
  });

  it('sends a revoked token back to the sign-in form with a clear error', async () => {
    const spare = await api('POST', '/admin/v1/tokens', ADMIN, { workspace_id: store.workspace_id });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill(spare.api_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('status-counts').waitFor();
    await api('DELETE', `/admin/v1/tokens/${spare.token_id}`, ADMIN);
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.match(await alertText(), /token was not accepted/i);
    assert.equal(await page.getByTestId('status-counts').count(), 0);
  });
});
