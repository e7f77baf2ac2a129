import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's response serializers (fast-json-stringify), each compiled when its route first answers with
 * that status instead of all at start: compiling every route's response schemas was 1.3–1.8 s of each
 * app's start (an API process, every test suite), most of it for routes a process may never answer
 * with. The code compiled, and so every answer, is the same; a route's first answer pays its own
 * compilation (milliseconds).
 */
export function lazySerializers(): NonNullable<FastifyServerOptions['schemaController']> {
  const eager: SerializerFactory = SerializerSelector();
  return {
    compilersFactory: {
      buildSerializer: (externalSchemas: unknown, serializerOptions: unknown) => {
        const compile = eager(externalSchemas, serializerOptions as never);
        return (route: Parameters<typeof compile>[0]) => {
          let serialize: ((data: unknown) => string) | undefined;
          return (data: unknown) => (serialize ??= compile(route) as (data: unknown) => string)(data);
        };
      },
    },
  };
}
