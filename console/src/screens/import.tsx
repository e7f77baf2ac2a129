// Import a catalog file (operator): a dry run first (the rows Vitrine would refuse, by line, nothing
// written), then the valid rows imported with one click; live progress, the summary and the rejected rows.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type ImportJob } from '../api';
import type { StoreContext } from '../app';
import { ErrorNotice, Section } from '../ui';

interface Reject {
  line: number;
  product_code: string | null;
  reason: string;
  details: string;
}

/** An import is queued, running, then done or failed. */
const FINISHED = new Set(['done', 'failed']);

function CountTable({ caption, counts }: { caption: string; counts: Record<string, number> }) {
  const entries = Object.entries(counts);
  if (entries.length === 0) return null;
  return (
    <table class="table compact">
      <caption>{caption}</caption>
      <tbody>
        {entries.map(([key, n]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td class="num">{n.toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ImportScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState('replace');
  const [dryRun, setDryRun] = useState(true);
  const [job, setJob] = useState<ImportJob | null>(null);
  const [rejects, setRejects] = useState<Reject[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const follow = (id: string) => {
    const poll = async () => {
      try {
        const current = await call<ImportJob>(`/admin/v1/imports/${encodeURIComponent(id)}`, { admin: true });
        setJob(current);
        if (current.finished_at || FINISHED.has(current.status)) {
          setBusy(false);
          if ((current.summary?.failed ?? 0) > 0)
            setRejects(await call<Reject[]>(`/admin/v1/imports/${encodeURIComponent(id)}/rejects`, { admin: true }));
          return;
        }
      } catch (caught) {
        setError(caught);
        setBusy(false);
        return;
      }
      timer.current = window.setTimeout(() => void poll(), 400);
    };
    void poll();
  };

  const start = async (event?: Event, dry = dryRun) => {
    event?.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setJob(null);
    setRejects(null);
    const form = new FormData();
    form.set('mode', mode);
    if (dry) form.set('dry_run', 'true');
    form.set('file', file, file.name);
    try {
      const started = await call<{ import_id: string }>(`/admin/v1/stores/${encodeURIComponent(storeId)}/imports`, {
        method: 'POST',
        admin: true,
        form,
      });
      follow(started.import_id);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  /** Adds the suggested column names to the store's mapping profile, then imports the same file again. */
  const useMapping = async (suggested: Record<string, string>) => {
    const path = `/admin/v1/stores/${encodeURIComponent(storeId)}/mapping`;
    try {
      const current = await call<{ fields: Record<string, string>; required: string[] }>(path, { admin: true });
      await call(path, {
        method: 'PUT',
        admin: true,
        json: { fields: { ...current.fields, ...suggested }, required: current.required },
      });
    } catch (caught) {
      setError(caught);
      return;
    }
    await start();
  };

  const summary = job?.summary;
  return (
    <>
      <h1>Import a catalog file</h1>
      <Section title="File">
        <form class="stack" onSubmit={(e) => void start(e)} aria-label="Import">
          <label for="import-file">Catalog file (.csv, .json array or .ndjson)</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,.json,.ndjson,.jsonl,text/csv,application/json"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
          <label for="import-mode">Each row is</label>
          <select id="import-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
            <option value="replace">the whole product (replace)</option>
            <option value="merge">only the fields it has (merge)</option>
          </select>
          <label class="inline">
            <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} /> Check first:
            a dry run lists the rows Vitrine would refuse, by line, and writes nothing
          </label>
          <button type="submit" disabled={!file || busy}>
            {busy ? (dryRun ? 'Checking…' : 'Importing…') : dryRun ? 'Check the file' : 'Start import'}
          </button>
        </form>
        <ErrorNotice error={error} />
      </Section>
      {job ? (
        <Section title="Progress">
          <p role="status" data-testid="import-status" data-state={job.status}>
            {job.status} · {job.progress.rows.toLocaleString()} rows read
          </p>
          {job.error ? (
            <div class="error" role="alert">
              <p>The import failed: {job.error}.</p>
            </div>
          ) : null}
          <progress aria-label="Import progress" value={summary ? 1 : undefined} max={1} />
          {summary ? (
            <div class="summary" data-testid="import-summary">
              <p>
                {summary.rows.toLocaleString()} rows in {summary.seconds.toFixed(1)} s:{' '}
                {summary.inserted.toLocaleString()} inserted, {summary.updated.toLocaleString()} updated,{' '}
                {summary.unchanged.toLocaleString()} unchanged, {summary.failed.toLocaleString()} rejected
                {summary.dry_run ? ' (dry run: nothing written)' : ''}.
              </p>
              {summary.dry_run && !busy ? (
                <div class="suggestion" data-testid="dry-run-result">
                  <p>
                    Nothing is written yet.{' '}
                    {summary.failed > 0
                      ? `${summary.failed.toLocaleString()} row(s) would be refused (listed below with their line numbers); the others can be imported now.`
                      : 'Every row would be accepted.'}
                  </p>
                  <button
                    type="button"
                    disabled={summary.rows - summary.failed === 0}
                    onClick={() => void start(undefined, false)}
                  >
                    Import the {(summary.rows - summary.failed).toLocaleString()} valid row(s)
                  </button>
                </div>
              ) : null}
              {summary.suggested_mapping ? (
                <div class="suggestion" data-testid="suggested-mapping">
                  <p>No row was accepted, but the columns look like catalog fields under other names. Read them as:</p>
                  <table class="table compact">
                    <tbody>
                      {Object.entries(summary.suggested_mapping).map(([column, field]) => (
                        <tr key={column}>
                          <th scope="row">{column}</th>
                          <td>→ {field}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <button type="button" disabled={busy} onClick={() => void useMapping(summary.suggested_mapping!)}>
                    Use this mapping and import again
                  </button>
                </div>
              ) : summary.hint ? (
                <p class="hint">{summary.hint}</p>
              ) : null}
              <div class="row">
                <CountTable caption="Statuses" counts={summary.statuses} />
                <CountTable caption="Quality problems" counts={summary.problems} />
                <CountTable caption="Rejections" counts={summary.failures} />
              </div>
            </div>
          ) : null}
        </Section>
      ) : null}
      {rejects && rejects.length > 0 ? (
        <Section
          title={`${job?.summary?.dry_run ? 'Rows that would be refused' : 'Rejected rows'} (${rejects.length.toLocaleString()})`}
        >
          <table class="table" data-testid="rejects">
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">product_code</th>
                <th scope="col">Reason</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {rejects.slice(0, 200).map((row) => (
                <tr key={row.line}>
                  <td class="num">{row.line}</td>
                  <td>{row.product_code ?? '—'}</td>
                  <td>{row.reason}</td>
                  <td>{row.details}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {rejects.length > 200 ? <p>The first 200 are shown.</p> : null}
        </Section>
      ) : null}
    </>
  );
}
