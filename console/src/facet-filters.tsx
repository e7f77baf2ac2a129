// Attribute filters for the product screens: one select per catalog facet, its values counted over the
// products the other filters select (GET /v1/products `facets`, any status), disjunctive like a
// storefront's facets. The choice travels in the URL as the API's `filters` JSON.
import { useEffect, useState } from 'preact/hooks';
import { call } from './api';
import { useLoad } from './ui';

/** The well-known attributes a merchandiser filters by (the catalog's facets). */
const FACETS = ['Category', 'Sub Category', 'Department', 'Colour', 'Brand', 'Season', 'Usage'];

type FacetCounts = Record<string, Array<{ value: string; count: number }>>;

/** The URL's `filters` parameter read back (attribute → value); anything else is ignored. */
export function chosenFacets(raw: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
  } catch {
    return {};
  }
}

export const filtersParam = (chosen: Record<string, string>) =>
  Object.keys(chosen).length === 0 ? '' : JSON.stringify(chosen);

/** What a page's filters select, whatever its offset: the counts' key. */
export const selectionKey = (storeId: string, base: { status: string; reason: string; q: string }, filters: string) =>
  `${storeId}|${base.status}|${base.reason}|${base.q}|${filters}`;

export function FacetFilters({
  storeId,
  base,
  filters,
  onChange,
  recount = false,
  rows,
  onTotal,
}: {
  storeId: string;
  /** The other filters (status, reason, text): the facets count what they select. */
  base: { status: string; reason: string; q: string };
  /** The `filters` parameter as in the URL. */
  filters: string;
  onChange: (filters: string) => void;
  /** Counted again each time a page arrives (the bulk screen: a bulk action changes values). */
  recount?: boolean;
  /** The page of products the screen shows (its data): counts start once the page of the current filter has arrived. */
  rows: unknown;
  /** Every product the filters select, counted with the facets (keyed as the filters were). */
  onTotal?: (counted: { key: string; total: number }) => void;
}) {
  const chosen = chosenFacets(filters);
  const chosenCount = Object.keys(chosen).length;
  // Counted once the page's own read is done (the rows matter first): while open (it is when a value
  // is chosen), and ahead of opening when only a status narrows the products, so the panel opens with
  // its counts. Those the server answers from its attribute index, which that first count builds (a
  // few seconds for a store of 1M products); with a text or a reason the count reads the products.
  const [opened, setOpened] = useState(false);
  const open = opened || chosenCount > 0;
  const ahead = base.q === '' && base.reason === '';
  const key = selectionKey(storeId, base, filters);
  const [settled, setSettled] = useState('');

  const counts = useLoad(
    (signal) =>
      settled === ''
        ? Promise.resolve<{ facets?: FacetCounts; total?: number }>({})
        : call<{ facets?: FacetCounts; total?: number }>('/v1/products', {
            query: {
              store_uuid: storeId,
              ...base,
              filters,
              facets: FACETS.join(','),
              facet_limit: 200,
              limit: 1,
            },
            signal,
          }),
    settled,
  );
  useEffect(() => {
    if (!counts.loading && counts.data?.total !== undefined && settled !== '')
      onTotal?.({ key: settled, total: counts.data.total });
  }, [counts.data]);
  useEffect(() => {
    if (!(open || ahead) || rows === undefined) return;
    if (settled !== key) setSettled(key);
    else if (recount && open) counts.reload();
  }, [rows, open]);
  const facets = counts.data?.facets ?? {};
  const choose = (facet: string, value: string) => {
    const next = { ...chosen };
    if (value === '') delete next[facet];
    else next[facet] = value;
    onChange(filtersParam(next));
  };
  return (
    <details
      class="facet-filters"
      open={open}
      onToggle={(e) => setOpened(e.currentTarget.open)}
      data-counts={counts.loading ? 'loading' : counts.data?.facets ? 'ready' : 'none'}
    >
      <summary>Filter by attribute{chosenCount > 0 ? ` (${chosenCount} chosen)` : ''}</summary>
      {/* Drawn only while open: the counts, read ahead, hold up to 1,400 options, and drawing them on
          every view of the screen held the next view's rows back. */}
      {open ? (
        <fieldset class="facets" data-testid="facet-filters" aria-busy={counts.loading}>
          <legend>Attributes</legend>
          {FACETS.filter((facet) => (facets[facet]?.length ?? 0) > 0 || chosen[facet] !== undefined).map((facet) => {
            const values = facets[facet] ?? [];
            const current = chosen[facet] ?? '';
            // The value as the catalog spells it most (a URL may hold another case).
            const listed = values.find((v) => v.value.toLowerCase() === current.toLowerCase())?.value;
            return (
              <label key={facet}>
                <span>{facet}</span>
                <select value={listed ?? current} onChange={(e) => choose(facet, e.currentTarget.value)}>
                  <option value="">any {facet.toLowerCase()}</option>
                  {current !== '' && listed === undefined ? <option value={current}>{current}</option> : null}
                  {values.map((v) => (
                    <option key={v.value} value={v.value}>
                      {v.value} ({v.count.toLocaleString()})
                    </option>
                  ))}
                </select>
              </label>
            );
          })}
          {Object.keys(chosen).length > 0 ? (
            <button type="button" class="link" onClick={() => onChange('')}>
              Clear attributes
            </button>
          ) : null}
        </fieldset>
      ) : null}
    </details>
  );
}
