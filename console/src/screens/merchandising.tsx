// Search merchandising (operator): the store's rules one at a time, in a form, beside a live preview of
// the query's results where a product is pinned by dragging it into position (or with ↑/↓) and hidden
// with one click. Saved through PUT /admin/v1/stores/{store}/search-rules (its 422 names the faulty field).
import { useState } from 'preact/hooks';
import { call } from '../api';
import type { StoreContext } from '../app';
import { ErrorNotice, Section, useLoad } from '../ui';
import { Preview } from './merch-preview';

export interface Rule {
  id: string;
  when: { query?: string; match?: 'exact' | 'contains'; collection_id?: string; always?: boolean };
  pin?: Array<{ product_code: string; position: number }>;
  hide?: string[];
  boost?: Array<{ filters: Record<string, unknown>; weight?: number }>;
  bury?: Array<{ filters: Record<string, unknown> }>;
  active_from?: string;
  active_until?: string;
}

/** A datetime-local value (the browser's local time) from an ISO instant, and back. */
const localOf = (iso?: string) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

const blankRule = (n: number): Rule => ({ id: `rule-${n}`, when: { query: '', match: 'contains' } });

export function MerchandisingScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  const path = `/admin/v1/stores/${encodeURIComponent(storeId)}/search-rules`;
  const saved = useLoad((signal) => call<{ rules: Rule[] }>(path, { admin: true, signal }), storeId);
  const [selected, setSelected] = useState<number | null>(null);
  const [draft, setDraft] = useState<Rule | null>(null);
  const [state, setState] = useState<{ error?: unknown; done?: string; busy?: boolean }>({});
  const rules = saved.data?.rules ?? [];

  const open = (index: number | null) => {
    setSelected(index);
    setDraft(index === null ? blankRule(rules.length + 1) : structuredClone(rules[index]));
    setState({});
  };
  const store = async (next: Rule[], done: string) => {
    setState({ busy: true });
    try {
      await call(path, { method: 'PUT', admin: true, json: { rules: next } });
      setState({ done });
      saved.reload();
      return true;
    } catch (error) {
      setState({ error });
      return false;
    }
  };
  const save = async () => {
    if (!draft) return;
    const next = selected === null ? [...rules, draft] : rules.map((r, i) => (i === selected ? draft : r));
    if ((await store(next, `Rule ${draft.id} saved: listings apply it now.`)) && selected === null)
      setSelected(rules.length);
  };
  const remove = async () => {
    if (selected === null) return;
    if (
      await store(
        rules.filter((_, i) => i !== selected),
        'Rule deleted.',
      )
    ) {
      setSelected(null);
      setDraft(null);
    }
  };

  return (
    <>
      <h1>Search merchandising</h1>
      <p class="hint">
        Rules apply in order to listing pages (POST /v1/search/query): pins hold positions on page 1, hidden products
        are never shown, boosts raise relevance, buried products come last. The JSON of every rule is on the Search
        playground.
      </p>
      <Section
        title="Rules"
        actions={
          <button type="button" onClick={() => open(null)}>
            New rule
          </button>
        }
      >
        <ErrorNotice error={saved.error} />
        {rules.length === 0 && saved.data ? <p>No rule yet.</p> : null}
        <ul class="rule-list" data-testid="rules">
          {rules.map((rule, i) => (
            <li key={rule.id}>
              <button type="button" class="link" aria-current={selected === i} onClick={() => open(i)}>
                {rule.id}
              </button>{' '}
              <span class="hint">
                {rule.when.always
                  ? 'always'
                  : rule.when.collection_id
                    ? `browsing ${rule.when.collection_id}`
                    : `“${rule.when.query ?? ''}” (${rule.when.match ?? 'contains'})`}
                {' · '}
                {rule.pin?.length ?? 0} pinned, {rule.hide?.length ?? 0} hidden, {rule.boost?.length ?? 0} boosts,{' '}
                {rule.bury?.length ?? 0} buried
                {rule.active_from || rule.active_until
                  ? ` · ${localOf(rule.active_from) || '…'} → ${localOf(rule.active_until) || '…'}`
                  : ''}
              </span>
            </li>
          ))}
        </ul>
      </Section>
      {draft ? (
        <RuleEditor
          storeId={storeId}
          rule={draft}
          onChange={setDraft}
          onSave={() => void save()}
          onDelete={selected === null ? null : () => void remove()}
          busy={!!state.busy}
        />
      ) : null}
      {state.done ? <p role="status">{state.done}</p> : null}
      <ErrorNotice error={state.error} />
    </>
  );
}

function RuleEditor({
  storeId,
  rule,
  onChange,
  onSave,
  onDelete,
  busy,
}: {
  storeId: string;
  rule: Rule;
  onChange: (rule: Rule) => void;
  onSave: () => void;
  onDelete: (() => void) | null;
  busy: boolean;
}) {
  const mode = rule.when.always ? 'always' : rule.when.collection_id !== undefined ? 'collection' : 'query';
  const [filterText, setFilterText] = useState<{ boost: string; bury: string; weight: string }>({
    boost: '',
    bury: '',
    weight: '1',
  });
  const [filterError, setFilterError] = useState<string | null>(null);
  const addFilter = (kind: 'boost' | 'bury') => {
    try {
      const filters = JSON.parse(filterText[kind]) as Record<string, unknown>;
      if (!filters || typeof filters !== 'object' || Array.isArray(filters)) throw new Error('an object');
      onChange(
        kind === 'boost'
          ? { ...rule, boost: [...(rule.boost ?? []), { filters, weight: Number(filterText.weight) || 1 }] }
          : { ...rule, bury: [...(rule.bury ?? []), { filters }] },
      );
      setFilterText({ ...filterText, [kind]: '' });
      setFilterError(null);
    } catch {
      setFilterError(`The ${kind} filter must be a JSON object, e.g. {"Brand": "Nike"}.`);
    }
  };

  return (
    <Section title={`Rule ${rule.id}`}>
      <div class="merch">
        <form
          class="stack"
          aria-label="Rule"
          onSubmit={(e) => {
            e.preventDefault();
            onSave();
          }}
        >
          <label for="rule-id">Rule id</label>
          <input id="rule-id" value={rule.id} onInput={(e) => onChange({ ...rule, id: e.currentTarget.value })} />
          <label for="rule-when">Applies</label>
          <select
            id="rule-when"
            value={mode}
            onChange={(e) => {
              const next = e.currentTarget.value;
              onChange({
                ...rule,
                when:
                  next === 'always'
                    ? { always: true }
                    : next === 'collection'
                      ? { collection_id: '' }
                      : { query: '', match: 'contains' },
              });
            }}
          >
            <option value="query">to a search query</option>
            <option value="collection">while browsing a collection</option>
            <option value="always">always</option>
          </select>
          {mode === 'query' ? (
            <>
              <label for="rule-query">Query</label>
              <input
                id="rule-query"
                value={rule.when.query ?? ''}
                onInput={(e) => onChange({ ...rule, when: { ...rule.when, query: e.currentTarget.value } })}
              />
              <label for="rule-match">Match</label>
              <select
                id="rule-match"
                value={rule.when.match ?? 'contains'}
                onChange={(e) =>
                  onChange({ ...rule, when: { ...rule.when, match: e.currentTarget.value as 'exact' | 'contains' } })
                }
              >
                <option value="contains">the query contains these words</option>
                <option value="exact">exactly these words</option>
              </select>
            </>
          ) : mode === 'collection' ? (
            <>
              <label for="rule-collection">Collection id</label>
              <input
                id="rule-collection"
                value={rule.when.collection_id ?? ''}
                onInput={(e) => onChange({ ...rule, when: { collection_id: e.currentTarget.value } })}
              />
            </>
          ) : null}
          <label for="rule-from">Active from (empty: now)</label>
          <input
            id="rule-from"
            type="datetime-local"
            value={localOf(rule.active_from)}
            onInput={(e) => onChange({ ...rule, active_from: isoOf(e.currentTarget.value) })}
          />
          <label for="rule-until">Active until (empty: no end)</label>
          <input
            id="rule-until"
            type="datetime-local"
            value={localOf(rule.active_until)}
            onInput={(e) => onChange({ ...rule, active_until: isoOf(e.currentTarget.value) })}
          />
          <p class="hint">
            Pinned: {(rule.pin ?? []).map((p) => `${p.position}. ${p.product_code}`).join(', ') || 'none'}
          </p>
          {(rule.pin ?? []).map((p) => (
            <button
              type="button"
              class="link"
              key={p.product_code}
              onClick={() => onChange({ ...rule, pin: (rule.pin ?? []).filter((q) => q !== p) })}
            >
              Unpin {p.product_code}
            </button>
          ))}
          <p class="hint">Hidden: {(rule.hide ?? []).join(', ') || 'none'}</p>
          {(rule.hide ?? []).map((code) => (
            <button
              type="button"
              class="link"
              key={code}
              onClick={() => onChange({ ...rule, hide: (rule.hide ?? []).filter((c) => c !== code) })}
            >
              Show {code} again
            </button>
          ))}
          <p class="hint">
            Boosts:{' '}
            {(rule.boost ?? []).map((b) => `${JSON.stringify(b.filters)} ×${1 + (b.weight ?? 1)}`).join(', ') || 'none'}{' '}
            · Buried: {(rule.bury ?? []).map((b) => JSON.stringify(b.filters)).join(', ') || 'none'}
          </p>
          <label for="rule-boost">Boost the products matching (filters as JSON)</label>
          <input
            id="rule-boost"
            value={filterText.boost}
            placeholder='{"Brand": "Nike"}'
            onInput={(e) => setFilterText({ ...filterText, boost: e.currentTarget.value })}
          />
          <label for="rule-weight">by a weight of</label>
          <input
            id="rule-weight"
            type="number"
            min={0}
            max={100}
            step="0.5"
            value={filterText.weight}
            onInput={(e) => setFilterText({ ...filterText, weight: e.currentTarget.value })}
          />
          <button type="button" onClick={() => addFilter('boost')}>
            Add boost
          </button>
          <label for="rule-bury">Bury the products matching (filters as JSON)</label>
          <input
            id="rule-bury"
            value={filterText.bury}
            placeholder='{"Stock": 0}'
            onInput={(e) => setFilterText({ ...filterText, bury: e.currentTarget.value })}
          />
          <button type="button" onClick={() => addFilter('bury')}>
            Add bury
          </button>
          {filterError ? <p class="field-error">{filterError}</p> : null}
          <div class="editor-actions">
            <button type="submit" disabled={busy}>
              Save rule
            </button>
            {onDelete ? (
              <button type="button" class="link danger" onClick={onDelete}>
                Delete rule
              </button>
            ) : null}
          </div>
        </form>
        <Preview storeId={storeId} rule={rule} onChange={onChange} />
      </div>
    </Section>
  );
}
