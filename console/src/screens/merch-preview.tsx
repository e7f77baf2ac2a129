// The merchandising screen's live preview: the results shoppers get now with the draft's pins and
// hides laid over them; a product dragged onto a position (or moved with ↑/↓) is pinned there.
import { useEffect, useState } from 'preact/hooks';
import { call, firstImage, productsByCode, type Schemas } from '../api';
import { ErrorNotice, text, Thumb, useDebounced, useLoad } from '../ui';
import type { Rule } from './merchandising';

type Hit = Schemas['SearchHit'];
const PREVIEW = 24;

/** The preview with the draft's pins and hides laid over the saved results (boosts and buries act once saved). */
export function withDraft(hits: Hit[], rule: Rule): Hit[] {
  const hidden = new Set(rule.hide ?? []);
  const pins = [...(rule.pin ?? [])].sort((a, b) => a.position - b.position);
  const pinned = new Set(pins.map((p) => p.product_code));
  const byCode = new Map(hits.map((h) => [h.product_code, h]));
  const rest = hits.filter((h) => !hidden.has(h.product_code) && !pinned.has(h.product_code));
  for (const pin of pins) {
    const hit = byCode.get(pin.product_code) ?? ({ product_code: pin.product_code } as Hit);
    if (!hidden.has(pin.product_code)) rest.splice(Math.min(pin.position - 1, rest.length), 0, hit);
  }
  return rest;
}

/** The draft with `code` pinned at `position` (1-based); other pins keep theirs. */
function pinAt(rule: Rule, code: string, position: number): Rule {
  const pins = (rule.pin ?? []).filter((p) => p.product_code !== code && p.position !== position);
  return { ...rule, pin: [...pins, { product_code: code, position }].sort((a, b) => a.position - b.position) };
}

export function Preview({ storeId, rule, onChange }: { storeId: string; rule: Rule; onChange: (rule: Rule) => void }) {
  const query = useDebounced(
    rule.when.always || rule.when.collection_id !== undefined ? '' : (rule.when.query ?? ''),
    250,
  );
  const results = useLoad(
    (signal) =>
      call<Schemas['SearchListing']>('/v1/search/query', {
        method: 'POST',
        query: { store_uuid: storeId },
        json: { ...(query.trim() ? { query: query.trim() } : {}), limit: PREVIEW },
        signal,
      }),
    `${storeId}|${query}`,
  );
  const [dragged, setDragged] = useState<string | null>(null);
  // Pinned products the query does not find (a pin shows them anyway): their card from the catalog.
  const found = new Set((results.data?.hits ?? []).map((h) => h.product_code));
  const missing = (rule.pin ?? []).map((p) => p.product_code).filter((code) => !found.has(code));
  const extra = useLoad(
    async (signal) =>
      (await productsByCode(storeId, missing, signal)).map(
        (p) => ({ product_code: p.product_code, title: text(p['Product Name']), image_url: firstImage(p) }) as Hit,
      ),
    `${storeId}|${missing.join(',')}`,
  );
  const [hits, setHits] = useState<Hit[]>([]);
  useEffect(
    () => setHits(withDraft([...(results.data?.hits ?? []), ...(extra.data ?? [])], rule)),
    [results.data, extra.data, rule],
  );

  return (
    <div class="preview" aria-label="Live preview">
      <p class="hint">
        Live preview: the results shoppers get now, with this form's pins and hides laid over them (boosts and buries
        act once saved). Drag a product onto a position to pin it there.
        {results.data?.applied_rules.length ? ` Rules acting now: ${results.data.applied_rules.join(', ')}.` : ''}
      </p>
      <ErrorNotice error={results.error} />
      <ol class="grid results" data-testid="merch-preview">
        {hits.map((hit, i) => {
          const pinned = (rule.pin ?? []).some((p) => p.product_code === hit.product_code && p.position === i + 1);
          return (
            <li
              key={hit.product_code}
              draggable
              data-code={hit.product_code}
              class={pinned ? 'pinned' : ''}
              onDragStart={(e) => {
                setDragged(hit.product_code);
                e.dataTransfer?.setData('text/plain', hit.product_code);
              }}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                // The drag's own data first: the state set at dragstart may not have rendered yet.
                const code = e.dataTransfer?.getData('text/plain') || dragged;
                if (code) onChange(pinAt(rule, code, i + 1));
                setDragged(null);
              }}
            >
              <Thumb src={hit.image_url ?? null} alt={hit.title ?? hit.product_code} size={96} />
              <span class="title">
                {i + 1}. {hit.title ?? hit.product_code}
                {pinned ? ' · pinned' : ''}
              </span>
              <span class="rank-actions">
                <button
                  type="button"
                  aria-label={`Pin ${hit.product_code} one place up`}
                  disabled={i === 0}
                  onClick={() => onChange(pinAt(rule, hit.product_code, i))}
                >
                  ↑
                </button>
                <button
                  type="button"
                  aria-label={`Pin ${hit.product_code} one place down`}
                  disabled={i === hits.length - 1}
                  onClick={() => onChange(pinAt(rule, hit.product_code, i + 2))}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="link"
                  onClick={() => onChange({ ...rule, hide: [...new Set([...(rule.hide ?? []), hit.product_code])] })}
                >
                  Hide
                </button>
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
