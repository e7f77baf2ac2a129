// Small shared pieces: loading data with errors in words, thumbnails, paging.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, safeImage, STATUSES, url } from './api';
import { loadSession } from './session';

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : null;
  return (
    <div class="error" role="alert">
      <p>{api ? api.message : `Something went wrong in the console: ${String((error as Error)?.message ?? error)}`}</p>
      {api?.requestId ? (
        <p class="request-id">
          Request id: <code>{api.requestId}</code>
        </p>
      ) : null}
    </div>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `key` changes; an older answer never overwrites a newer one. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ data: s.data, loading: true }));
    loader
      .current(controller.signal)
      .then((data) => !controller.signal.aborted && setState({ data, loading: false }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setState({ error, loading: false });
      });
    return () => controller.abort();
  }, [key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The store of the screen shown (`#/s/<store>/…`). */
function currentStore(): string | null {
  return /^#\/s\/([^/?]+)/.exec(location.hash)?.[1] ?? null;
}

/** Thumbnails fetched from the service (GET /v1/thumbnail) as object URLs, the latest few hundred kept. */
const thumbnails = new Map<string, Promise<string | null>>();
const KEPT_THUMBNAILS = 400;

function thumbnailOf(storeId: string, src: string, size: number): Promise<string | null> {
  const box = Math.min(320, Math.ceil(size * Math.min(2, window.devicePixelRatio || 1)));
  const key = `${storeId}|${box}|${src}`;
  let made = thumbnails.get(key);
  if (!made) {
    const token = loadSession()?.token;
    made = fetch(url('/v1/thumbnail', { store_uuid: storeId, url: src, size: box }), {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      credentials: 'omit',
    })
      .then(async (res) => (res.ok ? URL.createObjectURL(await res.blob()) : null))
      .catch(() => null);
    thumbnails.set(key, made);
    if (thumbnails.size > KEPT_THUMBNAILS) {
      const [oldest, gone] = thumbnails.entries().next().value as [string, Promise<string | null>];
      thumbnails.delete(oldest);
      void gone.then((objectUrl) => objectUrl && URL.revokeObjectURL(objectUrl));
    }
  }
  return made;
}

/**
 * A product image, small. Uploads of this service (/media/…) load as they are; any other image comes
 * through the service's thumbnails, so the page loads no image from another host (CSP img-src 'self').
 */
export function Thumb({ src, alt, size = 56 }: { src: unknown; alt: string; size?: number }) {
  const safe = safeImage(src);
  const own = !!safe && (safe.startsWith('/media/') || safe.startsWith(`${location.origin}/media/`));
  const [shown, setShown] = useState<string | null | undefined>(own ? safe : undefined);
  const [broken, setBroken] = useState(false);
  useEffect(() => {
    setBroken(false);
    if (!safe || own) return setShown(own ? safe : null);
    const storeId = currentStore();
    if (!storeId) return setShown(null);
    let live = true;
    setShown(undefined);
    void thumbnailOf(storeId, safe, size).then((objectUrl) => live && setShown(objectUrl));
    return () => {
      live = false;
    };
  }, [safe, size]);
  if (!safe || shown === null || broken)
    return (
      <span class="thumb thumb-none" data-size={size} aria-label={`${alt}: no image`}>
        no image
      </span>
    );
  if (shown === undefined) return <span class="thumb thumb-loading" data-size={size} aria-label={`${alt}: loading`} />;
  return (
    <img
      class="thumb"
      data-size={size}
      src={shown}
      alt={alt}
      decoding="async"
      width={size}
      height={size}
      onError={() => setBroken(true)}
    />
  );
}

export function Pager(props: {
  offset: number;
  limit: number;
  total: number;
  /** The total is a lower bound (the matches found so far): it is still being counted. */
  atLeast?: boolean;
  onPage: (offset: number) => void;
}) {
  const { offset, limit, total, atLeast = false, onPage } = props;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <span aria-live="polite">
        {total === 0
          ? 'nothing'
          : `${(offset + 1).toLocaleString()}–${last.toLocaleString()} of ${atLeast ? 'at least ' : ''}${total.toLocaleString()}${atLeast ? ' (counting…)' : ''}`}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onPage(offset + limit)}>
        Next →
      </button>
    </nav>
  );
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.replace(/\s+/g, '-')}`}>{status}</span>;
}

/** An attribute as text: strings as they are, anything else as JSON. */
export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function price(value: unknown, currency: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return `${text(value)}${typeof currency === 'string' && currency ? ` ${currency}` : ''}`;
}

/** Calls `fn` once `value` has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The status filter of the product screens: any status, or one. */
export function StatusFilter({ value, onChange }: { value: string; onChange: (status: string) => void }) {
  return (
    <label>
      <span>Status</span>
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">any status</option>
        {STATUSES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
    </label>
  );
}
