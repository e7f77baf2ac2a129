import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PEER_SECRET } from '../cluster/messages.js';
import type { StoreOwners } from '../cluster/store-owners.js';
import { DependencyUnavailableError } from '../errors.js';
import { secretsEqual } from '../modules/stores/api-tokens.js';

// A large store's calls are served by one API process (src/cluster/store-owners.ts); another process
// that receives one forwards it, unchanged, to that process's private port. The forwarded call
// carries the group's secret and the client's address, so that the serving process counts it
// against the right rate-limit budget and records the shopper's address.

const PEER_SECRET_HEADER = 'x-vitrine-peer';
const CLIENT_IP_HEADER = 'x-vitrine-client-ip';
/** @fastify/compress's opt-out header, which also marks a call this process handed on (`handedOn`). */
const NO_COMPRESSION = 'x-no-compression';
const HANDED_ON = 'forwarded';

/** A call another API process of this group forwarded here (never forwarded again). */
export function isForwarded(request: FastifyRequest): boolean {
  const presented = request.headers[PEER_SECRET_HEADER];
  return PEER_SECRET !== '' && typeof presented === 'string' && secretsEqual(presented, PEER_SECRET);
}

/** A call this process handed to the process serving its store (the answer is that process's). */
export function handedOn(request: FastifyRequest): boolean {
  return request.headers[NO_COMPRESSION] === HANDED_ON;
}

/** The caller's address: the forwarding process's word for a forwarded call. */
export function clientIp(request: FastifyRequest): string {
  const forwardedFor = request.headers[CLIENT_IP_HEADER];
  return typeof forwardedFor === 'string' && isForwarded(request) ? forwardedFor : request.ip;
}

export type StoreForwarder = (request: FastifyRequest, reply: FastifyReply, storeId: string) => Promise<boolean>;

/**
 * Registers the forwarding client and returns the forwarder: true when it took the call (its answer
 * comes from the serving process), false when this process serves it.
 */
export async function registerStoreForwarding(
  app: FastifyInstance,
  owners: StoreOwners,
): Promise<StoreForwarder | undefined> {
  if (!owners.enabled) return undefined;
  // Loaded only here: it loads undici, which a process that forwards nothing never needs.
  const { default: fastifyReplyFrom } = await import('@fastify/reply-from');
  await app.register(fastifyReplyFrom, {
    disableRequestLogging: true,
    // No deadline of its own: a forwarded call (an export, an upload) may take as long as a direct one.
    undici: { connections: 64, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 },
  });
  return async (request, reply, storeId) => {
    if (isForwarded(request)) return false;
    const port = await owners.peerPortFor(storeId).catch((err: unknown) => {
      // Its size unknown (the count failed): served here rather than failed.
      request.log.warn({ err }, 'could not tell whether the store is large');
      return undefined;
    });
    if (port === undefined) return false;
    // The body goes on as it arrives (an import, a photo), not parsed here.
    if (request.method !== 'GET' && request.method !== 'HEAD') request.body = request.raw;
    const ip = request.ip;
    void reply.from(`http://127.0.0.1:${port}${request.url}`, {
      rewriteRequestHeaders: (_request, headers) => {
        const sent: Record<string, string | string[] | undefined> = {
          ...headers,
          [PEER_SECRET_HEADER]: PEER_SECRET,
          [CLIENT_IP_HEADER]: ip,
          'x-request-id': request.id,
        };
        // The client sends a length-less body as chunks itself; the header is not for us to set.
        delete sent['transfer-encoding'];
        return sent;
      },
      onError: (failed, { error }) => {
        request.log.error({ err: error }, 'forwarding to the process serving the store failed');
        failed.send(new DependencyUnavailableError('the process serving this store did not answer; retry'));
      },
    });
    // The serving process's answer goes out as it came (compressed or not): @fastify/compress's own opt-out,
    // set once the headers above were copied for the serving process.
    request.headers[NO_COMPRESSION] = HANDED_ON;
    return true;
  };
}
