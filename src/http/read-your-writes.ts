import type { FastifyRequest } from 'fastify';

/** The read option a route declares with `config.readYourWrites` (src/http/types.ts), for its service call. */
export function readYourWritesOf(request: FastifyRequest): { readYourWrites: boolean } {
  return { readYourWrites: request.routeOptions.config.readYourWrites === true };
}
