// The products grid: status, failure reason, text and attribute filters, 50 per page, fast on 100k products.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call, download, firstImage, type ProductPage } from '../api';
import type { StoreContext } from '../app';
import { href, navigate, useRoute } from '../router';
import { NewProductForm } from './product-editor';
import { FacetFilters, selectionKey } from '../facet-filters';
import { ProductFilterForm } from '../product-filter-form';
import { ErrorNotice, Pager, price, StatusBadge, text, Thumb, useLoad } from '../ui';

const PAGE = 50;

export function ProductsScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  const { params } = useRoute();
  const status = params.get('status') ?? '';
  const reason = params.get('reason') ?? '';
  const q = params.get('q') ?? '';
  const filters = params.get('filters') ?? '';
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const [exportError, setExportError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const started = useRef(0);
  // The exact total counted with the Filters panel's counts, for a page answered before it was known.
  const [counted, setCounted] = useState<{ key: string; total: number }>();
  const selection = selectionKey(storeId, { status, reason, q }, filters);
  const table = useRef<HTMLTableElement>(null);

  const go = (next: Record<string, string | number | undefined>) =>
    navigate(['s', storeId, 'products'], { status, reason, q, filters, offset: undefined, ...next });

  const page = useLoad((signal) => {
    started.current = performance.now();
    return call<ProductPage>('/v1/products', {
      // A large store still indexing its attributes may answer a filter's page with a lower bound of its total.
      query: { store_uuid: storeId, status, reason, q, filters, offset, limit: PAGE, total_precision: 'at_least' },
      signal,
    });
  }, `${storeId}|${status}|${reason}|${q}|${filters}|${offset}`);

  // How long a page took from the request to the rows on screen (the browser test reads it).
  useLayoutEffect(() => {
    if (!page.data || page.loading || !table.current) return;
    const ms = performance.now() - started.current;
    table.current.dataset.renderMs = ms.toFixed(1);
  }, [page.data, page.loading]);

  return (
    <>
      <h1>Products</h1>
      <p>
        <button type="button" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          {creating ? 'Cancel new product' : 'New product'}
        </button>
      </p>
      {creating ? (
        <NewProductForm storeId={storeId} onCreated={(code) => navigate(['s', storeId, 'products', code], {})} />
      ) : null}
      <ProductFilterForm status={status} reason={reason} q={q} go={go}>
        <button
          type="button"
          class="link"
          onClick={() => {
            setExportError(null);
            download(
              '/v1/products/export',
              { store_uuid: storeId, format: 'csv', status },
              `${ctx.store.store_name} products${status ? ` (${status})` : ''}.csv`,
            ).catch(setExportError);
          }}
        >
          Export {status ? `${status} products` : 'all products'} (CSV)
        </button>
      </ProductFilterForm>
      <FacetFilters
        storeId={storeId}
        base={{ status, reason, q }}
        filters={filters}
        onChange={(next) => go({ filters: next || undefined })}
        rows={page.data}
        onTotal={setCounted}
      />
      <p>
        <a href={href(['s', storeId, 'bulk'], { status, reason, q, filters })}>Edit these products in bulk</a>
      </p>
      <ErrorNotice error={page.error ?? exportError} />
      {page.data ? (
        <>
          <table class="table products" ref={table} data-testid="products" aria-busy={page.loading}>
            <thead>
              <tr>
                <th scope="col">Image</th>
                <th scope="col">Code</th>
                <th scope="col">Name</th>
                <th scope="col">Category</th>
                <th scope="col">Price</th>
                <th scope="col">Status</th>
                <th scope="col">Problems</th>
              </tr>
            </thead>
            <tbody>
              {page.data.products.map((product) => {
                const name = text(product['Product Name']);
                return (
                  <tr key={product.product_code} data-code={product.product_code}>
                    <td>
                      <Thumb src={firstImage(product)} alt={name || product.product_code} size={48} />
                    </td>
                    <td>
                      <a href={href(['s', storeId, 'products', product.product_code])}>{product.product_code}</a>
                    </td>
                    <td class="name">{name || <em>no name</em>}</td>
                    <td>{text(product.Category)}</td>
                    <td class="num">{price(product['Selling Price'], product.Currency)}</td>
                    <td>
                      <StatusBadge status={product.status} />
                    </td>
                    <td class="problems">{product.problems.join(', ')}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {page.data.products.length === 0 ? <p>No product matches these filters.</p> : null}
          <Pager
            offset={offset}
            limit={PAGE}
            {...(page.data.total_precision !== 'at_least'
              ? { total: page.data.total }
              : counted?.key === selection
                ? { total: counted.total }
                : { total: page.data.total, atLeast: true })}
            onPage={(next) => go({ offset: next || undefined })}
          />
        </>
      ) : page.loading ? (
        <p class="loading">Loading products…</p>
      ) : null}
    </>
  );
}
