import type { TestApp } from './test-app.js';
import { imageForm } from './images.js';

/** Follows the catalogue's image references and embeds every queued image now. */
export async function indexAll(t: TestApp) {
  await t.container.imageCatalog.catchUp(t.store.store_uuid);
  await t.container.imageWorker.drain();
}

/** POST /v1/visual-search with `image` in multipart field `field` (none: a form without a file). */
export async function visualSearch(
  t: TestApp,
  image: Buffer | undefined,
  query = '',
  field = 'image',
  filename = 'photo.jpg',
) {
  const { payload, headers } = await imageForm(
    image === undefined ? [{ name: 'note', data: 'no image' }] : [{ name: field, data: image, filename }],
  );
  return t.request({
    method: 'POST',
    url: `/v1/visual-search?store_uuid=${t.store.store_uuid}${query}`,
    payload,
    headers,
  });
}

export const codesOf = (res: { json(): any }) =>
  (res.json().data as Array<{ product_code: string }>).map((r) => r.product_code);
