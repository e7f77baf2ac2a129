import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

// Named schemas, registered once per app with addSchema: requests and responses refer to them by
// $ref, and the OpenAPI document lists them under components.schemas with these names, so that a
// generated client gets `Product`, `Collection`, … instead of anonymous inline types.
const named = new Map<string, TSchema>();

/** Declares the component `id` and returns a reference to it that keeps the schema's static type. */
export function component<T extends TSchema>(id: string, schema: T) {
  if (named.has(id)) throw new Error(`OpenAPI component ${id} is declared twice`);
  named.set(id, { ...schema, $id: id });
  return Type.Unsafe<Static<T>>(Type.Ref(id));
}

/** Adds every declared component to an app (before its routes are registered). */
export function registerComponents(app: FastifyInstance) {
  for (const schema of named.values()) app.addSchema(schema);
}
