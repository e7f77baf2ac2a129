import path from 'node:path';
import type { StoresService, CreatedStore } from '../stores/stores.service.js';
import type { ProductsService } from '../products/products.service.js';
import type { ProductsReadPort } from '../products/products.read-port.js';
import type { MediaService } from '../media/media.service.js';
import type { ImageCatalog } from '../visual/image-catalog.js';
import type { ImageWorker } from '../visual/image-worker.js';
import type { VisualService } from '../visual/visual.service.js';
import { importCatalog, type ImportSummary } from '../imports/catalog-import.js';
import { importImageFolder } from '../media/image-folder.js';

export interface DemoStoreDeps {
  stores: StoresService;
  products: ProductsService;
  productsRead: ProductsReadPort;
  media: MediaService;
  imageCatalog: ImageCatalog;
  imageWorker: ImageWorker;
  visual: VisualService;
}

export interface DemoStore {
  created: CreatedStore;
  summary: ImportSummary;
  photos: { indexed: number; failed: number };
}

/**
 * The demo workflow (`vitrine demo`): a new store with the shipped sample catalog
 * (`<demoDir>/catalog.csv`) and photos (`<demoDir>/photos`), the photos embedded before it returns
 * so that search by photo answers as soon as a server is up.
 */
export async function createDemoStore(
  deps: DemoStoreDeps,
  options: { demoDir: string; mediaBaseUrl: string; onPhotoProgress?: (indexed: number, total: number) => void },
): Promise<DemoStore> {
  const created = await deps.stores.createStore({
    workspaceName: 'Vitrine demo',
    name: 'Demo store',
    countries: [],
    channels: ['web'],
    taxonomy: 'fashion',
  });
  const store = await deps.stores.getStore(created.store_uuid);
  const summary = await importCatalog(deps.products, store, path.join(options.demoDir, 'catalog.csv'), {
    format: 'csv',
  });
  const images = await importImageFolder({
    media: deps.media,
    products: deps.products,
    productsRead: deps.productsRead,
    store,
    dir: path.join(options.demoDir, 'photos'),
    baseUrl: options.mediaBaseUrl,
  });
  await deps.imageCatalog.catchUp(store.id);
  let indexed = 0;
  for (;;) {
    const handled = await deps.imageWorker.drain();
    indexed += handled;
    options.onPhotoProgress?.(indexed, images.uploaded);
    if (handled === 0) break;
  }
  const status = await deps.visual.status(store.id, 5);
  return { created, summary, photos: { indexed: status.indexed, failed: status.failed } };
}
