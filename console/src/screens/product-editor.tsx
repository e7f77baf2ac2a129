// Edit a product's attributes in place, or create a product: through the public API's own writes
// (PUT/POST /v1/products), its validation shown next to the field, and `if_updated_at` as the
// precondition so that a change made meanwhile elsewhere is shown, never silently overwritten.
import { useEffect, useState } from 'preact/hooks';
import { call, type Product } from '../api';
import { ErrorNotice } from '../ui';

/** Fields the API sets itself: shown elsewhere on the product screen, never edited. */
export const SYSTEM_FIELDS = new Set(['product_code', 'status', 'problems', 'created_at', 'updated_at']);

/** What the product writes answer (InsertDataResponse / UpdateDataResponse). */
export interface WriteAnswer {
  inserted?: number;
  updated: number;
  failed: number;
  error_info: Array<{ index: number; product_code: string; reason: string; details: string }>;
  warnings?: Array<{ product_code: string; reasons: string[] }>;
}

/** A refusal of one item, placed next to the field its words name (else above the form). */
export interface ItemRefusal {
  reason: string;
  details: string;
  field: string | null;
}

/** The field a refusal is about: the one its details start with, or the first listed as missing. */
export function refusalOf(answer: WriteAnswer, fields: string[]): ItemRefusal | null {
  const info = answer.error_info[0];
  if (!info) return null;
  const byLength = [...fields].sort((a, b) => b.length - a.length);
  const named =
    byLength.find((f) => info.details.startsWith(`${f} `)) ??
    (info.reason === 'missing_required_field' ? byLength.find((f) => info.details.includes(f)) : undefined) ??
    null;
  return { reason: info.reason, details: info.details, field: named };
}

interface Row {
  name: string;
  value: string;
}

/** The editable fields as the form shows them: strings as they are, anything else as JSON. */
const rowsOf = (product: Product) =>
  Object.entries(product)
    .filter(([key]) => !SYSTEM_FIELDS.has(key))
    .map(([name, value]) => ({ name, value: typeof value === 'string' ? value : JSON.stringify(value) }));

export function AttributeEditor({
  storeId,
  product,
  onSaved,
}: {
  storeId: string;
  product: Product;
  onSaved: () => void;
}) {
  const [rows, setRows] = useState<Row[]>(() => rowsOf(product));
  const [added, setAdded] = useState<Row>({ name: '', value: '' });
  const [state, setState] = useState<{
    busy?: boolean;
    refusal?: ItemRefusal;
    conflict?: string;
    error?: unknown;
    saved?: string[];
  }>({});
  // A product read again (after a save, or after a conflict the merchandiser chose to see) resets the
  // form; between a save and that read the form is busy, so nothing typed meanwhile is lost to it.
  useEffect(() => {
    setRows(rowsOf(product));
    setState((s) => ({ saved: s.saved }));
  }, [product]);

  const original = new Map(rowsOf(product).map((r) => [r.name, r.value]));
  const edited = new Map(rows.map((r) => [r.name, r.value]));
  const changes: Record<string, string | null> = {};
  for (const [name, value] of edited) if (original.get(name) !== value) changes[name] = value;
  for (const name of original.keys()) if (!edited.has(name)) changes[name] = null;
  const dirty = Object.keys(changes).length > 0;

  const save = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    try {
      const answer = await call<WriteAnswer>('/v1/products', {
        method: 'PUT',
        query: { store_uuid: storeId },
        json: [{ product_code: product.product_code, ...changes, if_updated_at: product.updated_at }],
      });
      const refusal = refusalOf(answer, [...edited.keys(), ...original.keys()]);
      if (refusal?.reason === 'conflict') setState({ conflict: refusal.details });
      else if (refusal) setState({ refusal });
      else {
        setState({ busy: true, saved: answer.warnings?.[0]?.reasons ?? [] });
        onSaved();
      }
    } catch (error) {
      setState({ error });
    }
  };

  const refusalFor = (name: string) =>
    state.refusal?.field === name ? (
      <p class="field-error" role="alert" id={`error-${name}`}>
        {state.refusal.details}
      </p>
    ) : null;

  return (
    <form class="attribute-editor" aria-label="Edit attributes" onSubmit={(e) => void save(e)}>
      <table class="table attributes" data-testid="attributes">
        <tbody>
          <tr>
            <th scope="row">product_code</th>
            <td>{product.product_code}</td>
            <td />
          </tr>
          {rows.map((row, i) => (
            <tr key={row.name} data-field={row.name} class={original.get(row.name) !== row.value ? 'changed' : ''}>
              <th scope="row">
                <label for={`field-${i}`}>{row.name}</label>
              </th>
              <td>
                <input
                  id={`field-${i}`}
                  value={row.value}
                  disabled={state.busy}
                  aria-invalid={state.refusal?.field === row.name}
                  aria-describedby={state.refusal?.field === row.name ? `error-${row.name}` : undefined}
                  onInput={(e) => {
                    const value = e.currentTarget.value;
                    setRows((list) => list.map((r) => (r.name === row.name ? { ...r, value } : r)));
                  }}
                />
                {refusalFor(row.name)}
              </td>
              <td>
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove ${row.name}`}
                  onClick={() => setRows((list) => list.filter((r) => r.name !== row.name))}
                >
                  remove
                </button>
              </td>
            </tr>
          ))}
          {[...original.keys()]
            .filter((name) => !edited.has(name))
            .map((name) => (
              <tr key={`removed-${name}`} class="removed" data-field={name}>
                <th scope="row">{name}</th>
                <td>
                  <s>{original.get(name)}</s> (removed on save) {refusalFor(name)}
                </td>
                <td>
                  <button
                    type="button"
                    class="link"
                    onClick={() => setRows((list) => [...list, { name, value: original.get(name) ?? '' }])}
                  >
                    keep
                  </button>
                </td>
              </tr>
            ))}
          <tr class="add-field">
            <th scope="row">
              <input
                aria-label="New field name"
                placeholder="new field, e.g. Material"
                value={added.name}
                onInput={(e) => setAdded({ ...added, name: e.currentTarget.value })}
              />
            </th>
            <td>
              <input
                aria-label="New field value"
                value={added.value}
                onInput={(e) => setAdded({ ...added, value: e.currentTarget.value })}
              />
            </td>
            <td>
              <button
                type="button"
                disabled={
                  added.name.trim() === '' || SYSTEM_FIELDS.has(added.name.trim()) || edited.has(added.name.trim())
                }
                onClick={() => {
                  setRows((list) => [...list, { name: added.name.trim(), value: added.value }]);
                  setAdded({ name: '', value: '' });
                }}
              >
                Add field
              </button>
            </td>
          </tr>
        </tbody>
      </table>
      <div class="editor-actions">
        <button type="submit" disabled={!dirty || state.busy}>
          Save changes
        </button>
        <button type="button" class="link" disabled={!dirty || state.busy} onClick={() => setRows(rowsOf(product))}>
          Discard
        </button>
        <span class="hint">
          Last saved {new Date(product.updated_at).toLocaleString()}
          {dirty ? ` · ${Object.keys(changes).length} unsaved change(s)` : ''}
        </span>
      </div>
      {state.refusal && !state.refusal.field ? (
        <p class="field-error" role="alert">
          Vitrine refused the change ({state.refusal.reason}): {state.refusal.details}
        </p>
      ) : null}
      {state.conflict ? (
        <div class="error conflict" role="alert" data-testid="conflict">
          <p>
            Someone changed this product since you opened it ({state.conflict}). Nothing was saved. Your edits are still
            in the form: reload the product to see the other change, then apply yours again.
          </p>
          <button type="button" onClick={onSaved}>
            Reload the product (drops your edits)
          </button>
        </div>
      ) : null}
      {state.saved ? (
        <p role="status">
          Saved.
          {state.saved.length > 0 ? ` It now fails the quality checks: ${state.saved.join(', ')}.` : ''}
        </p>
      ) : null}
      <ErrorNotice error={state.error} />
    </form>
  );
}

/** The fields a new product starts with: what a storefront needs to show and sell it. */
const NEW_PRODUCT_FIELDS = ['Product Name', 'Department', 'Category', 'Selling Price', 'Currency', 'Image URL 1'];

export function NewProductForm({ storeId, onCreated }: { storeId: string; onCreated: (code: string) => void }) {
  const [code, setCode] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [state, setState] = useState<{ busy?: boolean; refusal?: ItemRefusal; error?: unknown }>({});

  const create = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    const fields = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
    try {
      // if_updated_at null: only if no product has this code (never overwrites one).
      const answer = await call<WriteAnswer>('/v1/products', {
        method: 'POST',
        query: { store_uuid: storeId },
        json: [{ product_code: code.trim(), ...fields, if_updated_at: null }],
      });
      const refusal = refusalOf(answer, ['product_code', ...NEW_PRODUCT_FIELDS]);
      if (refusal)
        setState({
          refusal:
            refusal.reason === 'conflict'
              ? { ...refusal, field: 'product_code', details: `a product with code ${code.trim()} already exists` }
              : refusal,
        });
      else onCreated(code.trim());
    } catch (error) {
      setState({ error });
    }
  };

  const refusalFor = (name: string) =>
    state.refusal?.field === name ? (
      <p class="field-error" role="alert">
        {state.refusal.details}
      </p>
    ) : null;

  return (
    <form class="new-product" aria-label="New product" onSubmit={(e) => void create(e)}>
      <label>
        <span>product_code</span>
        <input required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
        {refusalFor('product_code')}
      </label>
      {NEW_PRODUCT_FIELDS.map((name) => (
        <label key={name}>
          <span>{name}</span>
          <input
            value={values[name] ?? ''}
            onInput={(e) => {
              const value = e.currentTarget.value;
              setValues((v) => ({ ...v, [name]: value }));
            }}
          />
          {refusalFor(name)}
        </label>
      ))}
      <button type="submit" disabled={state.busy || code.trim() === ''}>
        Create product
      </button>
      {state.refusal && !state.refusal.field ? (
        <p class="field-error" role="alert">
          Vitrine refused the product ({state.refusal.reason}): {state.refusal.details}
        </p>
      ) : null}
      <ErrorNotice error={state.error} />
    </form>
  );
}
