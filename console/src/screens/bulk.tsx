// Bulk editing: the products of a filter in a spreadsheet-like grid (type, paste a block from a
// spreadsheet, fill down with Ctrl+D, arrows and Enter to move), and actions on the selected rows or on
// every product the filter matches, each previewed, run in batches with progress, its failures listed
// and undoable. Everything goes through the public product and collection endpoints.
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Product, type ProductPage } from '../api';
import type { StoreContext } from '../app';
import { pastedCells, restoreBody, writeInBatches, type BulkOutcome } from '../bulk-writes';
import { BulkActions, RunReport, type Run, type Undo } from './bulk-actions';
import { navigate, useRoute } from '../router';
import { ErrorNotice, Pager, useLoad } from '../ui';
import { ProductFilterForm } from '../product-filter-form';
import { FacetFilters } from '../facet-filters';

const PAGE = 50;
const COLUMNS = ['Product Name', 'Category', 'Department', 'Colour', 'Selling Price', 'Stock'];
/** Per product code: the product as it was read (its values are the undo, its updated_at the precondition) and the edited cells. */
type Edits = Map<string, { product: Product; fields: Record<string, string> }>;

const cellValue = (product: Product, field: string) => {
  const value = product[field];
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
};

interface RowActions {
  toggle: (code: string, on: boolean) => void;
  input: (product: Product, field: string, value: string) => void;
  paste: (row: number, column: number, text: string) => void;
  fillDown: (row: number, column: number) => void;
  focusCell: (row: number, column: number) => void;
}

/** One product's row of the grid; re-rendered only when its product, edits or selection change. */
const GridRow = memo(function GridRow({
  product,
  row,
  edit,
  checked,
  act,
}: {
  product: Product;
  row: number;
  edit: Record<string, string> | undefined;
  checked: boolean;
  act: RowActions;
}) {
  return (
    <tr data-code={product.product_code}>
      <td>
        <input
          type="checkbox"
          aria-label={`Select ${product.product_code}`}
          checked={checked}
          onChange={(e) => act.toggle(product.product_code, e.currentTarget.checked)}
        />
      </td>
      <td>{product.product_code}</td>
      {COLUMNS.map((field, column) => (
        <td key={field} class={edit?.[field] !== undefined ? 'changed' : ''}>
          <input
            aria-label={`${field} of ${product.product_code}`}
            data-row={row}
            data-column={column}
            value={edit?.[field] ?? cellValue(product, field)}
            onInput={(e) => act.input(product, field, e.currentTarget.value)}
            onPaste={(e) => {
              const text = e.clipboardData?.getData('text/plain') ?? '';
              if (!/[\t\n]/.test(text.trimEnd())) return;
              e.preventDefault();
              act.paste(row, column, text);
            }}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown' || e.key === 'Enter') {
                e.preventDefault();
                act.focusCell(row + 1, column);
              } else if (e.key === 'ArrowUp') {
                e.preventDefault();
                act.focusCell(row - 1, column);
              } else if (e.key === 'd' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                act.fillDown(row, column);
              }
            }}
          />
        </td>
      ))}
      <td>{product.status}</td>
    </tr>
  );
});

export function BulkScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  const { params } = useRoute();
  const filter = {
    status: params.get('status') ?? '',
    reason: params.get('reason') ?? '',
    q: params.get('q') ?? '',
    filters: params.get('filters') ?? '',
  };
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const [edits, setEdits] = useState<Edits>(new Map());
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [run, setRun] = useState<Run | null>(null);
  const [undo, setUndo] = useState<Undo | null>(null);
  const latest = useRef<RowActions>(null as unknown as RowActions);
  const act = useRef<RowActions>({
    toggle: (code, on) => latest.current.toggle(code, on),
    input: (product, field, value) => latest.current.input(product, field, value),
    paste: (row, column, text) => latest.current.paste(row, column, text),
    fillDown: (row, column) => latest.current.fillDown(row, column),
    focusCell: (row, column) => latest.current.focusCell(row, column),
  }).current;
  const grid = useRef<HTMLTableElement>(null);
  const go = (next: Record<string, string | number | undefined>) =>
    navigate(['s', storeId, 'bulk'], { ...filter, offset: undefined, ...next });

  const page = useLoad(
    (signal) =>
      call<ProductPage>('/v1/products', { query: { store_uuid: storeId, ...filter, offset, limit: PAGE }, signal }),
    `${storeId}|${filter.status}|${filter.reason}|${filter.q}|${filter.filters}|${offset}`,
  );
  const products = page.data?.products ?? [];
  // Saved edits are dropped once the page shows what was stored (not before: the cells would flash the old values).
  const savedEdits = useRef(false);
  useEffect(() => {
    setSelected(new Set());
    if (savedEdits.current) {
      savedEdits.current = false;
      setEdits(new Map());
    }
  }, [page.data]);

  // Edits outlive paging: a cell edited on page 1 is still saved from page 3.
  const setCell = (product: Product, field: string, value: string, into: Edits) => {
    const code = product.product_code;
    const edit = into.get(code);
    const fields = { ...(edit?.fields ?? {}) };
    const original = edit?.product ?? product;
    if (cellValue(original, field) === value) delete fields[field];
    else fields[field] = value;
    if (Object.keys(fields).length === 0) into.delete(code);
    else into.set(code, { product: original, fields });
  };
  const shown = (product: Product, field: string) =>
    edits.get(product.product_code)?.fields[field] ?? cellValue(product, field);
  const focusCell = (row: number, column: number) =>
    grid.current?.querySelector<HTMLInputElement>(`input[data-row="${row}"][data-column="${column}"]`)?.focus();

  /** A block pasted from a spreadsheet fills from this cell down and right. */
  const paste = (row: number, column: number, text: string) => {
    const cells = pastedCells(text);
    const next = new Map(edits);
    cells.forEach((values, r) =>
      values.forEach((value, c) => {
        const product = products[row + r];
        const field = COLUMNS[column + c];
        if (product && field) setCell(product, field, value, next);
      }),
    );
    setEdits(next);
  };
  const fillDown = (row: number, column: number) => {
    const field = COLUMNS[column];
    const value = shown(products[row], field);
    const next = new Map(edits);
    for (const product of products.slice(row + 1)) setCell(product, field, value, next);
    setEdits(next);
  };

  // The rows get one object whose methods read this render's state: a keystroke re-renders its own row only.
  latest.current = {
    toggle: (code, on) => {
      const next = new Set(selected);
      if (on) next.add(code);
      else next.delete(code);
      setSelected(next);
    },
    input: (product, field, value) => {
      const next = new Map(edits);
      setCell(product, field, value, next);
      setEdits(next);
    },
    paste,
    fillDown,
    focusCell,
  };

  const track = (label: string) => (done: number, total: number) =>
    setRun((r) => ({ ...(r ?? { label }), label, done, total }));

  /** Runs an action with its undo recorded first; the page stays usable between batches. */
  const perform = async (
    label: string,
    work: (progress: (d: number, t: number) => void) => Promise<BulkOutcome>,
    undoing?: Undo,
  ) => {
    setRun({ label, done: 0, total: 0 });
    try {
      const outcome = await work(track(label));
      setRun((r) => ({ ...(r ?? { label, done: 0, total: 0 }), outcome }));
      setUndo(undoing ?? null);
      page.reload();
    } catch (error) {
      setRun((r) => ({ ...(r ?? { label, done: 0, total: 0 }), error }));
    }
  };

  const saveEdits = () => {
    const edited = [...edits.values()];
    const items = edited.map(({ product, fields }) => ({
      product_code: product.product_code,
      ...fields,
      if_updated_at: product.updated_at,
    }));
    void perform(
      `Saving ${items.length} edited product(s)`,
      async (progress) => {
        const outcome = await writeInBatches(storeId, 'PUT', items, progress);
        savedEdits.current = true;
        return outcome;
      },
      {
        label: `the edits of ${items.length} product(s)`,
        apply: (progress, failed) =>
          writeInBatches(
            storeId,
            'PUT',
            edited
              .filter(({ product }) => !failed.has(product.product_code))
              .map(({ product, fields }) => restoreBody(product, Object.keys(fields))),
            progress,
          ),
      },
    );
  };

  return (
    <>
      <h1>Bulk editing</h1>
      <ProductFilterForm status={filter.status} reason={filter.reason} q={filter.q} go={go} />
      <FacetFilters
        storeId={storeId}
        base={filter}
        filters={filter.filters}
        onChange={(next) => go({ filters: next || undefined })}
        rows={page.data}
        recount
      />
      <ErrorNotice error={page.error} />
      <div class="editor-actions">
        <button type="button" disabled={edits.size === 0 || !!(run && !run.outcome && !run.error)} onClick={saveEdits}>
          Save {edits.size} edited product(s)
        </button>
        <button type="button" class="link" disabled={edits.size === 0} onClick={() => setEdits(new Map())}>
          Discard edits
        </button>
        <span class="hint">
          Type in a cell; paste a block copied from a spreadsheet; Ctrl+D fills the cell's value down the page; ↑ ↓ and
          Enter move between rows.
        </span>
      </div>
      <table class="table bulk-grid" ref={grid} data-testid="bulk-grid" aria-busy={page.loading}>
        <thead>
          <tr>
            <th scope="col">
              <input
                type="checkbox"
                aria-label="Select every product of this page"
                checked={products.length > 0 && products.every((p) => selected.has(p.product_code))}
                onChange={(e) =>
                  setSelected(e.currentTarget.checked ? new Set(products.map((p) => p.product_code)) : new Set())
                }
              />
            </th>
            <th scope="col">Code</th>
            {COLUMNS.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {products.map((product, row) => (
            // Keyed by position: the next page reuses the row's cells instead of building 350 inputs again.
            <GridRow
              key={row}
              product={product}
              row={row}
              edit={edits.get(product.product_code)?.fields}
              checked={selected.has(product.product_code)}
              act={act}
            />
          ))}
        </tbody>
      </table>
      {page.data ? (
        <Pager
          offset={offset}
          limit={PAGE}
          total={page.data.total}
          onPage={(next) => go({ offset: next || undefined })}
        />
      ) : null}
      <BulkActions
        storeId={storeId}
        filter={filter}
        selected={[...selected]}
        total={page.data?.total ?? 0}
        busy={!!(run && !run.outcome && !run.error)}
        perform={perform}
      />
      {run ? <RunReport run={run} /> : null}
      {undo && run?.outcome ? (
        <button
          type="button"
          onClick={() => {
            const undoing = undo;
            const failed = new Set(run.outcome!.failures.map((f) => f.product_code));
            setUndo(null);
            void perform(`Undoing ${undoing.label}`, (progress) => undoing.apply(progress, failed));
          }}
        >
          Undo {undo.label}
        </button>
      ) : null}
    </>
  );
}
