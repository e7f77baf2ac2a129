// Vocabulary: how the store's categories, departments and colours were understood, and the overrides.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import type { StoreContext } from '../app';
import { ErrorNotice, Section, useLoad } from '../ui';

type Kind = 'categories' | 'departments' | 'colours';
interface Row {
  label: string;
  products: number;
  how: string;
  group?: string | null;
  concept?: string | null;
  audience?: string | null;
  family?: string | null;
}
interface Vocabulary {
  categories: Row[];
  departments: Row[];
  colours: Row[];
  overrides: Record<Kind, Record<string, string>>;
  groups: string[];
  audiences: string[];
  colour_families: string[];
}

const KINDS: Array<{
  kind: Kind;
  title: string;
  understood: (row: Row) => string;
  choices: (v: Vocabulary) => string[];
}> = [
  {
    kind: 'categories',
    title: 'Categories',
    understood: (r) => [r.group, r.concept].filter(Boolean).join(' · '),
    choices: (v) => v.groups,
  },
  { kind: 'departments', title: 'Departments', understood: (r) => r.audience ?? '', choices: (v) => v.audiences },
  { kind: 'colours', title: 'Colours', understood: (r) => r.family ?? '', choices: (v) => v.colour_families },
];

interface StoreLanguage {
  language: string;
  index_language: string;
  reindexing: boolean;
  supported: string[];
}

const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  fr: 'French',
  de: 'German',
  es: 'Spanish',
  it: 'Italian',
  nl: 'Dutch',
  pt: 'Portuguese',
  sv: 'Swedish',
  da: 'Danish',
};
const languageName = (code: string) => `${LANGUAGE_NAMES[code] ?? code} (${code})`;

/** The store's catalog language: shown, and changed (the text index is rebuilt in the background). */
function LanguageSection({ ctx }: { ctx: StoreContext }) {
  const path = `/admin/v1/stores/${encodeURIComponent(ctx.store.store_uuid)}/language`;
  const loaded = useLoad((signal) => call<StoreLanguage>(path, { admin: true, signal }), path);
  const [current, setCurrent] = useState<StoreLanguage | null>(null);
  const [chosen, setChosen] = useState('');
  const [save, setSave] = useState<{ error?: unknown; busy?: boolean }>({});
  useEffect(() => {
    if (loaded.data) {
      setCurrent(loaded.data);
      setChosen(loaded.data.language);
    }
  }, [loaded.data]);
  // While the index is rebuilt, look again now and then.
  useEffect(() => {
    if (!current?.reindexing) return;
    const timer = setTimeout(() => {
      void call<StoreLanguage>(path, { admin: true }).then(setCurrent, () => undefined);
    }, 2000);
    return () => clearTimeout(timer);
  }, [current, path]);
  const submit = async () => {
    setSave({ busy: true });
    try {
      setCurrent(await call<StoreLanguage>(path, { method: 'PUT', admin: true, json: { language: chosen } }));
      setSave({});
    } catch (error) {
      setSave({ error });
    }
  };
  return (
    <Section title="Catalog language">
      <ErrorNotice error={loaded.error} />
      {current ? (
        <>
          <p>
            <label>
              Language of the catalog{' '}
              <select data-testid="store-language" value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
                {current.supported.map((code) => (
                  <option key={code} value={code}>
                    {languageName(code)}
                  </option>
                ))}
              </select>
            </label>{' '}
            <button type="button" onClick={() => void submit()} disabled={save.busy || chosen === current.language}>
              Change language
            </button>
          </p>
          <p role="status" class="hint">
            {current.reindexing
              ? `Re-indexing in ${languageName(current.language)}: search answers in ${languageName(current.index_language)} until it is done.`
              : `Search, suggestions and this vocabulary read the catalog in ${languageName(current.language)}.`}
          </p>
          <ErrorNotice error={save.error} />
        </>
      ) : null}
    </Section>
  );
}

export function VocabularyScreen({ ctx }: { ctx: StoreContext }) {
  const path = `/admin/v1/stores/${encodeURIComponent(ctx.store.store_uuid)}/vocabulary`;
  const loaded = useLoad((signal) => call<Vocabulary>(path, { admin: true, signal }), path);
  const [vocabulary, setVocabulary] = useState<Vocabulary | null>(null);
  const [overrides, setOverrides] = useState<Vocabulary['overrides'] | null>(null);
  const [save, setSave] = useState<{ error?: unknown; done?: boolean; busy?: boolean }>({});
  useEffect(() => {
    if (loaded.data) {
      setVocabulary(loaded.data);
      setOverrides(structuredClone(loaded.data.overrides));
    }
  }, [loaded.data]);

  const setOverride = (kind: Kind, label: string, value: string) => {
    setSave({});
    setOverrides((current) => {
      const next = structuredClone(current!);
      if (value) next[kind][label] = value;
      else delete next[kind][label];
      return next;
    });
  };
  const submit = async () => {
    setSave({ busy: true });
    try {
      const report = await call<Vocabulary>(path, { method: 'PUT', admin: true, json: overrides });
      setVocabulary(report);
      setOverrides(structuredClone(report.overrides));
      setSave({ done: true });
    } catch (error) {
      setSave({ error });
    }
  };

  return (
    <>
      <h1>Vocabulary</h1>
      <p class="hint">
        How Vitrine read this store’s own words. An override wins over what was guessed; it applies to complete the look
        at once and to search and collections within a moment.
      </p>
      <LanguageSection ctx={ctx} />
      <ErrorNotice error={loaded.error} />
      {vocabulary && overrides ? (
        <>
          {KINDS.map(({ kind, title, understood, choices }) => (
            <Section key={kind} title={`${title} (${vocabulary[kind].length})`}>
              <table class="table" data-testid={`vocabulary-${kind}`}>
                <thead>
                  <tr>
                    <th scope="col">Label in the catalog</th>
                    <th scope="col">Products</th>
                    <th scope="col">Understood as</th>
                    <th scope="col">How</th>
                    <th scope="col">Override</th>
                  </tr>
                </thead>
                <tbody>
                  {vocabulary[kind].map((row) => (
                    <tr key={row.label} class={row.how === 'unplaced' ? 'unplaced' : undefined}>
                      <td>{row.label}</td>
                      <td class="num">{row.products.toLocaleString()}</td>
                      <td>{understood(row) || <em>not understood</em>}</td>
                      <td>{row.how}</td>
                      <td>
                        <select
                          aria-label={`Override for ${row.label}`}
                          value={overrides[kind][row.label] ?? ''}
                          onChange={(e) => setOverride(kind, row.label, e.currentTarget.value)}
                        >
                          <option value="">(as understood)</option>
                          {choices(vocabulary).map((choice) => (
                            <option key={choice} value={choice}>
                              {choice}
                            </option>
                          ))}
                        </select>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Section>
          ))}
          <p>
            <button type="button" onClick={() => void submit()} disabled={save.busy}>
              Save overrides
            </button>
          </p>
          {save.done ? <p role="status">Overrides saved.</p> : null}
          <ErrorNotice error={save.error} />
        </>
      ) : loaded.loading ? (
        <p class="loading">Reading the vocabulary…</p>
      ) : null}
    </>
  );
}
