// The search playground: text search and search by photo as a shopper gets them, and the store's synonyms.
import { useEffect, useState } from 'preact/hooks';
import { call, firstImage, productsByCode } from '../api';
import type { StoreContext } from '../app';
import { href } from '../router';
import { ErrorNotice, Section, Thumb, useDebounced, useLoad } from '../ui';

interface Hit {
  product_code: string;
  title?: string;
  score: number;
  image_url?: string;
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
            {hit.product_code} · score {hit.score.toFixed(3)}
          </span>
        </li>
      ))}
    </ol>
  );
}

function TextSearch({ storeId }: { storeId: string }) {
  const [text, setText] = useState('');
  const query = useDebounced(text.trim(), 250);
  const results = useLoad(async (signal) => {
    if (!query) return null;
    const hits = await call<Hit[]>('/v1/search', { query: { store_uuid: storeId, query, limit: 24 }, signal });
    // Hits carry code, title and score; the thumbnails come from the products themselves.
    const products = await productsByCode(
      storeId,
      hits.map((h) => h.product_code),
      signal,
    );
    return { hits, images: new Map(products.map((p) => [p.product_code, firstImage(p)])) };
  }, `${storeId}|${query}`);
  return (
    <Section title="Text search">
      <form role="search" aria-label="Text search" onSubmit={(e) => e.preventDefault()}>
        <label for="q">Search as a shopper</label>
        <input
          id="q"
          type="search"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          placeholder="e.g. red summer dress"
        />
      </form>
      <ErrorNotice error={results.error} />
      {results.data ? <Results hits={results.data.hits} images={results.data.images} storeId={storeId} /> : null}
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
      {ctx.admin ? <Synonyms storeId={storeId} /> : null}
    </>
  );
}
