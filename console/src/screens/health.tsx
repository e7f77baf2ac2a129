// Catalog health: products per status, why products fail (click → those products), the image pipeline.
import { useState } from 'preact/hooks';
import { call, STATUSES, type Failure, type ImageStatus } from '../api';
import type { StoreContext } from '../app';
import { href } from '../router';
import { ErrorNotice, Section, StatusBadge, useLoad } from '../ui';

export function HealthScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  const counts = useLoad(
    (signal) =>
      Promise.all(
        STATUSES.map((status) =>
          call<{ total: number }>('/v1/products/status', {
            query: { store_uuid: storeId, status, limit: 1 },
            signal,
          }).then((page) => [status, page.total] as const),
        ),
      ),
    storeId,
  );
  const failures = useLoad(
    (signal) => call<Failure[]>('/v1/products/failures', { query: { store_uuid: storeId }, signal }),
    storeId,
  );
  const total = counts.data?.reduce((sum, [, n]) => sum + n, 0) ?? 0;

  return (
    <>
      <h1>Catalog health · {ctx.store.store_name}</h1>
      <Section title="Products by status">
        <ErrorNotice error={counts.error} />
        {counts.data ? (
          <ul class="counts" data-testid="status-counts">
            <li>
              <a href={href(['s', storeId, 'products'])}>
                <strong>{total.toLocaleString()}</strong> all products
              </a>
            </li>
            {counts.data.map(([status, n]) => (
              <li key={status} data-status={status}>
                <a href={href(['s', storeId, 'products'], { status })}>
                  <strong>{n.toLocaleString()}</strong> <StatusBadge status={status} />
                </a>
              </li>
            ))}
          </ul>
        ) : counts.loading ? (
          <p class="loading">Counting…</p>
        ) : null}
      </Section>
      <Section title="Why products fail the quality checks">
        <ErrorNotice error={failures.error} />
        {failures.data && failures.data.length === 0 ? <p>No product fails a quality check.</p> : null}
        {failures.data && failures.data.length > 0 ? (
          <table class="table" data-testid="failures">
            <thead>
              <tr>
                <th scope="col">Reason</th>
                <th scope="col">Products</th>
              </tr>
            </thead>
            <tbody>
              {failures.data.map((failure) => (
                <tr key={failure._id}>
                  <td>
                    {failure._id === 'Missing SKU' ? (
                      <span title="rows rejected for having no product_code in the last 30 days: there is no product to show">
                        {failure._id} (rejected rows, last 30 days)
                      </span>
                    ) : (
                      <a href={href(['s', storeId, 'products'], { reason: failure._id })}>{failure._id}</a>
                    )}
                  </td>
                  <td class="num">{failure.count.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      {ctx.admin ? <ImagePipeline storeId={storeId} /> : null}
    </>
  );
}

function ImagePipeline({ storeId }: { storeId: string }) {
  const images = useLoad(
    (signal) =>
      call<ImageStatus>(`/admin/v1/stores/${encodeURIComponent(storeId)}/images`, {
        admin: true,
        query: { failures: 20 },
        signal,
      }),
    storeId,
  );
  const [retry, setRetry] = useState<{ error?: unknown; requeued?: number; busy?: boolean }>({});
  const retryFailed = async () => {
    setRetry({ busy: true });
    try {
      const done = await call<{ requeued: number }>(`/admin/v1/stores/${encodeURIComponent(storeId)}/images/retry`, {
        method: 'POST',
        admin: true,
      });
      setRetry({ requeued: done.requeued });
      images.reload();
    } catch (error) {
      setRetry({ error });
    }
  };
  const data = images.data;
  return (
    <Section
      title="Image pipeline (search by photo)"
      actions={
        <button type="button" onClick={() => void retryFailed()} disabled={retry.busy || !data || data.failed === 0}>
          Retry failed images
        </button>
      }
    >
      <ErrorNotice error={images.error ?? retry.error} />
      {retry.requeued !== undefined ? (
        <p role="status">{retry.requeued.toLocaleString()} images queued again.</p>
      ) : null}
      {data ? (
        <>
          <ul class="counts" data-testid="image-counts">
            <li>
              <strong>{data.images.toLocaleString()}</strong> images
            </li>
            <li>
              <strong>{data.indexed.toLocaleString()}</strong> indexed
            </li>
            <li>
              <strong>{data.pending.toLocaleString()}</strong> pending
            </li>
            <li>
              <strong>{data.retrying.toLocaleString()}</strong> retrying
            </li>
            <li>
              <strong>{data.failed.toLocaleString()}</strong> failed
            </li>
          </ul>
          {data.failures.length > 0 ? (
            <table class="table">
              <caption>Latest failures</caption>
              <thead>
                <tr>
                  <th scope="col">Image</th>
                  <th scope="col">Why</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {data.failures.map((failure) => (
                  <tr key={failure.url}>
                    <td class="url">{failure.url}</td>
                    <td>{failure.error ?? failure.state}</td>
                    <td class="num">{failure.attempts}</td>
                    <td>{new Date(failure.updated_at).toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : images.loading ? (
        <p class="loading">Reading the image pipeline…</p>
      ) : null}
    </Section>
  );
}
