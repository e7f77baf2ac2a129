// Photo suggestions: the review queue of suggested types, colours and audiences, grouped by the value
// offered, with the photos; accept a group above a confidence at once, or one by one from the keyboard.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api';
import type { StoreContext } from '../app';
import { ErrorNotice, Section, Thumb, useLoad } from '../ui';

type Field = 'type' | 'colour' | 'audience';
interface Suggestion {
  product_code: string;
  field: Field;
  value: string | null;
  confidence: number;
  current_value: string | null;
  new_label: boolean;
  image_url: string | null;
  reason?: string;
}
interface Accuracy {
  accepted: number;
  corrected: number;
  rejected: number;
  auto: number;
  reviewed: number;
  precision: number | null;
}
interface Settings {
  default_thresholds: Record<Field, number | null>;
  accuracy: Record<Field, Accuracy>;
}
interface ReviewAnswer {
  failed: number;
  error_info: Array<{ product_code: string; reason: string }>;
}

const FIELDS: Array<{ field: Field; label: string; fills: string }> = [
  { field: 'type', label: 'Type', fills: 'Category' },
  { field: 'colour', label: 'Colour', fills: 'Colour' },
  { field: 'audience', label: 'Audience', fills: 'Department' },
];
const PAGE = 500;
const percent = (x: number) => `${Math.round(x * 100)} %`;

export function TaggingScreen({ ctx }: { ctx: StoreContext }) {
  const store = ctx.store.store_uuid;
  const [field, setField] = useState<Field>('type');
  const [tick, setTick] = useState(0);
  const key = `${store}|${field}|${tick}`;
  // The list remembers its field: while another field's list loads, the previous one is not shown
  // (a key pressed on it would review the wrong field).
  const loaded = useLoad(
    async (signal) => ({
      field,
      items: await call<Suggestion[]>('/v1/products/suggestions', {
        query: { store_uuid: store, field, limit: PAGE },
        signal,
      }),
    }),
    key,
  );
  const settingsPath = `/admin/v1/stores/${encodeURIComponent(store)}/tagging`;
  const settings = useLoad(
    (signal) => (ctx.admin ? call<Settings>(settingsPath, { admin: true, signal }) : Promise.resolve(undefined)),
    `${key}|settings`,
  );
  const [threshold, setThreshold] = useState('');
  const [outcome, setOutcome] = useState<{ error?: unknown; said?: string; busy?: boolean }>({});
  const [focus, setFocus] = useState(0);
  const [correcting, setCorrecting] = useState<string | null>(null);
  const cards = useRef<HTMLElement[]>([]);

  const defaultThreshold = settings.data?.default_thresholds[field] ?? 0.8;
  useEffect(() => setThreshold(String(defaultThreshold)), [defaultThreshold, field]);

  const items = loaded.data?.field === field ? loaded.data.items : [];
  const readable = items.filter((s) => s.value !== null);
  const unreadable = items.filter((s) => s.value === null);
  const groups = new Map<string, Suggestion[]>();
  for (const s of readable) groups.set(s.value!, [...(groups.get(s.value!) ?? []), s]);
  const ordered = [...groups.values()].flat();

  const review = async (action: 'accept' | 'reject', list: Array<{ product_code: string; value?: string }>) => {
    if (list.length === 0) return;
    setOutcome({ busy: true });
    try {
      const answer = await call<ReviewAnswer>(`/v1/products/suggestions/${action}`, {
        method: 'POST',
        query: { store_uuid: store },
        json: list.map((item) => ({ ...item, field })),
      });
      const done = list.length - answer.failed;
      const failures = answer.error_info.map((f) => `${f.product_code}: ${f.reason}`).join('; ');
      setOutcome({
        said: `${done} ${action === 'accept' ? 'accepted' : 'rejected'}${answer.failed ? `, ${answer.failed} failed (${failures})` : ''}.`,
      });
      setCorrecting(null);
      setTick((n) => n + 1);
    } catch (error) {
      setOutcome({ error });
    }
  };

  const onKey = (event: KeyboardEvent, s: Suggestion, index: number) => {
    if (event.target instanceof HTMLInputElement) return;
    const move = (to: number) => {
      event.preventDefault();
      const next = Math.max(0, Math.min(ordered.length - 1, to));
      setFocus(next);
      cards.current[next]?.focus();
    };
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown' || event.key === 'j') move(index + 1);
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp' || event.key === 'k') move(index - 1);
    else if (event.key === 'a') void review('accept', [{ product_code: s.product_code }]);
    else if (event.key === 'r') void review('reject', [{ product_code: s.product_code }]);
    else if (event.key === 'c') {
      event.preventDefault();
      setCorrecting(s.product_code);
    }
  };

  const minimum = Number(threshold);
  return (
    <>
      <h1>Photo suggestions</h1>
      <p class="hint">
        What each product’s photo shows, in this store’s words, with how sure the tagger is (a 90 % is right about nine
        times in ten). Keys on a photo: <kbd>a</kbd> accept, <kbd>r</kbd> reject, <kbd>c</kbd> correct, <kbd>←</kbd>{' '}
        <kbd>→</kbd> move.
      </p>
      <div class="filters" role="group" aria-label="Field">
        {FIELDS.map((f) => (
          <button
            key={f.field}
            type="button"
            aria-pressed={f.field === field}
            onClick={() => {
              setField(f.field);
              setFocus(0);
              setOutcome({});
            }}
          >
            {f.label} (fills {f.fills})
          </button>
        ))}
        <label>
          Accept from confidence{' '}
          <input
            type="number"
            min="0"
            max="1"
            step="0.01"
            value={threshold}
            onInput={(e) => setThreshold(e.currentTarget.value)}
          />
        </label>
      </div>
      {outcome.said ? <p role="status">{outcome.said}</p> : null}
      <ErrorNotice error={outcome.error ?? loaded.error ?? settings.error} />
      {ctx.admin && settings.data ? (
        <p class="hint" data-testid="tagging-accuracy">
          Reviewed so far ({field}): {settings.data.accuracy[field].reviewed} — accepted as offered{' '}
          {settings.data.accuracy[field].accepted}, corrected {settings.data.accuracy[field].corrected}, rejected{' '}
          {settings.data.accuracy[field].rejected}; applied automatically {settings.data.accuracy[field].auto}
          {settings.data.accuracy[field].precision !== null
            ? `; precision ${percent(settings.data.accuracy[field].precision)}`
            : ''}
          .
        </p>
      ) : null}
      {loaded.loading && !loaded.data ? <p class="loading">Reading the suggestions…</p> : null}
      {loaded.data?.field === field && readable.length === 0 ? <p>Nothing to review for this field.</p> : null}
      {[...groups].map(([value, group]) => {
        const confident = group.filter((s) => s.confidence >= minimum);
        return (
          <Section
            key={value}
            title={`${value} (${group.length})`}
            actions={
              <button
                type="button"
                disabled={outcome.busy || confident.length === 0}
                onClick={() =>
                  void review(
                    'accept',
                    confident.map((s) => ({ product_code: s.product_code })),
                  )
                }
              >
                Accept {confident.length} from {Number.isFinite(minimum) ? percent(minimum) : '—'}
              </button>
            }
          >
            {group[0].new_label ? <p class="hint">A new label for this store.</p> : null}
            <ul class="suggestions">
              {group.map((s) => {
                const index = ordered.indexOf(s);
                return (
                  <li
                    key={s.product_code}
                    tabIndex={index === focus ? 0 : -1}
                    ref={(el) => {
                      if (el) cards.current[index] = el;
                    }}
                    aria-label={`${s.product_code}: ${value}, ${percent(s.confidence)}`}
                    data-testid="suggestion"
                    onFocus={() => setFocus(index)}
                    onKeyDown={(e) => onKey(e, s, index)}
                  >
                    <Thumb src={s.image_url} alt={s.product_code} size={96} />
                    <span class="code">{s.product_code}</span>
                    <span>{percent(s.confidence)}</span>
                    <span class="hint">now: {s.current_value ?? '—'}</span>
                    {correcting === s.product_code ? (
                      <form
                        onSubmit={(e) => {
                          e.preventDefault();
                          const input = e.currentTarget.elements.namedItem('value') as HTMLInputElement;
                          void review('accept', [{ product_code: s.product_code, value: input.value }]);
                        }}
                      >
                        <input name="value" aria-label={`Correct value for ${s.product_code}`} autoFocus />
                        <button type="submit">Save</button>
                      </form>
                    ) : null}
                  </li>
                );
              })}
            </ul>
          </Section>
        );
      })}
      {unreadable.length > 0 ? (
        <Section title={`Photos that gave no suggestion (${unreadable.length})`}>
          <ul>
            {unreadable.map((s) => (
              <li key={s.product_code}>
                {s.product_code}: {s.reason}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
    </>
  );
}
