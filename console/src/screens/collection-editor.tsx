// Create or edit a rule collection, with a live preview of its members before saving.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, type Collection, type Member } from '../api';
import type { StoreContext } from '../app';
import { href, navigate } from '../router';
import { ErrorNotice, price, Section, StatusBadge, Thumb, useDebounced, useLoad } from '../ui';

interface Draft {
  name: string;
  status: string;
  filters: string;
  heroProducts: string;
  sortField: string;
  sortOrder: string;
  minProducts: string;
  autoRefresh: boolean;
  isStatic: boolean;
}

const EMPTY: Draft = {
  name: '',
  status: 'active',
  filters: '{\n  "Category": "Dresses"\n}',
  heroProducts: '',
  sortField: '',
  sortOrder: 'asc',
  minProducts: '0',
  autoRefresh: true,
  isStatic: false,
};

function draftOf(c: Collection): Draft {
  const sort = c.sortBy.dynamic[0];
  return {
    name: c.name,
    // The list gives the effective status: an active collection below minProducts reads hidden.
    status: c.status === 'hidden' && c.totalProducts < c.minProducts ? 'active' : c.status,
    filters: JSON.stringify(c.filters, null, 2),
    heroProducts: c.heroProducts.join(', '),
    sortField: sort?.field ?? '',
    sortOrder: sort?.order ?? 'asc',
    minProducts: String(c.minProducts),
    autoRefresh: c.autoRefresh,
    isStatic: c.static === 'true',
  };
}

/** The body the API takes, or the reason the form cannot make one. */
/** The form edits the first sort field; the collection's other sort fields and static flags are kept. */
function bodyOf(draft: Draft, base: Collection | null): { body?: Record<string, unknown>; problem?: string } {
  let filters: unknown;
  try {
    filters = draft.filters.trim() === '' ? {} : JSON.parse(draft.filters);
  } catch {
    return { problem: 'Filters must be JSON, for example {"Category": "Dresses", "Selling Price": {"lte": 50}}.' };
  }
  if (!filters || typeof filters !== 'object' || Array.isArray(filters))
    return { problem: 'Filters must be a JSON object of attribute → value.' };
  const min = Number(draft.minProducts || 0);
  if (!Number.isInteger(min) || min < 0) return { problem: 'Minimum products must be a whole number, 0 or more.' };
  return {
    body: {
      name: draft.name,
      status: draft.status,
      filters,
      heroProducts: draft.heroProducts
        .split(/[\s,]+/)
        .map((code) => code.trim())
        .filter((code) => code !== ''),
      sortBy: {
        static: base?.sortBy.static ?? {},
        dynamic: [
          ...(draft.sortField.trim() ? [{ field: draft.sortField.trim(), order: draft.sortOrder }] : []),
          ...(base?.sortBy.dynamic.slice(1) ?? []),
        ],
      },
      minProducts: min,
      autoRefresh: draft.autoRefresh,
      static: draft.isStatic ? 'true' : 'false',
    },
  };
}

interface Preview {
  status: string;
  totalProducts: number;
  products: Member[];
}

export function CollectionEditor({ ctx, id }: { ctx: StoreContext; id: string | null }) {
  const storeId = ctx.store.store_uuid;
  const existing = useLoad(
    async (signal) => {
      if (!id) return null;
      const all = await call<Collection[]>('/v1/collection', {
        query: { store_uuid: storeId, status: 'active,inactive,hidden', limit: 1000 },
        signal,
      });
      return all.find((c) => c.id === id) ?? null;
    },
    `${storeId}|${id ?? ''}`,
  );
  const [draft, setDraft] = useState<Draft>(EMPTY);
  useEffect(() => {
    if (existing.data) setDraft(draftOf(existing.data));
  }, [existing.data]);

  const settled = useDebounced(draft, 350);
  // Editing: no preview of the blank form's defaults while the collection loads or its draft settles.
  const built = id && settled === EMPTY ? {} : bodyOf(settled, existing.data ?? null);
  const preview = useLoad(
    (signal) =>
      built.body
        ? call<Preview>('/v1/collection/preview', {
            method: 'POST',
            query: { store_uuid: storeId, limit: 24 },
            // The preview needs no name yet; saving does.
            json: { ...built.body, name: settled.name.trim() || 'Untitled' },
            signal,
          })
        : Promise.resolve(null),
    `${storeId}|${JSON.stringify(built.body ?? null)}`,
  );
  const [save, setSave] = useState<{ busy?: boolean; error?: unknown; done?: boolean }>({});

  const submit = async (event: Event) => {
    event.preventDefault();
    const { body, problem } = bodyOf(draft, existing.data ?? null);
    if (!body) {
      setSave({ error: new ApiError(problem ?? 'The form is not complete.', 422, null) });
      return;
    }
    setSave({ busy: true });
    try {
      const result = await call<{ failed: number; ids: Array<string | null>; error_info: Array<{ details: string }> }>(
        '/v1/collection',
        { method: id ? 'PUT' : 'POST', query: { store_uuid: storeId }, json: [id ? { ...body, id } : body] },
      );
      if (result.failed > 0) {
        setSave({
          error: new ApiError(
            `Vitrine refused the collection: ${result.error_info[0]?.details ?? 'invalid'}.`,
            422,
            null,
          ),
        });
        return;
      }
      setSave({ done: true });
      const savedId = id ?? result.ids[0];
      if (!id && savedId) navigate(['s', storeId, 'collections', savedId]);
    } catch (error) {
      setSave({ error });
    }
  };

  const [removal, setRemoval] = useState<{ asking?: boolean; error?: unknown }>({});
  const remove = async () => {
    try {
      const result = await call<{ failed: number; error_info: Array<{ details: string }> }>('/v1/collection', {
        method: 'DELETE',
        query: { store_uuid: storeId, ids: id },
      });
      if (result.failed > 0)
        return setRemoval({
          error: new ApiError(`Vitrine refused: ${result.error_info[0]?.details ?? 'not deleted'}.`, 422, null),
        });
      navigate(['s', storeId, 'collections']);
    } catch (error) {
      setRemoval({ error });
    }
  };

  const set = (patch: Partial<Draft>) => {
    setSave({});
    setDraft((d) => ({ ...d, ...patch }));
  };
  if (id && existing.error) return <ErrorNotice error={existing.error} />;
  if (id && existing.data === null && !existing.loading)
    return (
      <div class="error" role="alert">
        <p>Collection {id} is not in this store.</p>
      </div>
    );
  // The form appears with the collection in it: typed into the blank form, a change would be lost
  // when the collection arrives and fills it.
  if (id && (!existing.data || draft === EMPTY)) return <p class="loading">Loading the collection…</p>;

  return (
    <>
      <p>
        <a href={href(['s', storeId, 'collections'])}>← Collections</a>
      </p>
      <h1>{id ? `Edit ${draft.name || id}` : 'New rule collection'}</h1>
      <div class="row">
        <Section title="Rules">
          <form class="stack" onSubmit={(e) => void submit(e)} aria-label="Collection">
            <label for="c-name">Name</label>
            <input id="c-name" required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
            <label for="c-status">Status</label>
            <select id="c-status" value={draft.status} onChange={(e) => set({ status: e.currentTarget.value })}>
              <option value="active">active</option>
              <option value="inactive">inactive</option>
              <option value="hidden">hidden</option>
            </select>
            <label for="c-filters">
              Filters (JSON: attribute → value, list of values, or {'{"gte": …, "lte": …}'})
            </label>
            <textarea
              id="c-filters"
              rows={6}
              spellcheck={false}
              value={draft.filters}
              onInput={(e) => set({ filters: e.currentTarget.value })}
            />
            <label for="c-heroes">Hero products, first in this order (codes, comma-separated)</label>
            <input
              id="c-heroes"
              value={draft.heroProducts}
              onInput={(e) => set({ heroProducts: e.currentTarget.value })}
            />
            <label for="c-sort">Sort members by attribute</label>
            <div class="inline">
              <input
                id="c-sort"
                placeholder="e.g. Selling Price"
                value={draft.sortField}
                onInput={(e) => set({ sortField: e.currentTarget.value })}
              />
              <select
                aria-label="Sort order"
                value={draft.sortOrder}
                onChange={(e) => set({ sortOrder: e.currentTarget.value })}
              >
                <option value="asc">ascending</option>
                <option value="desc">descending</option>
              </select>
            </div>
            <label for="c-min">Minimum products (below it the collection is hidden)</label>
            <input
              id="c-min"
              type="number"
              min={0}
              step={1}
              value={draft.minProducts}
              onInput={(e) => set({ minProducts: e.currentTarget.value })}
            />
            <label class="inline">
              <input
                type="checkbox"
                checked={draft.autoRefresh}
                onChange={(e) => set({ autoRefresh: e.currentTarget.checked })}
              />{' '}
              Keep membership current as products change
            </label>
            <label class="inline">
              <input
                type="checkbox"
                checked={draft.isStatic}
                onChange={(e) => set({ isStatic: e.currentTarget.checked })}
              />{' '}
              Manual: exactly the hero products, no rules
            </label>
            <button type="submit" disabled={save.busy}>
              {save.busy ? 'Saving…' : id ? 'Save changes' : 'Create collection'}
            </button>
            {save.done ? <p role="status">Saved.</p> : null}
            <ErrorNotice error={save.error} />
          </form>
          {id ? (
            <div class="danger" role="group" aria-label="Delete this collection">
              {removal.asking ? (
                <>
                  <p>Delete “{draft.name || id}”? Its child collections move up to its parent.</p>
                  <button type="button" class="bad" onClick={() => void remove()}>
                    Delete collection
                  </button>{' '}
                  <button type="button" class="link" onClick={() => setRemoval({})}>
                    Keep it
                  </button>
                </>
              ) : (
                <button type="button" class="link" onClick={() => setRemoval({ asking: true })}>
                  Delete…
                </button>
              )}
              <ErrorNotice error={removal.error} />
            </div>
          ) : null}
        </Section>
        <Section title="Preview (not saved)">
          {built.problem ? (
            <p class="error" role="alert">
              {built.problem}
            </p>
          ) : null}
          <ErrorNotice error={preview.error} />
          {preview.data ? (
            <div data-testid="preview" aria-busy={preview.loading}>
              <p>
                <strong>{preview.data.totalProducts.toLocaleString()}</strong> products · would be{' '}
                <StatusBadge status={preview.data.status} />
              </p>
              <ul class="grid">
                {preview.data.products.map((m) => (
                  <li key={m.product_code}>
                    <Thumb src={m.image_url} alt={m.title || m.product_code} size={96} />
                    <span class="title">{m.title || m.product_code}</span>
                    <span class="meta">
                      {m.product_code} · {price(m.price, m.currency)}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          ) : preview.loading ? (
            <p class="loading">Evaluating the rules…</p>
          ) : null}
        </Section>
      </div>
    </>
  );
}
