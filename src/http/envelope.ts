import type { FastifyRequest } from 'fastify';

/** The seed's success envelope (CONTRACT §4). */
export function ok<T>(request: FastifyRequest, data: T) {
  return { status: { code: 0 as const, message: 'SUCCESS', request_id: request.id }, data };
}

export function errorEnvelope(requestId: string, message: string) {
  return { status: { code: -1 as const, message, request_id: requestId } };
}

/** The asset endpoints' error body: the envelope plus data.error_info (seed, asset list mapping). */
export function assetErrorBody(requestId: string, message: string, reason: string, details: string) {
  return { ...errorEnvelope(requestId, message), data: { error_info: [{ reason, details }] } };
}

/** The validation / bad-request shape of the seed, with the request id at top level. */
export function detailBody(requestId: string, detail: string) {
  return { detail, status: 'error' as const, request_id: requestId };
}

export const UNAUTHORIZED_MESSAGE = 'Invalid or missing bearer token';
export const INTERNAL_ERROR_MESSAGE = 'Internal server error, please contact support';
