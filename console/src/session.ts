// The tokens live in sessionStorage only: gone when the tab closes, never in a URL, never logged.
const TOKEN = 'vitrine.token';
const ADMIN = 'vitrine.adminToken';

export interface Session {
  token: string;
  adminToken: string | null;
}

export function loadSession(): Session | null {
  const token = sessionStorage.getItem(TOKEN);
  return token ? { token, adminToken: sessionStorage.getItem(ADMIN) } : null;
}

export function saveSession(session: Session) {
  sessionStorage.setItem(TOKEN, session.token);
  if (session.adminToken) sessionStorage.setItem(ADMIN, session.adminToken);
  else sessionStorage.removeItem(ADMIN);
}

export function clearSession() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(ADMIN);
}
