// Hash routes (#/s/<store>/<screen>/<rest>?a=b): the console is one static page, and a token never rides in a URL.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments after `#/`, decoded. */
  parts: string[];
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path, search = ''] = raw.split('?', 2);
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  return { parts, params: new URLSearchParams(search) };
}

export function href(parts: string[], params: Record<string, string | number | undefined | null> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const query = search.toString();
  return `#/${parts.map(encodeURIComponent).join('/')}${query ? `?${query}` : ''}`;
}

export function navigate(parts: string[], params: Record<string, string | number | undefined | null> = {}) {
  location.hash = href(parts, params);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
