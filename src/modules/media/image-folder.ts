import fs from 'node:fs';
import path from 'node:path';
import { IMAGE_FIELDS } from '../../catalog/product-fields.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { ProductsService } from '../products/products.service.js';
import type { Store } from '../stores/store.js';
import type { MediaService } from './media.service.js';

export interface ImageFolderSummary {
  files: number;
  /** Files whose name names a product of the store. */
  matched: number;
  uploaded: number;
  /** Products whose `Image URL n` fields were set. */
  products: number;
  failed: number;
  failures: Record<string, number>;
  /** Up to 20 file names that name no product, to check the naming. */
  unmatched_files: string[];
  unmatched: number;
  seconds: number;
}

interface PlacedFile {
  file: string;
  code: string;
  slot: number;
}

const CONCURRENCY = 4;
const BATCH = 100;

/**
 * What a file name can mean, most likely first: `{product_code}.jpg` is slot 1,
 * `{product_code}_2.jpg` slot 2. The whole name comes first (codes may contain `_`).
 */
function readingsOf(fileName: string): Array<{ code: string; slot: number }> {
  const base = fileName.includes('.') ? fileName.slice(0, fileName.lastIndexOf('.')) : fileName;
  const readings = base === '' ? [] : [{ code: base, slot: 1 }];
  const numbered = /^(.+)_(\d{1,3})$/.exec(base);
  if (numbered) readings.push({ code: numbered[1], slot: Number(numbered[2]) });
  return readings;
}

/** The product and image slot a file name says: its first reading that names a known product. */
export function placeImageFile(
  fileName: string,
  known: (code: string) => boolean,
): { code: string; slot: number } | undefined {
  return readingsOf(fileName).find((reading) => known(reading.code));
}

/**
 * `vitrine import --images DIR`: uploads a folder of photos to the media store and points each
 * matched product's `Image URL n` at its upload (a partial update: the product's other fields and
 * images stay). Files are checked one by one like `POST /v1/media`.
 */
export async function importImageFolder(input: {
  media: MediaService;
  products: ProductsService;
  productsRead: ProductsReadPort;
  store: Store;
  dir: string;
  baseUrl: string;
  /** Match names only: upload and change nothing. */
  dryRun?: boolean;
  onProgress?: (done: number, total: number) => void;
}): Promise<ImageFolderSummary> {
  const started = performance.now();
  const names = fs
    .readdirSync(input.dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const summary: ImageFolderSummary = {
    files: names.length,
    matched: 0,
    uploaded: 0,
    products: 0,
    failed: 0,
    failures: {},
    unmatched_files: [],
    unmatched: 0,
    seconds: 0,
  };
  const fail = (reason: string) => {
    summary.failed++;
    summary.failures[reason] = (summary.failures[reason] ?? 0) + 1;
  };

  // Every code a name could mean, looked up once.
  const candidates = new Set(names.flatMap((name) => readingsOf(name).map((reading) => reading.code)));
  const known = new Set<string>();
  const all = [...candidates];
  for (let i = 0; i < all.length; i += 500)
    for (const record of await input.productsRead.attributesByCodes(input.store.id, all.slice(i, i + 500)))
      known.add(record.code);

  const placed: PlacedFile[] = [];
  const taken = new Set<string>();
  for (const file of names) {
    const place = placeImageFile(file, (code) => known.has(code));
    if (!place) {
      summary.unmatched++;
      if (summary.unmatched_files.length < 20) summary.unmatched_files.push(file);
      continue;
    }
    summary.matched++;
    if (place.slot < 1 || place.slot > IMAGE_FIELDS.length) fail('no_image_slot');
    else if (taken.has(`${place.code}\u0000${place.slot}`)) fail('duplicate_slot');
    else {
      taken.add(`${place.code}\u0000${place.slot}`);
      placed.push({ file, ...place });
    }
  }

  if (input.dryRun) {
    summary.products = new Set(placed.map((p) => p.code)).size;
    summary.seconds = Math.round((performance.now() - started) / 10) / 100;
    return summary;
  }
  const urls = new Map<string, Record<string, string>>();
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < placed.length) {
      const { file, code, slot } = placed[next++];
      const outcome = await input.media.storeFile(
        input.store,
        { fileName: file, stream: fs.createReadStream(path.join(input.dir, file)) },
        input.baseUrl,
      );
      if ('reason' in outcome) fail(outcome.reason);
      else {
        summary.uploaded++;
        urls.set(code, { ...(urls.get(code) ?? {}), [IMAGE_FIELDS[slot - 1]]: outcome.url });
      }
      input.onProgress?.(++done, placed.length);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  const updates = [...urls].map(([product_code, fields]) => ({ product_code, ...fields }));
  for (let i = 0; i < updates.length; i += BATCH) {
    const result = await input.products.importBatch(input.store, updates.slice(i, i + BATCH), { mode: 'update' });
    summary.products += result.updated + result.unchanged;
    for (const failure of result.error_info) fail(failure.reason);
  }
  summary.seconds = Math.round((performance.now() - started) / 10) / 100;
  return summary;
}
