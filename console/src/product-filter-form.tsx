// The products and bulk editing screens' filter row: status, code or name, and the failure reason a
// link from the health screen set (shown as a chip that removes it). `children` adds the screen's own
// controls (the products screen's export).
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { StatusFilter } from './ui';

export function ProductFilterForm({
  status,
  reason,
  q,
  go,
  children,
}: {
  status: string;
  reason: string;
  q: string;
  go: (next: Record<string, string | undefined>) => void;
  children?: ComponentChildren;
}) {
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  return (
    <form
      class="filters"
      role="search"
      aria-label="Filter products"
      onSubmit={(e) => {
        e.preventDefault();
        go({ q: typed.trim() });
      }}
    >
      <StatusFilter value={status} onChange={(next) => go({ status: next })} />
      <label>
        <span>Code or name</span>
        <input
          type="search"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
          placeholder="e.g. 15970 or linen shirt"
        />
      </label>
      <button type="submit">Filter</button>
      {children}
      {reason ? (
        <span class="chip" data-testid="reason-filter">
          failing: {reason}{' '}
          <button type="button" aria-label={`Stop filtering by ${reason}`} onClick={() => go({ reason: undefined })}>
            ×
          </button>
        </span>
      ) : null}
    </form>
  );
}
