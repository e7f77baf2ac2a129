// Store settings (operator): webhooks with their health, deliveries and replay; publishable keys and
// tokens; CORS origins; the mapping profile, checked against a sample file. All through /admin/v1.
import { useState } from 'preact/hooks';
import { call, type Schemas, type StoreDetails } from '../api';
import type { StoreContext } from '../app';
import { href } from '../router';
import { ErrorNotice, Section, useLoad } from '../ui';
import { WebhooksSection } from './settings-webhooks';

type Token = Schemas['Token'];
type CreatedToken = Schemas['CreatedToken'];
type Mapping = Schemas['MappingProfile'];

export function SettingsScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  const details = useLoad(
    (signal) => call<StoreDetails>('/v1/stores', { query: { store_uuid: storeId }, signal }),
    storeId,
  );
  return (
    <>
      <h1>Settings</h1>
      <WebhooksSection storeId={storeId} />
      {details.data ? <TokensSection storeId={storeId} workspaceId={details.data.workspace_id} /> : null}
      <CorsSection storeId={storeId} />
      <MappingSection storeId={storeId} />
      <Section title="Catalog language">
        <p>
          The catalog is in <strong>{details.data?.store_language ?? '…'}</strong>: see and change it on the{' '}
          <a href={href(['s', storeId, 'vocabulary'])}>Vocabulary</a> screen (the text index is rebuilt in the
          background).
        </p>
      </Section>
      <ErrorNotice error={details.error} />
    </>
  );
}

function TokensSection({ storeId, workspaceId }: { storeId: string; workspaceId: string }) {
  const tokens = useLoad(
    (signal) => call<Token[]>('/admin/v1/tokens', { admin: true, query: { workspace_id: workspaceId }, signal }),
    workspaceId,
  );
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const createKey = async () => {
    setError(null);
    try {
      setCreated(
        await call<CreatedToken>('/admin/v1/tokens', {
          method: 'POST',
          admin: true,
          json: { workspace_id: workspaceId, scope: 'search', store_uuids: [storeId] },
        }),
      );
      tokens.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const revoke = async (id: string) => {
    if (confirm !== id) return setConfirm(id);
    setConfirm(null);
    setError(null);
    try {
      await call(`/admin/v1/tokens/${encodeURIComponent(id)}`, { method: 'DELETE', admin: true });
      tokens.reload();
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <Section
      title="Tokens and publishable keys"
      actions={
        <button type="button" onClick={() => void createKey()}>
          New publishable key for this store
        </button>
      }
    >
      <p class="hint">
        A publishable key (<code>vt_pk_…</code>) only searches and reads this store's storefront data: safe in a shop's
        browser code. Workspace tokens reach every store of the workspace. A revoked token stops at once, on every
        process; revoking the one this console signed in with signs you out.
      </p>
      {created ? (
        <p role="status" data-testid="created-key">
          New key, shown once — copy it now: <code>{created.api_token}</code>
        </p>
      ) : null}
      <table class="table" data-testid="tokens">
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Kind</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col" />
          </tr>
        </thead>
        <tbody>
          {(tokens.data ?? []).map((t) => (
            <tr key={t.token_id} data-token={t.token_id}>
              <td>
                <code>{t.token_id}</code>
              </td>
              <td>
                {t.scope === 'search' ? `publishable key (${t.store_uuids?.length ?? 0} store(s))` : 'workspace token'}
              </td>
              <td>{new Date(t.created_at).toLocaleString()}</td>
              <td>{t.revoked_at ? `revoked ${new Date(t.revoked_at).toLocaleString()}` : 'active'}</td>
              <td>
                {t.revoked_at ? null : (
                  <button type="button" class="link danger" onClick={() => void revoke(t.token_id)}>
                    {confirm === t.token_id ? 'Click again to revoke' : 'Revoke'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorNotice error={tokens.error ?? error} />
    </Section>
  );
}

function CorsSection({ storeId }: { storeId: string }) {
  const path = `/admin/v1/stores/${encodeURIComponent(storeId)}/cors`;
  const current = useLoad((signal) => call<Schemas['AllowedOrigins']>(path, { admin: true, signal }), storeId);
  const [typed, setTyped] = useState<string | null>(null);
  const [state, setState] = useState<{ error?: unknown; saved?: boolean }>({});
  const shown = typed ?? (current.data?.allowed_origins ?? []).join('\n');

  const save = async (event: Event) => {
    event.preventDefault();
    setState({});
    const origins = shown
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    try {
      await call(path, { method: 'PUT', admin: true, json: { allowed_origins: origins } });
      setTyped(null);
      current.reload();
      setState({ saved: true });
    } catch (error) {
      setState({ error });
    }
  };

  return (
    <Section title="Browser origins (CORS)">
      <form class="stack" aria-label="Browser origins" onSubmit={(e) => void save(e)}>
        <label for="cors-origins">
          Shops allowed to call the API from a browser: one origin per line (scheme://host[:port])
        </label>
        <textarea
          id="cors-origins"
          rows={4}
          value={shown}
          placeholder="https://shop.example"
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <button type="submit">Save origins</button>
      </form>
      {state.saved ? <p role="status">Origins saved.</p> : null}
      <ErrorNotice error={current.error ?? state.error} />
    </Section>
  );
}

/** `incoming = canonical` lines to a profile's fields, and back. */
const linesOf = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([from, to]) => `${from} = ${to}`)
    .join('\n');
function fieldsOf(lines: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of lines.split('\n')) {
    const at = line.lastIndexOf('=');
    if (line.trim() === '') continue;
    fields[at < 0 ? line.trim() : line.slice(0, at).trim()] = at < 0 ? '' : line.slice(at + 1).trim();
  }
  return fields;
}

interface ImportJob {
  status: string;
  finished_at: string | null;
  error: string | null;
  summary: { rows: number; failed: number; inserted: number; updated: number; unchanged: number } | null;
}
interface Reject {
  line: number;
  product_code: string | null;
  reason: string;
  details: string;
}

function MappingSection({ storeId }: { storeId: string }) {
  const path = `/admin/v1/stores/${encodeURIComponent(storeId)}/mapping`;
  const profile = useLoad((signal) => call<Mapping>(path, { admin: true, signal }), storeId);
  const [fields, setFields] = useState<string | null>(null);
  const [required, setRequired] = useState<string | null>(null);
  const [state, setState] = useState<{ error?: unknown; saved?: boolean; busy?: boolean }>({});
  const [check, setCheck] = useState<{ job: ImportJob; rejects: Reject[] } | null>(null);
  const shownFields = fields ?? linesOf(profile.data?.fields ?? {});
  const shownRequired = required ?? (profile.data?.required ?? []).join(', ');

  const save = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    try {
      const body = {
        fields: fieldsOf(shownFields),
        required: shownRequired
          .split(',')
          .map((f) => f.trim())
          .filter((f) => f !== ''),
      };
      await call(path, { method: 'PUT', admin: true, json: body });
      setFields(null);
      setRequired(null);
      profile.reload();
      setState({ saved: true });
    } catch (error) {
      setState({ error });
    }
  };

  /** A dry run of a sample file against the saved profile: what it would accept and refuse, nothing written. */
  const checkSample = async (file: File) => {
    setState({ busy: true });
    setCheck(null);
    const form = new FormData();
    form.set('dry_run', 'true');
    form.set('file', file, file.name);
    try {
      const { import_id } = await call<{ import_id: string }>(
        `/admin/v1/stores/${encodeURIComponent(storeId)}/imports`,
        { method: 'POST', admin: true, form },
      );
      const jobPath = `/admin/v1/imports/${encodeURIComponent(import_id)}`;
      let job = await call<ImportJob>(jobPath, { admin: true });
      while (!job.finished_at) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        job = await call<ImportJob>(jobPath, { admin: true });
      }
      const rejects = (job.summary?.failed ?? 0) > 0 ? await call<Reject[]>(`${jobPath}/rejects`, { admin: true }) : [];
      setCheck({ job, rejects });
      setState({});
    } catch (error) {
      setState({ error });
    }
  };

  return (
    <Section title="Mapping profile">
      <form class="stack" aria-label="Mapping profile" onSubmit={(e) => void save(e)}>
        <label for="mapping-fields">
          Column names of your files and the catalog field each one is: one per line, <code>Column = Field</code>
        </label>
        <textarea
          id="mapping-fields"
          rows={6}
          value={shownFields}
          placeholder="Product_ID = product_code"
          onInput={(e) => setFields(e.currentTarget.value)}
        />
        <label for="mapping-required">Fields every product must have (comma-separated)</label>
        <input id="mapping-required" value={shownRequired} onInput={(e) => setRequired(e.currentTarget.value)} />
        <button type="submit" disabled={state.busy}>
          Save profile
        </button>
      </form>
      <label for="mapping-sample">Check a sample file against the saved profile (nothing is written)</label>
      <input
        id="mapping-sample"
        type="file"
        accept=".csv,.json,.ndjson,.jsonl,text/csv,application/json"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void checkSample(file);
        }}
      />
      {state.saved ? <p role="status">Profile saved.</p> : null}
      {check ? (
        <div data-testid="mapping-check">
          {check.job.error ? (
            <p class="field-error">The file cannot be read: {check.job.error}.</p>
          ) : (
            <p role="status">
              {check.job.summary?.rows.toLocaleString()} rows: {(check.job.summary?.inserted ?? 0).toLocaleString()}{' '}
              new, {((check.job.summary?.updated ?? 0) + (check.job.summary?.unchanged ?? 0)).toLocaleString()}{' '}
              existing, {(check.job.summary?.failed ?? 0).toLocaleString()} refused.
            </p>
          )}
          {check.rejects.length > 0 ? (
            <table class="table compact">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {check.rejects.slice(0, 20).map((r) => (
                  <tr key={r.line}>
                    <td class="num">{r.line}</td>
                    <td>{r.reason}</td>
                    <td>{r.details}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
      <ErrorNotice error={profile.error ?? state.error} />
    </Section>
  );
}
