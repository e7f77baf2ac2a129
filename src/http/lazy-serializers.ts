import { setImmediate as nextTurn } from 'node:timers/promises';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
/** What Fastify tells a serializer compiler of the response it is for. */
interface SerializedRoute {
  url: string;
  method: string;
  httpStatus: string;
}

/** The routes a shopper's first calls reach: their answers are compiled before the process listens. */
export const SHOPPER_ROUTES = [
  '/v1/search',
  '/v1/search/query',
  '/v1/search/suggest',
  '/v1/complementary',
  '/v1/similar',
  '/v1/visual-search',
  '/v1/collection/:id/products',
  '/v1/products/status',
];

const compilersAhead = new WeakMap<FastifyInstance, () => Promise<string[]>>();

/**
 * Fastify's response serializers (fast-json-stringify), each compiled when its route first answers with
 * that status instead of all at start: compiling every route's response schemas was 1.3–1.8 s of each
 * app's start (an API process, every test suite), most of it for routes a process may never answer
 * with. The code compiled, and so every answer, is the same. The shopper's routes are compiled ahead,
 * before the process listens (`compileShopperSerializers`): their first answer paid 20–35 ms for it (a
 * cold store's first search on a fresh process, 2 cores).
 */
export function lazySerializers(): {
  schemaController: NonNullable<FastifyServerOptions['schemaController']>;
  /** Records the app the serializers are for (compileShopperSerializers finds them by it). */
  bind(app: FastifyInstance): void;
} {
  const eager: SerializerFactory = SerializerSelector();
  const made: Array<{ route: SerializedRoute; compiled: () => unknown }> = [];
  return {
    schemaController: {
      compilersFactory: {
        buildSerializer: (externalSchemas: unknown, serializerOptions: unknown) => {
          const compile = eager(externalSchemas, serializerOptions as never);
          return (route: Parameters<typeof compile>[0]) => {
            let serialize: ((data: unknown) => string) | undefined;
            const compiled = () => (serialize ??= compile(route) as (data: unknown) => string);
            made.push({ route, compiled });
            return (data: unknown) => compiled()(data);
          };
        },
      },
    },
    bind(app) {
      compilersAhead.set(app, async () => {
        const done: string[] = [];
        for (const { route, compiled } of made) {
          if (!route.httpStatus.startsWith('2') || route.method === 'HEAD' || !SHOPPER_ROUTES.includes(route.url))
            continue;
          compiled();
          done.push(`${route.method} ${route.url} ${route.httpStatus}`);
          await nextTurn();
        }
        return done;
      });
    },
  };
}

/** Compiles the shopper routes' answers of an app built with lazy serializers (none otherwise); which, as `METHOD url status`. */
export async function compileShopperSerializers(app: FastifyInstance): Promise<string[]> {
  return (await compilersAhead.get(app)?.()) ?? [];
}
