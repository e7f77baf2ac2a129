// Collections: every collection with its status and member count, and the hierarchy as a tree.
import { call, type Collection } from '../api';
import type { StoreContext } from '../app';
import { href } from '../router';
import { ErrorNotice, Section, StatusBadge, useLoad } from '../ui';

interface Node {
  collection: Collection;
  children: Node[];
}

function tree(collections: Collection[]): Node[] {
  const nodes = new Map(collections.map((c) => [c.id, { collection: c, children: [] as Node[] }]));
  const roots: Node[] = [];
  for (const node of nodes.values()) {
    const parent = node.collection.parentId ? nodes.get(node.collection.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

function Tree({ nodes, storeId }: { nodes: Node[]; storeId: string }) {
  return (
    <ul class="tree">
      {nodes.map(({ collection, children }) => (
        <li key={collection.id}>
          <a href={href(['s', storeId, 'collections', collection.id])}>{collection.name || collection.id}</a>{' '}
          <StatusBadge status={collection.status} />{' '}
          <span class="meta">{collection.totalProducts.toLocaleString()} products</span>
          {children.length > 0 ? <Tree nodes={children} storeId={storeId} /> : null}
        </li>
      ))}
    </ul>
  );
}

export function CollectionsScreen({ ctx }: { ctx: StoreContext }) {
  const storeId = ctx.store.store_uuid;
  const list = useLoad(
    (signal) =>
      call<Collection[]>('/v1/collection', {
        query: { store_uuid: storeId, status: 'active,inactive,hidden', limit: 1000 },
        signal,
      }),
    storeId,
  );
  return (
    <>
      <h1>Collections</h1>
      <p>
        <a class="button" href={href(['s', storeId, 'collections', 'new'])}>
          New rule collection
        </a>
      </p>
      <ErrorNotice error={list.error} />
      {list.data ? (
        <div class="row">
          <Section title={`All collections (${list.data.length})`}>
            {list.data.length === 0 ? <p>No collection yet.</p> : null}
            <table class="table" data-testid="collections">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Products</th>
                  <th scope="col">Kind</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <a href={href(['s', storeId, 'collections', c.id])}>{c.name || c.id}</a>
                    </td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td class="num">{c.totalProducts.toLocaleString()}</td>
                    <td>{c.static === 'true' ? 'manual' : c.autoRefresh ? 'rules, kept current' : 'rules, frozen'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Section>
          <Section title="Hierarchy">
            <Tree nodes={tree(list.data)} storeId={storeId} />
            <p class="hint">
              Shoppers see only active collections: a hidden or inactive one takes its subtree with it.
            </p>
          </Section>
        </div>
      ) : list.loading ? (
        <p class="loading">Loading collections…</p>
      ) : null}
    </>
  );
}
