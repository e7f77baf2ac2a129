import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Remembers every registered route so that a known path with the wrong method answers 405 with Allow. */
export function trackKnownRoutes(app: FastifyInstance) {
  const router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: false });
  const seen = new Set<string>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const key = `${method} ${route.url}`;
      if (seen.has(key) || !(METHODS as readonly string[]).includes(method)) continue;
      seen.add(key);
      router.on(method as (typeof METHODS)[number], route.url, () => {});
    }
  });
  return {
    allowedMethods(path: string): string[] {
      return METHODS.filter((method) => router.find(method, path) !== null);
    },
  };
}
