// The bulk editing screen's actions and their report: on the selected rows or every product a filter
// matches, previewed (how many, which), run in batches with progress, failures listed, undoable.
import { useState } from 'preact/hooks';
import { call, STATUSES, type Product, type ProductPage } from '../api';
import {
  allMatching,
  deleteInBatches,
  recreateBody,
  restoreBody,
  writeInBatches,
  type BulkOutcome,
} from '../bulk-writes';
import { ErrorNotice, Section } from '../ui';

type Action = 'status' | 'field' | 'delete' | 'collection-add' | 'collection-remove';

export interface Run {
  label: string;
  done: number;
  total: number;
  outcome?: BulkOutcome;
  error?: unknown;
}
/** What undoes the last action: its name and the work that puts things back. */
export interface Undo {
  label: string;
  /** `failed`: the products the action failed on, which the undo leaves alone (someone else's value may be there). */
  apply: (progress: (done: number, total: number) => void, failed: Set<string>) => Promise<BulkOutcome>;
}

export function RunReport({ run }: { run: Run }) {
  return (
    <Section title="Last bulk action">
      <p role="status" data-testid="bulk-status">
        {run.label}:{' '}
        {run.outcome
          ? `done — ${run.outcome.done.toLocaleString()} changed, ${run.outcome.failures.length.toLocaleString()} failed`
          : `${run.done.toLocaleString()} of ${run.total.toLocaleString()}…`}
      </p>
      <progress aria-label="Bulk progress" value={run.total ? run.done : undefined} max={run.total || 1} />
      <ErrorNotice error={run.error} />
      {run.outcome && run.outcome.failures.length > 0 ? (
        <table class="table compact" data-testid="bulk-failures">
          <thead>
            <tr>
              <th scope="col">product_code</th>
              <th scope="col">Reason</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {run.outcome.failures.slice(0, 200).map((f, i) => (
              <tr key={i}>
                <td>{f.product_code}</td>
                <td>{f.reason}</td>
                <td>{f.details}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}

export function BulkActions({
  storeId,
  filter,
  selected,
  total,
  busy,
  perform,
}: {
  storeId: string;
  filter: { status: string; reason: string; q: string; filters: string };
  selected: string[];
  total: number;
  busy: boolean;
  perform: (
    label: string,
    work: (progress: (d: number, t: number) => void) => Promise<BulkOutcome>,
    undo?: Undo,
  ) => Promise<void>;
}) {
  const [scope, setScope] = useState<'selected' | 'all'>('selected');
  const [action, setAction] = useState<Action>('status');
  const [status, setStatus] = useState('inactive');
  const [field, setField] = useState('');
  const [value, setValue] = useState('');
  const [collection, setCollection] = useState('');
  const [preview, setPreview] = useState<{ targets: Product[]; sentence: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const count = scope === 'all' ? total : selected.length;

  const describe = (n: number) =>
    action === 'status'
      ? `Set Status to ${status} on ${n.toLocaleString()} product(s)`
      : action === 'field'
        ? `Set ${field || '…'} to “${value}” on ${n.toLocaleString()} product(s)`
        : action === 'delete'
          ? `Delete ${n.toLocaleString()} product(s)`
          : `${action === 'collection-add' ? 'Add' : 'Remove'} ${n.toLocaleString()} product(s) ${action === 'collection-add' ? 'to' : 'from'} collection ${collection || '…'}`;

  /** Reads the products the action will touch (their current values are the undo) and shows what will change. */
  const prepare = async () => {
    setError(null);
    try {
      const targets =
        scope === 'all'
          ? await allMatching(storeId, filter, () => {})
          : (
              await call<ProductPage>('/v1/products', {
                query: { store_uuid: storeId, product_code: selected.join(','), limit: 1000 },
              })
            ).products;
      setPreview({ targets, sentence: describe(targets.length) });
    } catch (caught) {
      setError(caught);
    }
  };

  const apply = () => {
    if (!preview) return;
    const { targets, sentence } = preview;
    setPreview(null);
    const codes = targets.map((p) => p.product_code);
    if (action === 'status' || action === 'field') {
      const set = action === 'status' ? { Status: status } : { [field]: value === '' ? null : value };
      void perform(
        sentence,
        (progress) =>
          writeInBatches(
            storeId,
            'PUT',
            targets.map((p) => ({ product_code: p.product_code, ...set, if_updated_at: p.updated_at })),
            progress,
          ),
        {
          label: sentence.toLowerCase(),
          apply: (progress, failed) =>
            writeInBatches(
              storeId,
              'PUT',
              targets
                .filter((p) => !failed.has(p.product_code))
                .map((p) => restoreBody(p, action === 'field' ? [field] : [], action === 'status')),
              progress,
            ),
        },
      );
    } else if (action === 'delete') {
      void perform(sentence, (progress) => deleteInBatches(storeId, codes, progress), {
        label: sentence.toLowerCase(),
        apply: (progress, failed) =>
          writeInBatches(
            storeId,
            'POST',
            targets.filter((p) => !failed.has(p.product_code)).map(recreateBody),
            progress,
          ),
      });
    } else {
      const adding = action === 'collection-add';
      // A manual collection's members are its heroProducts: the collection is written back whole with them changed.
      const change = async (add: string[], remove: string[]): Promise<BulkOutcome> => {
        const all = await call<Array<Record<string, unknown>>>('/v1/collection', {
          query: { store_uuid: storeId, status: 'active,inactive,hidden', limit: 1000 },
        });
        const current = all.find((c) => c.id === collection.trim());
        if (!current) throw new Error(`There is no collection ${collection.trim()} in this store.`);
        const gone = new Set(remove);
        const heroes = ((current.heroProducts as string[] | undefined) ?? []).filter((c) => !gone.has(c));
        const kept = new Set(heroes);
        const { totalProducts: _computed, ...rest } = current;
        const answer = await call<{ failed: number; error_info: Array<{ details: string }> }>('/v1/collection', {
          method: 'PUT',
          query: { store_uuid: storeId },
          json: [{ ...rest, heroProducts: [...heroes, ...add.filter((c) => !kept.has(c))] }],
        });
        if (answer.failed > 0)
          throw new Error(`Vitrine refused the collection: ${answer.error_info[0]?.details ?? 'invalid'}`);
        return { done: adding ? add.length : remove.length, failures: [] };
      };
      void perform(sentence, () => (adding ? change(codes, []) : change([], codes)), {
        label: sentence.toLowerCase(),
        apply: () => (adding ? change([], codes) : change(codes, [])),
      });
    }
  };

  return (
    <Section title="Change many products">
      <form
        class="filters"
        aria-label="Bulk action"
        onSubmit={(e) => {
          e.preventDefault();
          void prepare();
        }}
      >
        <label>
          <span>Products</span>
          <select value={scope} onChange={(e) => setScope(e.currentTarget.value as 'selected' | 'all')}>
            <option value="selected">the {selected.length} selected</option>
            <option value="all">all {total.toLocaleString()} matching the filter</option>
          </select>
        </label>
        <label>
          <span>Action</span>
          <select value={action} onChange={(e) => setAction(e.currentTarget.value as Action)}>
            <option value="status">set status</option>
            <option value="field">set a field</option>
            <option value="collection-add">add to a manual collection</option>
            <option value="collection-remove">remove from a manual collection</option>
            <option value="delete">delete</option>
          </select>
        </label>
        {action === 'status' ? (
          <label>
            <span>Status</span>
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              {STATUSES.filter((s) => s !== 'problem').map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {action === 'field' ? (
          <>
            <label>
              <span>Field</span>
              <input value={field} onInput={(e) => setField(e.currentTarget.value)} placeholder="e.g. Season" />
            </label>
            <label>
              <span>Value (empty removes it)</span>
              <input value={value} onInput={(e) => setValue(e.currentTarget.value)} />
            </label>
          </>
        ) : null}
        {action.startsWith('collection') ? (
          <label>
            <span>Collection id</span>
            <input value={collection} onInput={(e) => setCollection(e.currentTarget.value)} />
          </label>
        ) : null}
        <button type="submit" disabled={busy || count === 0 || (action === 'field' && field.trim() === '')}>
          Preview
        </button>
      </form>
      {preview ? (
        <div class="suggestion" data-testid="bulk-preview">
          <p>
            {preview.sentence}:{' '}
            {preview.targets
              .slice(0, 5)
              .map((p) => p.product_code)
              .join(', ')}
            {preview.targets.length > 5 ? ', …' : ''}. The last action can be undone.
          </p>
          <button type="button" onClick={apply}>
            Apply
          </button>
          <button type="button" class="link" onClick={() => setPreview(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      <ErrorNotice error={error} />
    </Section>
  );
}
