// Screenshots of the console's main screens for the README and docs/console/, over the shipped demo
// store (216 products with photos): `npm run build && node scripts/console-screenshots.mjs`.
// Needs Chromium (/usr/bin/chromium or VITRINE_CHROMIUM), launched as the browser tests do.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { launchChromium } from '../build/test/helpers/browser.js';

const out = path.resolve('docs/console');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-shots-'));
const free = net.createServer().listen(0, '127.0.0.1');
await new Promise((resolve) => free.once('listening', resolve));
const port = free.address().port;
await new Promise((resolve) => free.close(resolve));
const base = `http://127.0.0.1:${port}`;
const admin = 'screenshots-admin-token-0123456789';
const env = {
  ...process.env,
  DATABASE_URL: `sqlite:${path.join(dir, 'demo.db')}`,
  VITRINE_DATA_DIR: path.join(dir, 'data'),
  VITRINE_PUBLIC_URL: base,
  VITRINE_ADMIN_TOKEN: admin,
  PORT: String(port),
  LOG_LEVEL: 'warn',
};
const demo = spawnSync(process.execPath, ['bin/vitrine.js', 'demo', '--json'], { env, encoding: 'utf8' });
if (demo.status !== 0) throw new Error(demo.stderr);
const { store_uuid: store, api_token: token } = JSON.parse(demo.stdout);
const server = spawn(process.execPath, ['bin/vitrine.js', 'serve', '--processes', '1'], { env, stdio: 'ignore' });
for (let i = 0; ; i++) {
  if (
    await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  if (i > 100) throw new Error('vitrine serve did not start');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const call = (method, url, body, auth = token) =>
  fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
// Some problems to look at, and a collection tree.
await call('PUT', `/v1/products?store_uuid=${store}`, [
  { product_code: 'DEMO-004', Status: 'active' },
  { product_code: 'DEMO-028', Status: 'active' },
]);
await call('POST', `/v1/products?store_uuid=${store}`, [
  {
    product_code: 'DEMO-900',
    'Product Name': 'Women Linen Wrap Dress',
    Category: 'Dresses',
    Department: 'Women',
    'Selling Price': '',
  },
  { product_code: 'DEMO-901', 'Product Name': 'Unisex Rain Jacket', Department: 'Unisex', 'Selling Price': 'ask us' },
]);
// Asset links on the demo store's channel (web) for the product page shot, ranked by the number in their names.
const photo = (code) =>
  call('GET', `/v1/products?store_uuid=${store}&product_code=${code}`)
    .then((r) => r.json())
    .then((r) => r.data.products[0]['Image URL 1']);
await call('POST', `/v1/assets?store_uuid=${store}&channel=web`, [
  {
    parent_code: 'DEMO-028',
    asset_type: 'image',
    assets: {
      'Image URL 1': await photo('DEMO-028'),
      'Image URL 2': await photo('DEMO-031'),
      'Image URL 3': await photo('DEMO-036'),
    },
  },
]);
await call('POST', `/v1/collection?store_uuid=${store}`, [
  { id: 'women', name: 'Women', filters: { Department: 'Women' } },
  {
    id: 'dresses',
    parentId: 'women',
    name: 'Dresses',
    filters: { Category: 'Dresses' },
    sortBy: { dynamic: [{ field: 'Selling Price', order: 'asc' }] },
  },
  {
    id: 'summer-red',
    parentId: 'women',
    name: 'Summer in red',
    filters: { Colour: 'Red', Season: 'Summer' },
    minProducts: 3,
  },
]);

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const shot = async (name, fullPage = false) => {
    await page.waitForTimeout(600);
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage });
    console.log(`docs/console/${name}.png`);
  };
  await page.goto(`${base}/console/`);
  await shot('sign-in');
  await page.getByLabel('API token').fill(token);
  await page.getByLabel(/Operator token/).fill(admin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('status-counts').waitFor();
  await page.getByTestId('image-counts').waitFor();
  await shot('health');
  await page.goto(`${base}/console/#/s/${store}/products`);
  await page.getByTestId('products').waitFor();
  await shot('products');
  await page.goto(`${base}/console/#/s/${store}/products/DEMO-028`);
  await page.locator('section[aria-label="Visually similar"] .grid li').first().waitFor();
  await shot('product', true);
  await page.goto(`${base}/console/#/s/${store}/collections`);
  await page.getByTestId('collections').waitFor();
  await shot('collections');
  await page.goto(`${base}/console/#/s/${store}/collections/new`);
  await page.getByLabel('Name').fill('Dresses under 62');
  await page.getByLabel(/^Filters/).fill('{\n  "Category": "Dresses",\n  "Selling Price": { "lte": 62 }\n}');
  await page.getByLabel('Sort members by attribute').fill('Selling Price');
  await page.getByTestId('preview').waitFor();
  await shot('collection-preview');
  await page.goto(`${base}/console/#/s/${store}/search`);
  await page.getByLabel('Search as a shopper').fill('red dress');
  await page.getByTestId('results').first().locator('li').first().waitFor();
  await page.getByLabel(/Drop a photo here/).setInputFiles('samples/demo/photos/DEMO-100.jpg');
  await page.locator('section[aria-label="Search by photo"] [data-testid="results"] li').first().waitFor();
  await shot('search');
  await page.goto(`${base}/console/#/s/${store}/import`);
  await page.getByLabel(/Catalog file/).setInputFiles({
    name: 'price-update.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('product_code,Selling Price\nDEMO-001,19.99\nDEMO-002,21.99\n,9.99\nDEMO-003,free\n'),
  });
  await page.getByLabel('Each row is').selectOption('merge');
  await page.getByRole('button', { name: 'Check the file' }).click();
  await page.getByTestId('dry-run-result').waitFor();
  await page.getByTestId('rejects').waitFor();
  await shot('import');
  await page.goto(`${base}/console/#/s/${store}/vocabulary`);
  await page.getByTestId('vocabulary-categories').waitFor();
  await shot('vocabulary');
  // Part two (issue 46): editing in place, bulk editing, merchandising, settings.
  await page.goto(`${base}/console/#/s/${store}/products/DEMO-028`);
  await page.getByLabel('Product Name', { exact: true }).waitFor();
  await page.getByLabel('Selling Price', { exact: true }).fill('forty');
  await page.getByLabel('New field name').fill('Material');
  await page.getByLabel('New field value').fill('Linen');
  await page.getByRole('button', { name: 'Add field' }).click();
  await page.locator('section[aria-label="Attributes"]').screenshot({ path: path.join(out, 'product-edit.png') });
  console.log('docs/console/product-edit.png');
  await page.goto(
    `${base}/console/#/s/${store}/bulk?q=dress&filters=${encodeURIComponent(JSON.stringify({ Department: 'Women' }))}`,
  );
  await page.getByTestId('bulk-grid').locator('tbody tr').nth(3).waitFor();
  // The attribute filters, open since a value is chosen, with their counts.
  await page
    .getByTestId('facet-filters')
    .locator('option', { hasText: /^Women \(/ })
    .waitFor({ state: 'attached' });
  await page
    .getByLabel('Select DEMO-028')
    .check()
    .catch(() => {});
  const first = page.getByTestId('bulk-grid').locator('tbody tr').first().locator('input[data-column="3"]');
  await first.fill('Ivory');
  await first.press('Control+d');
  await shot('bulk');
  await page.goto(`${base}/console/#/s/${store}/merchandising`);
  await page.getByRole('button', { name: 'New rule' }).click();
  await page.getByLabel('Rule id').fill('summer-dresses');
  await page.getByLabel('Query').fill('dress');
  await page.waitForFunction(() => {
    const cards = [...document.querySelectorAll('[data-testid="merch-preview"] li .title')];
    return cards.length > 3 && cards.every((card) => /dress/i.test(card.textContent ?? ''));
  });
  const cards = page.getByTestId('merch-preview').locator('li');
  await cards.nth(3).dragTo(cards.nth(0));
  await shot('merchandising');
  await page.goto(`${base}/console/#/s/${store}/settings`);
  await page.getByLabel('Receiver URL (http or https)').fill('https://erp.example/vitrine');
  await page.getByTestId('tokens').locator('tbody tr').first().waitFor();
  await shot('settings', true);
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(dir, { recursive: true, force: true });
}
