// Analytics: what shoppers searched for (and did not find, or did not click), what is trending and
// what is looked at without being bought, over a period. Read from the admin analytics endpoints.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { call, type Schemas } from '../api';
import type { StoreContext } from '../app';
import { href } from '../router';
import { ErrorNotice, Section, useLoad } from '../ui';

type SearchReport = Schemas['SearchAnalytics'];
type ProductReport = Schemas['ProductAnalytics'];

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

export function AnalyticsScreen({ ctx }: { ctx: StoreContext }) {
  const [from, setFrom] = useState(day(-6));
  const [to, setTo] = useState(day(0));
  const base = `/admin/v1/stores/${encodeURIComponent(ctx.store.store_uuid)}/analytics`;
  const key = `${base}:${from}:${to}`;
  const searches = useLoad(
    (signal) => call<SearchReport>(`${base}/search`, { admin: true, signal, query: { from, to } }),
    key,
  );
  const products = useLoad(
    (signal) => call<ProductReport>(`${base}/products`, { admin: true, signal, query: { from, to } }),
    key,
  );
  const productLink = (code: string) => (
    <a href={href(['s', ctx.store.store_uuid, 'products', code])}>
      <code>{code}</code>
    </a>
  );

  return (
    <>
      <h1>Analytics</h1>
      <p class="hint">
        From the shopper events storefronts send (<code>POST /v1/events</code>) and the searches answered for a shopper
        or session. Queries are compared with case and spaces folded.
      </p>
      <form class="filters" aria-label="Period" onSubmit={(e) => e.preventDefault()}>
        <label>
          From <input type="date" name="from" value={from} max={to} onChange={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          To <input type="date" name="to" value={to} min={from} onChange={(e) => setTo(e.currentTarget.value)} />
        </label>
      </form>
      <ErrorNotice error={searches.error ?? products.error} />
      {searches.data ? (
        <>
          <Section title="Top queries">
            <Table
              empty="No searches in this period."
              head={['Query', 'Searches', 'Clicks', 'Click-through', 'Conversions']}
              rows={searches.data.top_queries.map((q) => [
                q.query,
                q.searches.toLocaleString(),
                q.clicks.toLocaleString(),
                `${Math.round(q.click_through * 100)} %`,
                q.conversions.toLocaleString(),
              ])}
            />
          </Section>
          <Section title="Queries that found nothing">
            <Table
              empty="Every search found something."
              head={['Query', 'Searches']}
              rows={searches.data.zero_result_queries.map((q) => [q.query, q.searches.toLocaleString()])}
            />
          </Section>
          <Section title="Queries whose results nobody clicked">
            <Table
              empty="None (searched at least 3 times with hits and never clicked)."
              head={['Query', 'Searches']}
              rows={searches.data.unclicked_queries.map((q) => [q.query, q.searches.toLocaleString()])}
            />
          </Section>
        </>
      ) : null}
      {products.data ? (
        <>
          <Section title="Trending now">
            <Table
              empty="No product events yet."
              head={['Product', 'Trend score']}
              rows={products.data.trending.map((p) => [productLink(p.product_code), p.trend.toLocaleString()])}
            />
          </Section>
          <Section title="Viewed, never bought">
            <Table
              empty="Nothing viewed without a purchase in this period."
              head={['Product', 'Views', 'Clicks', 'Added to cart']}
              rows={products.data.viewed_not_bought.map((p) => [
                productLink(p.product_code),
                p.views.toLocaleString(),
                p.clicks.toLocaleString(),
                p.carts.toLocaleString(),
              ])}
            />
          </Section>
        </>
      ) : null}
      {searches.loading || products.loading ? <p aria-live="polite">Loading…</p> : null}
    </>
  );
}

function Table({ head, rows, empty }: { head: string[]; rows: Array<Array<string | JSX.Element>>; empty: string }) {
  if (rows.length === 0) return <p class="hint">{empty}</p>;
  return (
    <table>
      <thead>
        <tr>
          {head.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((cells, i) => (
          <tr key={i}>
            {cells.map((cell, j) => (
              <td key={j}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
