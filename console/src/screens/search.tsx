// The search playground: search and browse (facets, sort, grouping, rules) and search by photo as a shopper
// gets them, and the store's merchandising rules and synonyms.
import { useEffect, useState } from 'preact/hooks';
import { call, type Schemas } from '../api';
import type { StoreContext } from '../app';
import { href } from '../router';
import { ErrorNotice, Pager, price, Section, Thumb, useDebounced, useLoad } from '../ui';

interface Hit {
  product_code: string;
  title?: string;
  score?: number;
  image_url?: string;
  price?: number | null;
  currency?: string;
  variant_count?: number;
  sizes?: string[];
}

function Results({ hits, storeId, images }: { hits: Hit[]; storeId: string; images?: Map<string, string | null> }) {
  if (hits.length === 0) return <p>No results.</p>;
  return (
    <ol class="grid results" data-testid="results">
      {hits.map((hit) => (
        <li key={hit.product_code}>
          <a href={href(['s', storeId, 'products', hit.product_code])}>
            <Thumb
              src={hit.image_url ?? images?.get(hit.product_code) ?? null}
              alt={hit.title ?? hit.product_code}
              size={120}
            />
            <span class="title">{hit.title ?? hit.product_code}</span>
          </a>
          <span class="meta">
            {hit.product_code}
            {hit.score !== undefined ? ` · score ${hit.score.toFixed(3)}` : ''}
            {hit.price !== undefined && hit.price !== null ? ` · ${price(hit.price, hit.currency)}` : ''}
            {hit.variant_count && hit.variant_count > 1 ? ` · ${hit.variant_count} variants` : ''}
            {hit.sizes && hit.sizes.length > 0 ? ` · ${hit.sizes.join(' ')}` : ''}
          </span>
        </li>
      ))}
    </ol>
  );
}

type Listing = Schemas['SearchListing'];
const SORTS = ['relevance', 'newest', 'price_asc', 'price_desc', 'name_asc'] as const;
type Grouping = 'colour' | 'parent' | 'false';
const FACETS = ['Category', 'Colour', 'Department', 'Size', 'Brand'];
const PAGE = 24;

/**
 * A storefront listing page as shoppers get it (POST /v1/search/query): words or none (browse),
 * facets whose values filter when ticked (disjunctive counts), sort, grouping, the rules that acted.
 */
function TextSearch({ storeId }: { storeId: string }) {
  const [text, setText] = useState('');
  const [sort, setSort] = useState('');
  const [group, setGroup] = useState<Grouping>('colour');
  const [chosen, setChosen] = useState<Record<string, string[]>>({});
  const [offset, setOffset] = useState(0);
  const query = useDebounced(text.trim(), 250);
  const key = JSON.stringify([storeId, query, sort, group, chosen, offset]);
  const results = useLoad(
    (signal) =>
      call<Listing>('/v1/search/query', {
        method: 'POST',
        query: { store_uuid: storeId },
        json: {
          query,
          filters: Object.keys(chosen).length > 0 ? chosen : undefined,
          facets: FACETS,
          ...(sort ? { sort } : {}),
          group_variants: group,
          offset,
          limit: PAGE,
        },
        signal,
      }),
    key,
  );
  const toggle = (facet: string, value: string) => {
    const values = chosen[facet] ?? [];
    const next = values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
    const { [facet]: _dropped, ...rest } = chosen;
    setChosen(next.length > 0 ? { ...rest, [facet]: next } : rest);
    setOffset(0);
  };
  const data = results.data;
  return (
    <Section title="Search and browse">
      <form role="search" aria-label="Text search" onSubmit={(e) => e.preventDefault()}>
        <label for="q">Search as a shopper (empty: browse the catalog)</label>
        <input
          id="q"
          type="search"
          value={text}
          onInput={(e) => {
            setText(e.currentTarget.value);
            setOffset(0);
          }}
          placeholder="e.g. red summer dress"
        />
        <label for="sort">Sort</label>
        <select id="sort" value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
          <option value="">default (relevance with words, newest without)</option>
          {SORTS.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label for="group">One card per</label>
        <select id="group" value={group} onChange={(e) => setGroup(e.currentTarget.value as Grouping)}>
          <option value="colour">family and colour</option>
          <option value="parent">family</option>
          <option value="false">SKU</option>
        </select>
      </form>
      <ErrorNotice error={results.error} />
      {data ? (
        <div class="listing">
          <aside class="facets" aria-label="Facets">
            {FACETS.filter((f) => (data.facets[f] ?? []).length > 0).map((facet) => (
              <fieldset key={facet}>
                <legend>{facet}</legend>
                {data.facets[facet].slice(0, 12).map(({ value, count }) => (
                  <label key={value} class="facet">
                    <input
                      type="checkbox"
                      checked={(chosen[facet] ?? []).includes(value)}
                      onChange={() => toggle(facet, value)}
                    />
                    {value} ({count})
                  </label>
                ))}
              </fieldset>
            ))}
          </aside>
          <div>
            <p role="status" class="hint">
              {data.total.toLocaleString()} results
              {data.price_range ? ` · prices ${data.price_range.min}–${data.price_range.max}` : ''}
              {data.corrected_query ? ` · showing results for “${data.corrected_query}”` : ''}
              {data.relaxed ? ' · no product had every word: fewer words searched' : ''}
              {data.applied_rules.length > 0 ? ` · rules: ${data.applied_rules.join(', ')}` : ''}
            </p>
            <Results hits={data.hits} storeId={storeId} />
            <Pager offset={offset} limit={PAGE} total={data.total} onPage={setOffset} />
          </div>
        </div>
      ) : null}
    </Section>
  );
}

/** The store's merchandising rules as JSON, saved through the operator API (its 422 names the faulty path). */
function Rules({ storeId }: { storeId: string }) {
  const path = `/admin/v1/stores/${encodeURIComponent(storeId)}/search-rules`;
  const loaded = useLoad((signal) => call<{ rules: unknown[] }>(path, { admin: true, signal }), storeId);
  const [text, setText] = useState('');
  const [save, setSave] = useState<{ error?: unknown; done?: boolean }>({});
  useEffect(() => {
    if (loaded.data) setText(JSON.stringify(loaded.data.rules, null, 2));
  }, [loaded.data]);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await call(path, { method: 'PUT', admin: true, json: { rules: JSON.parse(text || '[]') as unknown } });
      setSave({ done: true });
    } catch (error) {
      setSave({ error: error instanceof SyntaxError ? new Error(`not JSON: ${error.message}`) : error });
    }
  };
  return (
    <Section title="Merchandising rules">
      <ErrorNotice error={loaded.error} />
      <form class="stack" onSubmit={(e) => void submit(e)} aria-label="Merchandising rules">
        <label for="rules">
          Rules as JSON:{' '}
          {
            '[{"id": "…", "when": {"query": "summer dress", "match": "contains"}, "pin": [{"product_code": "…", "position": 1}], "hide": [], "boost": [{"filters": {"Brand": "…"}, "weight": 1}], "bury": [{"filters": {…}}]}]'
          }
        </label>
        <textarea
          id="rules"
          rows={10}
          value={text}
          onInput={(e) => {
            setSave({});
            setText(e.currentTarget.value);
          }}
        />
        <button type="submit">Save rules</button>
        {save.done ? <p role="status">Saved: listings apply them now.</p> : null}
        <ErrorNotice error={save.error} />
      </form>
    </Section>
  );
}

function PhotoSearch({ storeId }: { storeId: string }) {
  const [file, setFile] = useState<File | null>(null);
  const [filters, setFilters] = useState('');
  const [preview, setPreview] = useState<string | null>(null);
  const [state, setState] = useState<{ hits?: Hit[]; error?: unknown; busy?: boolean }>({});
  useEffect(() => {
    if (!file) return setPreview(null);
    const objectUrl = URL.createObjectURL(file);
    setPreview(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);

  const search = async (chosen: File | null) => {
    if (!chosen) return;
    setState({ busy: true });
    const form = new FormData();
    form.set('image', chosen, chosen.name);
    try {
      const hits = await call<Hit[]>('/v1/visual-search', {
        method: 'POST',
        query: { store_uuid: storeId, limit: 24, filters: filters.trim() || undefined },
        form,
      });
      setState({ hits });
    } catch (error) {
      setState({ error });
    }
  };
  const choose = (chosen: File | null) => {
    setFile(chosen);
    void search(chosen);
  };

  return (
    <Section title="Search by photo">
      <div
        class="dropzone"
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          choose(e.dataTransfer?.files?.[0] ?? null);
        }}
      >
        <label for="photo">Drop a photo here or choose one (JPEG, PNG, WebP, GIF, AVIF; up to 10 MB)</label>
        <input id="photo" type="file" accept="image/*" onChange={(e) => choose(e.currentTarget.files?.[0] ?? null)} />
        {preview ? <img class="photo-preview" src={preview} alt="The photo searched for" /> : null}
      </div>
      <label for="photo-filters">Filters (JSON, optional), e.g. {'{"Category": "Dresses"}'}</label>
      <input
        id="photo-filters"
        value={filters}
        onInput={(e) => setFilters(e.currentTarget.value)}
        onChange={() => void search(file)}
      />
      {state.busy ? <p class="loading">Looking at the photo…</p> : null}
      <ErrorNotice error={state.error} />
      {state.hits ? <Results hits={state.hits} storeId={storeId} /> : null}
    </Section>
  );
}

function Synonyms({ storeId }: { storeId: string }) {
  const loaded = useLoad(
    (signal) =>
      call<{ synonyms: string[][] }>(`/admin/v1/stores/${encodeURIComponent(storeId)}/synonyms`, {
        admin: true,
        signal,
      }),
    storeId,
  );
  const [text, setText] = useState('');
  const [save, setSave] = useState<{ error?: unknown; done?: boolean }>({});
  useEffect(() => {
    if (loaded.data) setText(loaded.data.synonyms.map((group) => group.join(', ')).join('\n'));
  }, [loaded.data]);
  const submit = async (event: Event) => {
    event.preventDefault();
    const synonyms = text
      .split('\n')
      .map((line) =>
        line
          .split(',')
          .map((word) => word.trim())
          .filter((word) => word !== ''),
      )
      .filter((group) => group.length > 0);
    try {
      await call(`/admin/v1/stores/${encodeURIComponent(storeId)}/synonyms`, {
        method: 'PUT',
        admin: true,
        json: { synonyms },
      });
      setSave({ done: true });
    } catch (error) {
      setSave({ error });
    }
  };
  return (
    <Section title="Synonyms">
      <ErrorNotice error={loaded.error} />
      <form class="stack" onSubmit={(e) => void submit(e)} aria-label="Synonyms">
        <label for="synonyms">
          One group of words that mean the same per line, comma-separated (e.g. tee, t-shirt)
        </label>
        <textarea
          id="synonyms"
          rows={6}
          value={text}
          onInput={(e) => {
            setSave({});
            setText(e.currentTarget.value);
          }}
        />
        <button type="submit">Save synonyms</button>
        {save.done ? <p role="status">Saved: searches use them now.</p> : null}
        <ErrorNotice error={save.error} />
      </form>
    </Section>
  );
}

export function SearchScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  return (
    <>
      <h1>Search playground</h1>
      <p class="hint">Results are what shoppers get: only new and active products.</p>
      <TextSearch storeId={storeId} />
      <PhotoSearch storeId={storeId} />
      {ctx.admin ? <Rules storeId={storeId} /> : null}
      {ctx.admin ? <Synonyms storeId={storeId} /> : null}
    </>
  );
}
