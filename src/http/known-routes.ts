import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { FastifyInstance } from 'fastify';
import type { ErrorShape } from './types.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Remembers every registered route so that a known path with the wrong method answers 405 with Allow. */
export function trackKnownRoutes(app: FastifyInstance) {
  const router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: false });
  const seen = new Set<string>();
  const shapes = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: false });
  const shapeOf = new Map<string, ErrorShape>();
  app.addHook('onRoute', (route) => {
    // The error shape of a path (CONTRACT §4: asset paths answer every error, 405 included, in the asset shape).
    const shape = route.config?.errorShape;
    if (shape && !shapeOf.has(route.url)) {
      shapeOf.set(route.url, shape);
      shapes.on('GET', route.url, () => {}, { shape });
    }
    // The CORS preflight route (OPTIONS /v1/*) answers for every path: it makes no path known.
    if (route.url.includes('*')) return;
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
    errorShape(path: string): ErrorShape {
      return (shapes.find('GET', path)?.store as { shape?: ErrorShape } | undefined)?.shape ?? 'standard';
    },
  };
}
