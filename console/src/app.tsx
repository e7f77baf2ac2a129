// The console's shell: sign-in, the store picker, navigation, and which screen a route shows.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, type StoreRef } from './api';
import { href, navigate, useRoute } from './router';
import { clearSession, loadSession, saveSession, type Session } from './session';
import { ErrorNotice } from './ui';
import { HealthScreen } from './screens/health';
import { ProductsScreen } from './screens/products';
import { ProductScreen } from './screens/product';
import { ImportScreen } from './screens/import';
import { CollectionsScreen } from './screens/collections';
import { CollectionEditor } from './screens/collection-editor';
import { SearchScreen } from './screens/search';
import { VocabularyScreen } from './screens/vocabulary';
import { TaggingScreen } from './screens/tagging';
import { AnalyticsScreen } from './screens/analytics';
import { SettingsScreen } from './screens/settings';
import { BulkScreen } from './screens/bulk';
import { MerchandisingScreen } from './screens/merchandising';

export interface StoreContext {
  store: StoreRef;
  admin: boolean;
}

const SCREENS: Array<{ id: string; label: string; admin?: boolean }> = [
  { id: 'health', label: 'Catalog health' },
  { id: 'products', label: 'Products' },
  { id: 'bulk', label: 'Bulk editing' },
  { id: 'import', label: 'Import', admin: true },
  { id: 'collections', label: 'Collections' },
  { id: 'search', label: 'Search playground' },
  { id: 'merchandising', label: 'Merchandising', admin: true },
  { id: 'tagging', label: 'Photo suggestions' },
  { id: 'vocabulary', label: 'Vocabulary', admin: true },
  { id: 'analytics', label: 'Analytics', admin: true },
  { id: 'settings', label: 'Settings', admin: true },
];

function SignIn({ onSignedIn }: { onSignedIn: (session: Session, stores: StoreRef[]) => void }) {
  const [token, setToken] = useState('');
  const [adminToken, setAdminToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const stores = await call<StoreRef[]>('/v1/workspace/stores', { token: token.trim() });
      if (adminToken.trim()) await call('/admin/v1/workspaces', { token: adminToken.trim(), admin: true });
      const session = { token: token.trim(), adminToken: adminToken.trim() || null };
      saveSession(session);
      onSignedIn(session, stores);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <h1>Vitrine console</h1>
      <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          placeholder="vt_…"
        />
        <label for="admin-token">
          Operator token (optional: imports, image pipeline, synonyms, vocabulary, analytics)
        </label>
        <input
          id="admin-token"
          name="admin-token"
          type="password"
          autocomplete="off"
          value={adminToken}
          onInput={(e) => setAdminToken(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">The tokens stay in this browser tab only (sessionStorage) and are sent to this server alone.</p>
      </form>
      <ErrorNotice error={error} />
    </main>
  );
}

function StorePicker({ stores, current }: { stores: StoreRef[]; current?: string }) {
  return (
    <label class="store-picker">
      <span>Store</span>
      <select
        aria-label="Store"
        value={current ?? ''}
        onChange={(e) => navigate(['s', e.currentTarget.value, 'health'])}
      >
        {current ? null : <option value="">Choose a store…</option>}
        {stores.map((store) => (
          <option key={store.store_uuid} value={store.store_uuid}>
            {store.store_name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Screen({ ctx, screen, rest }: { ctx: StoreContext; screen: string; rest: string[] }) {
  const spec = SCREENS.find((s) => s.id === screen);
  if (spec?.admin && !ctx.admin)
    return (
      <div class="error" role="alert">
        <p>This screen needs the operator token: sign out and sign in with it too.</p>
      </div>
    );
  switch (screen) {
    case 'health':
      return <HealthScreen ctx={ctx} />;
    case 'products':
      return rest[0] ? <ProductScreen ctx={ctx} code={rest[0]} /> : <ProductsScreen ctx={ctx} />;
    case 'import':
      return <ImportScreen ctx={ctx} />;
    case 'collections':
      return rest[0] ? (
        <CollectionEditor ctx={ctx} id={rest[0] === 'new' ? null : rest[0]} />
      ) : (
        <CollectionsScreen ctx={ctx} />
      );
    case 'search':
      return <SearchScreen ctx={ctx} />;
    case 'tagging':
      return <TaggingScreen ctx={ctx} />;
    case 'vocabulary':
      return <VocabularyScreen ctx={ctx} />;
    case 'analytics':
      return <AnalyticsScreen ctx={ctx} />;
    case 'merchandising':
      return <MerchandisingScreen ctx={ctx} />;
    case 'bulk':
      return <BulkScreen ctx={ctx} />;
    case 'settings':
      return <SettingsScreen ctx={ctx} />;
    default:
      return (
        <div class="error" role="alert">
          <p>There is no screen “{screen}”.</p>
        </div>
      );
  }
}

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const [stores, setStores] = useState<StoreRef[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (!session || stores) return;
    call<StoreRef[]>('/v1/workspace/stores')
      .then(setStores)
      .catch((caught: unknown) => {
        // A token revoked since sign-in: back to the sign-in form, with the reason.
        if (caught instanceof ApiError && caught.httpStatus === 401) {
          clearSession();
          setSession(null);
        }
        setError(caught);
      });
  }, [session, stores]);

  const signOut = () => {
    clearSession();
    setSession(null);
    setStores(null);
    setError(null);
    navigate([]);
  };

  if (!session)
    return (
      <>
        <SignIn
          onSignedIn={(next, list) => {
            setError(null);
            setSession(next);
            setStores(list);
            if (route.parts[0] !== 's' && list.length > 0) navigate(['s', list[0].store_uuid, 'health']);
          }}
        />
        {error ? (
          <div class="signin">
            <ErrorNotice error={error} />
          </div>
        ) : null}
      </>
    );
  if (!stores)
    return (
      <main class="content">{error ? <ErrorNotice error={error} /> : <p class="loading">Loading your stores…</p>}</main>
    );

  const [first, storeId, screen = 'health', ...rest] = route.parts;
  const store = first === 's' ? stores.find((s) => s.store_uuid === storeId) : undefined;
  const admin = !!session.adminToken;

  return (
    <div class="layout">
      <header class="topbar">
        <a class="brand" href={store ? href(['s', store.store_uuid, 'health']) : '#/'}>
          Vitrine
        </a>
        <StorePicker stores={stores} current={store?.store_uuid} />
        <span class="who">{admin ? 'merchandiser + operator' : 'merchandiser'}</span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      {store ? (
        <nav class="sidebar" aria-label="Screens">
          <ul>
            {SCREENS.filter((s) => admin || !s.admin).map((s) => (
              <li key={s.id}>
                <a href={href(['s', store.store_uuid, s.id])} aria-current={s.id === screen ? 'page' : undefined}>
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <main class="content" id="main">
        {first === 's' && !store ? (
          <div class="error" role="alert">
            <p>Store not found: it does not exist or is not in your workspace.</p>
          </div>
        ) : store ? (
          <Screen
            key={`${store.store_uuid}/${screen}/${rest[0] ?? ''}`}
            ctx={{ store, admin }}
            screen={screen}
            rest={rest}
          />
        ) : stores.length === 0 ? (
          <p>
            Your workspace has no stores yet: an operator creates them with <code>vitrine store create</code>.
          </p>
        ) : (
          <p>Choose a store above.</p>
        )}
      </main>
    </div>
  );
}
