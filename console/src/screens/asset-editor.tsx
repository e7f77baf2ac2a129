// A product's asset links per channel, editable: drag (or move with the keyboard) to re-rank, unlink,
// delete, and link a photo uploaded here (POST /v1/media). Through the public /v1/assets endpoints.
import { useEffect, useState } from 'preact/hooks';
import { call, type Schemas, type StoreDetails } from '../api';
import { ErrorNotice, Section, Thumb, useLoad } from '../ui';

interface AssetGroups {
  assets: Record<string, { channel: string; asset_type: string; assets: Array<Record<string, string>> }>;
}
interface Link {
  assetId: string;
  name: string;
  url: string;
}
interface Group {
  channel: string;
  parentCode: string;
  assetType: string;
  links: Link[];
}
interface Failures {
  failed: number;
  error_info: Array<{ reason?: string; details?: string }>;
}

/** An asset call's per-link failure, in words (the asset endpoints answer 200 with failures listed). */
function refused(answer: Failures): Error | null {
  if (answer.failed === 0) return null;
  const info = answer.error_info[0];
  return new Error(`Vitrine refused it: ${info?.details ?? info?.reason ?? 'unknown reason'}`);
}

export function AssetEditor({ storeId, code, parent }: { storeId: string; code: string; parent: string }) {
  const groups = useLoad(async (signal) => {
    const details = await call<StoreDetails>('/v1/stores', { query: { store_uuid: storeId }, signal });
    const channels = Object.keys(details.channels);
    const codes = [...new Set([code, parent])];
    const found: Group[] = [];
    for (const channel of channels)
      for (const parentCode of codes) {
        const page = await call<AssetGroups>('/v1/assets', {
          query: { store_uuid: storeId, channel, parent_code: parentCode },
          signal,
        });
        for (const [groupParent, group] of Object.entries(page.assets))
          found.push({
            channel,
            parentCode: groupParent,
            assetType: group.asset_type,
            links: group.assets.map((asset) => {
              const [name, url] = Object.entries(asset).find(([key]) => key !== 'asset_id') ?? ['', ''];
              return { assetId: asset.asset_id, name, url };
            }),
          });
      }
    return { channels, found };
  }, `${storeId}|${code}`);

  return (
    <Section title="Asset links per channel">
      <ErrorNotice error={groups.error} />
      {groups.data && groups.data.found.length === 0 ? <p>No asset links on any channel.</p> : null}
      {groups.data?.found.map((group) => (
        <GroupEditor
          key={`${group.channel}/${group.parentCode}/${group.assetType}`}
          storeId={storeId}
          group={group}
          onChange={groups.reload}
        />
      ))}
      {groups.data ? (
        <UploadLink
          storeId={storeId}
          parent={parent}
          channels={groups.data.channels}
          groups={groups.data.found}
          onChange={groups.reload}
        />
      ) : null}
    </Section>
  );
}

function GroupEditor({ storeId, group, onChange }: { storeId: string; group: Group; onChange: () => void }) {
  const [order, setOrder] = useState<Link[]>(group.links);
  const [dragged, setDragged] = useState<number | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [state, setState] = useState<{ error?: unknown; done?: string; busy?: boolean }>({});
  useEffect(() => setOrder(group.links), [group.links.map((l) => l.assetId).join()]);
  const moved = order.some((link, i) => link.assetId !== group.links[i]?.assetId);
  const target = { store_uuid: storeId, parent_code: group.parentCode, channel: group.channel };

  const move = (from: number, to: number) => {
    if (to < 0 || to >= order.length || from === to) return;
    const next = [...order];
    const [link] = next.splice(from, 1);
    next.splice(to, 0, link);
    setOrder(next);
  };
  const run = async (work: () => Promise<Failures>, done: string) => {
    setState({ busy: true });
    try {
      const failure = refused(await work());
      if (failure) setState({ error: failure });
      else {
        setState({ done });
        onChange();
      }
    } catch (error) {
      setState({ error });
    }
  };
  // Naming a linked asset `Image URL n` moves it to rank n (README › Assets): the whole group, renamed in order.
  const saveOrder = () =>
    run(
      () =>
        call<Failures>('/v1/assets', {
          method: 'POST',
          query: { store_uuid: storeId, channel: group.channel },
          json: [
            {
              parent_code: group.parentCode,
              asset_type: group.assetType,
              assets: Object.fromEntries(order.map((link, i) => [`Image URL ${i + 1}`, link.url])),
            },
          ],
        }),
      'Order saved.',
    );
  const unlink = (link: Link) =>
    run(
      () => call<Failures>('/v1/assets/unlink', { method: 'POST', json: [{ ...target, asset_id: link.assetId }] }),
      `${link.name} unlinked.`,
    );
  const remove = (link: Link) => {
    if (confirm !== link.assetId) return setConfirm(link.assetId);
    setConfirm(null);
    return run(
      () =>
        call<Failures>('/v1/assets', {
          method: 'DELETE',
          json: [{ ...target, asset_id: [link.assetId] }],
        }),
      `${link.name} deleted.`,
    );
  };

  return (
    <div class="asset-group" data-channel={group.channel}>
      <h3>
        {group.channel} · {group.assetType} · on {group.parentCode}
      </h3>
      <ol class="ranks" aria-label={`Ranks on ${group.channel}`}>
        {order.map((link, i) => (
          <li
            key={link.assetId}
            draggable
            data-asset={link.assetId}
            class={dragged === i ? 'dragging' : ''}
            onDragStart={(e) => {
              setDragged(i);
              e.dataTransfer?.setData('text/plain', String(i));
            }}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => {
              e.preventDefault();
              // The drag's own data first: the state set at dragstart may not have rendered yet.
              const from = Number(e.dataTransfer?.getData('text/plain') ?? '');
              if (Number.isInteger(from) && e.dataTransfer?.getData('text/plain')) move(from, i);
              else if (dragged !== null) move(dragged, i);
              setDragged(null);
            }}
            onDragEnd={() => setDragged(null)}
          >
            <Thumb src={link.url} alt={link.name} size={40} /> <span class="asset-name">{link.name}</span>{' '}
            <code class="url">{link.url}</code>
            <span class="rank-actions">
              <button
                type="button"
                aria-label={`Move ${link.url} up`}
                disabled={i === 0}
                onClick={() => move(i, i - 1)}
              >
                ↑
              </button>
              <button
                type="button"
                aria-label={`Move ${link.url} down`}
                disabled={i === order.length - 1}
                onClick={() => move(i, i + 1)}
              >
                ↓
              </button>
              <button type="button" class="link" onClick={() => void unlink(link)}>
                Unlink
              </button>
              <button type="button" class="link danger" onClick={() => void remove(link)}>
                {confirm === link.assetId ? 'Click again: delete everywhere' : 'Delete'}
              </button>
            </span>
          </li>
        ))}
      </ol>
      {moved ? (
        <div class="editor-actions">
          <button type="button" disabled={state.busy} onClick={() => void saveOrder()}>
            Save order
          </button>
          <button type="button" class="link" onClick={() => setOrder(group.links)}>
            Discard
          </button>
        </div>
      ) : null}
      {state.done ? <p role="status">{state.done}</p> : null}
      <ErrorNotice error={state.error} />
    </div>
  );
}

function UploadLink({
  storeId,
  parent,
  channels,
  groups,
  onChange,
}: {
  storeId: string;
  parent: string;
  channels: string[];
  groups: Group[];
  onChange: () => void;
}) {
  const [channel, setChannel] = useState(channels[0] ?? '');
  const [state, setState] = useState<{ error?: unknown; done?: string; busy?: boolean }>({});

  const upload = async (file: File) => {
    setState({ busy: true });
    try {
      const form = new FormData();
      form.set('file', file, file.name);
      const uploaded = await call<Schemas['MediaUploadResult']>('/v1/media', {
        method: 'POST',
        query: { store_uuid: storeId },
        form,
      });
      const stored = uploaded.files[0];
      if (!stored) throw new Error(`Vitrine refused the file: ${uploaded.error_info[0]?.details ?? 'unknown reason'}`);
      const existing = groups.find(
        (g) => g.channel === channel && g.parentCode === parent && g.assetType === stored.media_type,
      );
      const answer = await call<Failures>('/v1/assets', {
        method: 'POST',
        query: { store_uuid: storeId, channel },
        json: [
          {
            parent_code: parent,
            asset_type: stored.media_type,
            assets: { [`Image URL ${(existing?.links.length ?? 0) + 1}`]: stored.url },
          },
        ],
      });
      const failure = refused(answer);
      if (failure) throw failure;
      setState({ done: `${file.name} linked on ${channel}.` });
      onChange();
    } catch (error) {
      setState({ error });
    }
  };

  return (
    <form class="filters" aria-label="Link a photo" onSubmit={(e) => e.preventDefault()}>
      <label>
        <span>Channel</span>
        <select value={channel} onChange={(e) => setChannel(e.currentTarget.value)}>
          {channels.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Upload and link a photo (last rank on {parent})</span>
        <input
          type="file"
          accept="image/*"
          disabled={state.busy}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) void upload(file);
            e.currentTarget.value = '';
          }}
        />
      </label>
      {state.done ? <p role="status">{state.done}</p> : null}
      <ErrorNotice error={state.error} />
    </form>
  );
}
