// Webhooks of a store (operator): each subscription's health, its latest deliveries, a replay from a
// sequence, enable after it was disabled, delete; a new subscription, its signing secret shown once.
import { useState } from 'preact/hooks';
import { call, type Schemas } from '../api';
import { ErrorNotice, Section, useLoad } from '../ui';

type Webhook = Schemas['WebhookSubscription'];
type Delivery = Schemas['WebhookDelivery'];

const EVENT_TYPES = [
  'product.created',
  'product.updated',
  'product.status_changed',
  'product.deleted',
  'asset.updated',
  'collection.created',
  'collection.updated',
  'collection.deleted',
];

/** A subscription's health in words: what an operator looks at first. */
function healthOf(hook: Webhook): string {
  if (hook.state === 'disabled') return `disabled: ${hook.disabled_reason ?? 'no reason given'}`;
  if (hook.attempts > 0)
    return `failing since ${new Date(hook.failing_since ?? hook.next_attempt_at).toLocaleString()} (${hook.attempts} attempt(s) in a row: ${hook.last_error ?? 'no answer'}); next try ${new Date(hook.next_attempt_at).toLocaleString()}`;
  return hook.last_success_at
    ? `healthy, last delivery ${new Date(hook.last_success_at).toLocaleString()}`
    : 'healthy, nothing delivered yet';
}

export function WebhooksSection({ storeId }: { storeId: string }) {
  const base = `/admin/v1/stores/${encodeURIComponent(storeId)}/webhooks`;
  const hooks = useLoad((signal) => call<Webhook[]>(base, { admin: true, signal }), storeId);
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const add = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await call<Schemas['CreatedWebhook']>(base, {
        method: 'POST',
        admin: true,
        json: { url: url.trim(), ...(types.length > 0 ? { event_types: types } : {}) },
      });
      setSecret(created.secret);
      setUrl('');
      setTypes([]);
      hooks.reload();
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <Section title="Webhooks">
      <form class="stack" aria-label="New webhook" onSubmit={(e) => void add(e)}>
        <label for="webhook-url">Receiver URL (http or https)</label>
        <input
          id="webhook-url"
          type="url"
          required
          value={url}
          placeholder="https://erp.example/vitrine"
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <fieldset>
          <legend>Events (none ticked: all)</legend>
          {EVENT_TYPES.map((type) => (
            <label class="inline" key={type}>
              <input
                type="checkbox"
                checked={types.includes(type)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setTypes((list) => (on ? [...list, type] : list.filter((t) => t !== type)));
                }}
              />{' '}
              {type}
            </label>
          ))}
        </fieldset>
        <button type="submit">Add webhook</button>
      </form>
      {secret ? (
        <p role="status" data-testid="webhook-secret">
          Signing secret, shown once — give it to the receiver to check signatures: <code>{secret}</code>
        </p>
      ) : null}
      <ErrorNotice error={hooks.error ?? error} />
      <ul class="webhooks" data-testid="webhooks">
        {(hooks.data ?? []).map((hook) => (
          <WebhookRow key={hook.id} base={base} hook={hook} onChange={hooks.reload} />
        ))}
      </ul>
      {hooks.data && hooks.data.length === 0 ? <p>No webhook yet.</p> : null}
    </Section>
  );
}

function WebhookRow({ base, hook, onChange }: { base: string; hook: Webhook; onChange: () => void }) {
  const path = `${base}/${encodeURIComponent(hook.id)}`;
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [from, setFrom] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [state, setState] = useState<{ error?: unknown; done?: string }>({});

  const act = async (work: () => Promise<unknown>, done: string) => {
    setState({});
    try {
      await work();
      setState({ done });
      onChange();
    } catch (error) {
      setState({ error });
    }
  };

  return (
    <li data-webhook={hook.id} data-state={hook.state}>
      <p>
        <strong>{hook.url}</strong> — {hook.event_types.length > 0 ? hook.event_types.join(', ') : 'all events'}
      </p>
      <p class={hook.state === 'disabled' || hook.attempts > 0 ? 'problems' : 'hint'} data-testid="webhook-health">
        {healthOf(hook)}. Delivered up to change #{hook.cursor_sequence}
        {hook.replay ? `; replaying #${hook.replay.after} → #${hook.replay.upto}` : ''}.
      </p>
      <div class="editor-actions">
        <button
          type="button"
          onClick={() =>
            void call<Delivery[]>(`${path}/deliveries`, { admin: true }).then(setDeliveries, (error: unknown) =>
              setState({ error }),
            )
          }
        >
          Latest deliveries
        </button>
        <label class="inline">
          Replay from change #
          <input
            type="number"
            min={1}
            value={from}
            aria-label={`Replay ${hook.url} from change number`}
            onInput={(e) => setFrom(e.currentTarget.value)}
          />
        </label>
        <button
          type="button"
          disabled={!(Number(from) >= 1)}
          onClick={() =>
            void act(
              () => call(`${path}/replay`, { method: 'POST', admin: true, json: { from: Number(from) } }),
              `Replaying from #${from}.`,
            )
          }
        >
          Replay
        </button>
        {hook.state === 'disabled' ? (
          <button
            type="button"
            onClick={() => void act(() => call(`${path}/enable`, { method: 'POST', admin: true }), 'Enabled again.')}
          >
            Enable
          </button>
        ) : null}
        <button
          type="button"
          class="link danger"
          onClick={() =>
            confirmDelete
              ? void act(() => call(path, { method: 'DELETE', admin: true }), 'Deleted.')
              : setConfirmDelete(true)
          }
        >
          {confirmDelete ? 'Click again to delete' : 'Delete'}
        </button>
      </div>
      {state.done ? <p role="status">{state.done}</p> : null}
      <ErrorNotice error={state.error} />
      {deliveries ? (
        <table class="table compact" data-testid="deliveries">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Changes</th>
              <th scope="col">Outcome</th>
              <th scope="col">Answer</th>
              <th scope="col">ms</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td>{new Date(d.at).toLocaleString()}</td>
                <td>
                  #{d.first_sequence}–#{d.last_sequence} ({d.events}){d.replay ? ', replay' : ''}
                </td>
                <td>{d.outcome}</td>
                <td>{d.status_code ?? d.error ?? ''}</td>
                <td class="num">{d.duration_ms}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </li>
  );
}
