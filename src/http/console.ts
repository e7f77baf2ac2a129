import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** Where `npm run build` puts the console: the project's dist/console, from dist/src/http and build/src/http alike. */
export const CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/console');

/**
 * The console talks only to this server, images included: catalog images on the merchants' own hosts
 * reach it as thumbnails made by this server (GET /v1/thumbnail, fetched with the token and shown as
 * blob: URLs). No inline script or style, no frames, no form posts elsewhere.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the merchandiser console at /console/ (the built single page): hashed assets cached for a
 * year, the page itself revalidated every time, every answer under a strict Content-Security-Policy.
 */
export async function registerConsole(app: FastifyInstance, dir = CONSOLE_DIR) {
  const built = fs.existsSync(path.join(dir, 'index.html'));
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-frame-options', 'DENY');
      return payload;
    });
    scope.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/', 301));
    if (!built) {
      scope.get('/console/*', { schema: { hide: true } }, async (_request, reply) =>
        reply
          .code(404)
          .type('text/plain; charset=utf-8')
          .send('The console is not built: run `npm run build` (npm ci does it).'),
      );
      return;
    }
    await scope.register(fastifyStatic, {
      root: dir,
      prefix: '/console/',
      decorateReply: false,
      cacheControl: false,
      etag: true,
      lastModified: false,
      index: ['index.html'],
      setHeaders(res, file) {
        res.header(
          'cache-control',
          file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  });
}
