// Small shared pieces: loading data with errors in words, thumbnails, paging.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, safeImage } from './api';

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

export function Thumb({ src, alt, size = 56 }: { src: unknown; alt: string; size?: number }) {
  const safe = safeImage(src);
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [safe]);
  if (!safe || broken)
    return (
      <span class="thumb thumb-none" data-size={size} aria-label={`${alt}: no image`}>
        no image
      </span>
    );
  return (
    <img
      class="thumb"
      data-size={size}
      src={safe}
      alt={alt}
      loading="lazy"
      decoding="async"
      referrerpolicy="no-referrer"
      width={size}
      height={size}
      onError={() => setBroken(true)}
    />
  );
}

export function Pager(props: { offset: number; limit: number; total: number; onPage: (offset: number) => void }) {
  const { offset, limit, total, onPage } = props;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <span aria-live="polite">
        {total === 0
          ? 'nothing'
          : `${(offset + 1).toLocaleString()}–${last.toLocaleString()} of ${total.toLocaleString()}`}
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
