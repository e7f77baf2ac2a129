// One product: every attribute, images, asset links per channel with ranks, status changes, complements, similar.
import { useState } from 'preact/hooks';
import { ApiError, call, productsByCode, SETTABLE_STATUSES, type Member, type ProductPage } from '../api';
import type { StoreContext } from '../app';
import { href } from '../router';
import { AssetEditor } from './asset-editor';
import { AttributeEditor } from './product-editor';
import { ErrorNotice, price, Section, StatusBadge, text, Thumb, useLoad } from '../ui';

interface WriteResult {
  failed: number;
  error_info: Array<{ reason?: string; details?: string; message?: string }>;
}

export function ProductScreen({ ctx, code }: { ctx: StoreContext; code: string }) {
  const storeId = ctx.store.store_uuid;
  const product = useLoad(async (signal) => {
    const page = await call<ProductPage>('/v1/products', {
      query: { store_uuid: storeId, product_code: code },
      signal,
    });
    return page.products[0] ?? null;
  }, `${storeId}|${code}`);
  const [change, setChange] = useState<{ error?: unknown; done?: string; busy?: boolean }>({});

  const setStatus = async (status: string) => {
    setChange({ busy: true });
    try {
      const result = await call<WriteResult>('/v1/products', {
        method: 'PUT',
        query: { store_uuid: storeId },
        json: [{ product_code: code, Status: status }],
      });
      if (result.failed > 0) {
        const info = result.error_info[0];
        setChange({
          error: new ApiError(
            `Vitrine refused the change: ${info?.details ?? info?.message ?? info?.reason ?? 'unknown reason'}.`,
            422,
            null,
          ),
        });
      } else setChange({ done: status });
      product.reload();
    } catch (error) {
      setChange({ error });
    }
  };

  if (product.error) return <ErrorNotice error={product.error} />;
  if (!product.data)
    return product.loading ? (
      <p class="loading">Loading {code}…</p>
    ) : (
      <div class="error" role="alert">
        <p>Product {code} is not in this store.</p>
      </div>
    );
  const p = product.data;
  const name = text(p['Product Name']);
  const images = [1, 2, 3, 4, 5, 6].map((n) => p[`Image URL ${n}`]).filter((u) => typeof u === 'string' && u !== '');

  return (
    <>
      <p>
        <a href={href(['s', storeId, 'products'])}>← Products</a>
      </p>
      <h1>
        {name || code} <StatusBadge status={p.status} />
      </h1>
      <div class="product-head">
        <div class="gallery">
          {images.length === 0 ? <Thumb src={null} alt={code} size={160} /> : null}
          {images.map((src, i) => (
            <Thumb key={i} src={src} alt={`${name || code}, image ${i + 1}`} size={160} />
          ))}
        </div>
        <Section title="Status">
          <p>
            Now <StatusBadge status={p.status} />
            {p.problems.length > 0 ? <> — fails: {p.problems.join(', ')}</> : null}
          </p>
          {p.status === 'problem' ? (
            <p class="hint">
              “problem” is set by the quality checks: fix the data ({p.problems.join(', ')}) and the product leaves it
              by itself. You can still park it as draft, inactive or under review.
            </p>
          ) : null}
          <div class="status-actions" role="group" aria-label="Change status">
            {SETTABLE_STATUSES.filter((s) => s !== p.status).map((s) => (
              <button type="button" key={s} disabled={change.busy} onClick={() => void setStatus(s)}>
                Set {s}
              </button>
            ))}
          </div>
          {change.done ? <p role="status">Status set to {change.done}.</p> : null}
          <ErrorNotice error={change.error} />
        </Section>
      </div>
      <Section title="Attributes">
        <AttributeEditor storeId={storeId} product={p} onSaved={product.reload} />
        <p class="hint">
          Created {new Date(p.created_at).toLocaleString()}. Changes go through the API (PUT /v1/products) and show in
          the change feed.
        </p>
      </Section>
      <AssetEditor storeId={storeId} code={code} parent={text(p.parent_code) || code} />
      <Related storeId={storeId} code={code} />
    </>
  );
}

function MemberGrid({ products, storeId }: { products: Array<Member & { score?: number }>; storeId: string }) {
  return (
    <ul class="grid">
      {products.map((m) => (
        <li key={m.product_code}>
          <a href={href(['s', storeId, 'products', m.product_code])}>
            <Thumb src={m.image_url} alt={m.title || m.product_code} size={96} />
            <span class="title">{m.title || m.product_code}</span>
          </a>
          <span class="meta">
            {m.category} {m.price !== null && m.price !== undefined ? `· ${price(m.price, m.currency)}` : ''}
            {m.score !== undefined ? ` · ${m.score.toFixed(3)}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Related({ storeId, code }: { storeId: string; code: string }) {
  const complements = useLoad(
    (signal) =>
      call<{ categories: Array<{ title: string; products: Member[] }> }>('/v1/complementary', {
        query: { store_uuid: storeId, product_code: code, limit: 6 },
        signal,
      }).catch((error: unknown) => {
        // Hidden products have no complements: say so rather than fail.
        if (error instanceof ApiError && error.httpStatus === 404) return { categories: [] };
        throw error;
      }),
    `${storeId}|${code}`,
  );
  const similar = useLoad(async (signal) => {
    let hits: Array<{ product_code: string; score: number; image_url: string }>;
    try {
      hits = await call('/v1/similar', { query: { store_uuid: storeId, product_code: code, limit: 12 }, signal });
    } catch (error) {
      if (error instanceof ApiError && error.httpStatus === 404) return [];
      throw error;
    }
    // Hits carry code, score and image; names, categories and prices come from the products.
    const products = await productsByCode(
      storeId,
      hits.map((h) => h.product_code),
      signal,
    );
    const byCode = new Map(products.map((p) => [p.product_code, p]));
    return hits.map((hit) => {
      const p = byCode.get(hit.product_code);
      return {
        product_code: hit.product_code,
        title: text(p?.['Product Name']) || hit.product_code,
        category: text(p?.Category),
        price: p && p['Selling Price'] !== '' && p['Selling Price'] !== undefined ? Number(p['Selling Price']) : null,
        currency: text(p?.Currency),
        image_url: hit.image_url,
        score: hit.score,
      };
    });
  }, `${storeId}|${code}`);
  return (
    <>
      <Section title="Complete the look">
        <ErrorNotice error={complements.error} />
        {complements.data && complements.data.categories.length === 0 ? (
          <p>No complements (the product is not visible, or nothing goes with it yet).</p>
        ) : null}
        {complements.data?.categories.map((category) => (
          <div key={category.title}>
            <h3>{category.title}</h3>
            <MemberGrid storeId={storeId} products={category.products} />
          </div>
        ))}
      </Section>
      <Section title="Visually similar">
        <ErrorNotice error={similar.error} />
        {similar.data && similar.data.length === 0 ? (
          <p>Nothing similar yet (no indexed image of this product).</p>
        ) : null}
        {similar.data ? <MemberGrid storeId={storeId} products={similar.data} /> : null}
      </Section>
    </>
  );
}
