import dns from 'node:dns';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Transform, Writable } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { createRequire } from 'node:module';
import type { Agent, request as undiciRequest } from 'undici';
import { InvalidInputError } from '../errors.js';

// undici (~3 MB of heap) is loaded with the first outbound fetch: an API process that never fetches
// an image or posts a webhook does not hold it.
let loaded: typeof import('undici') | undefined;
const undici = () => (loaded ??= createRequire(import.meta.url)('undici') as typeof import('undici'));
const request: typeof undiciRequest = (...args) => undici().request(...args);

/** Address ranges never fetched unless private fetching is allowed (CONTRACT §8). */
const REFUSED_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'private',
  'uniqueLocal',
  'ipv4Mapped',
  'carrierGradeNat',
  'reserved',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'benchmarking',
  'amt',
  'as112',
  'deprecated',
  'orchid2',
]);

export function isRefusedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  // 169.254.169.254 (cloud metadata) is link-local; 100.100.100.200 (Alibaba metadata) is carrier-grade NAT.
  return REFUSED_RANGES.has(parsed.range());
}

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  allowPrivate: boolean;
  /** Replaces the address policy (tests: refuse one loopback alias while serving from another). */
  refuseAddress?: (address: string) => boolean;
  /** Ends the fetch early (the process is stopping). */
  signal?: AbortSignal;
}

/** Raised when `FetchLimits.signal` ended a fetch: not the URL's fault, nothing to record. */
export class FetchAbortedError extends Error {}

export class FetchRefusedError extends InvalidInputError {}
/** The server answered, but not 200. */
export class HttpStatusError extends InvalidInputError {}
export class TooLargeError extends InvalidInputError {}
export class FetchTimeoutError extends InvalidInputError {}
/** The connection failed (refused, reset, DNS failure): worth retrying later. */
export class FetchFailedError extends InvalidInputError {}

/**
 * The dispatcher checks every address a hostname resolves to when it connects, so the address
 * checked is the address used: no gap for DNS rebinding between a check and the connection.
 */
function guardedAgent(refuse: (address: string) => boolean) {
  return new (undici().Agent)({
    connect: {
      lookup: (hostname, options, callback) => {
        dns.lookup(hostname, { all: true }, (error, addresses) => {
          if (error) return callback(error, '', 4);
          const refused = addresses.find((a) => refuse(a.address));
          if (refused)
            return callback(
              new FetchRefusedError(
                `refused to fetch from ${hostname}: ${refused.address} is a private, loopback, link-local or metadata address`,
                'url',
              ),
              '',
              4,
            );
          if ((options as { all?: boolean }).all)
            return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
          return callback(null, addresses[0].address, addresses[0].family);
        });
      },
    },
  });
}

/**
 * A signal that aborts after `timeoutMs` (reason: a TimeoutError) or as soon as `outer` does. Node 20's
 * `AbortSignal.any([AbortSignal.timeout(…), …])` can be garbage-collected before its timer fires
 * (nodejs/node#57736): a webhook POST to a receiver that never answered waited for good under load.
 * Here the timer holds its controller; `clear` stops it and unhooks `outer`, which would otherwise
 * gather one listener per call for the life of the process.
 */
export function deadlineSignal(timeoutMs: number, outer?: AbortSignal): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    },
  };
}

/**
 * `request`, settled as soon as `signal` ends it. undici notices an abort only once its connection
 * attempt returns, and a DNS lookup cannot be cancelled: behind a resolver that does not answer
 * (5 s a try) a stopping image worker waited 5–10 s for fetches it had aborted, and a fetch could
 * outlive its own time limit. The lookup finishes in the background; a late answer is discarded.
 */
function requestUntil(
  url: URL,
  options: Parameters<typeof request>[1] & { signal: AbortSignal },
): ReturnType<typeof request> {
  const { signal } = options;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    request(url, options).then(
      (response) => {
        signal.removeEventListener('abort', abort);
        if (signal.aborted) void response.body.dump().catch(() => {});
        else resolve(response);
      },
      (error: Error) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/** Parses an outgoing URL: http(s), no credentials, no refused IP literal (one never goes through the resolver hook). */
function checkedUrl(url: string, refuse: (address: string) => boolean, field = 'url'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError(`not a URL: ${url}`, field);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidInputError('only http(s) URLs are fetched', field);
  if (parsed.username || parsed.password) throw new InvalidInputError('URLs with credentials are not fetched', field);
  const literal = parsed.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(literal) && refuse(literal)) {
    throw new FetchRefusedError(
      `refused to fetch from ${literal}: a private, loopback, link-local or metadata address`,
      field,
    );
  }
  return parsed;
}

/**
 * Checks an outgoing URL before it is stored (a webhook): its form, and every address its host
 * resolves to now. Delivery checks the addresses again on every connection (DNS may change).
 */
export async function checkOutgoingUrl(url: string, allowPrivate: boolean, field = 'url'): Promise<void> {
  const refuse = (address: string) => !allowPrivate && isRefusedAddress(address);
  const parsed = checkedUrl(url, refuse, field);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return;
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true });
  } catch {
    throw new InvalidInputError(`the host ${host} does not resolve`, field);
  }
  const refused = addresses.find((a) => refuse(a.address));
  if (refused)
    throw new FetchRefusedError(
      `refused: ${host} resolves to ${refused.address}, a private, loopback, link-local or metadata address`,
      field,
    );
}

export interface PostOutcome {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One guarded POST (webhook delivery): the same address rules as fetching, no redirect followed (a
 * 3xx is an answer like any other), the answer's body read and dropped, all within `timeoutMs`.
 * Keep the agent (`guardedPostAgent`) for the life of the sender: connections are reused.
 */
export async function postGuarded(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; agent: Agent; allowPrivate: boolean; signal?: AbortSignal },
): Promise<PostOutcome> {
  const parsed = checkedUrl(url, (address) => !options.allowPrivate && isRefusedAddress(address));
  const deadline = deadlineSignal(options.timeoutMs, options.signal);
  try {
    const response = await requestUntil(parsed, {
      method: 'POST',
      body,
      headers,
      dispatcher: options.agent,
      signal: deadline.signal,
      maxRedirections: 0,
    });
    await response.body.dump({ limit: 64 * 1024 });
    return { statusCode: response.statusCode, headers: response.headers };
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof InvalidInputError) throw cause;
    if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError')
      throw new FetchTimeoutError(`no answer within ${options.timeoutMs / 1000} s`, 'url');
    throw new FetchFailedError(`cannot connect: ${(error as Error).message}`, 'url');
  } finally {
    deadline.clear();
  }
}

/** The connection pool of a webhook sender, with the address policy checked on every connection. */
export function guardedPostAgent(allowPrivate: boolean): Agent {
  return guardedAgent((address) => !allowPrivate && isRefusedAddress(address));
}

/**
 * Fetches `url` following at most `maxRedirects` redirects (each one re-checked) and streams the body
 * into `sink` through a byte cap, all within the time limit.
 */
async function fetchInto(
  url: string,
  limits: FetchLimits,
  sink: (body: NodeJS.ReadableStream, cap: Transform) => Promise<void>,
): Promise<{ bytes: number; contentType: string | undefined }> {
  const refuse = limits.refuseAddress ?? ((address: string) => !limits.allowPrivate && isRefusedAddress(address));
  const agent = guardedAgent(refuse);
  const timer = deadlineSignal(limits.timeoutMs, limits.signal);
  const deadline = timer.signal;
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const parsed = checkedUrl(current, refuse);
      const response = await requestUntil(parsed, { dispatcher: agent, signal: deadline, maxRedirections: 0 });
      if ([301, 302, 303, 307, 308].includes(response.statusCode)) {
        await response.body.dump();
        const location = response.headers.location;
        if (hop >= limits.maxRedirects || typeof location !== 'string')
          throw new InvalidInputError(`more than ${limits.maxRedirects} redirects`, 'url');
        current = new URL(location, parsed).toString();
        continue;
      }
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new HttpStatusError(`the URL answered HTTP ${response.statusCode}`, 'url');
      }
      let bytes = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          if (bytes > limits.maxBytes)
            done(new TooLargeError(`the file is larger than ${limits.maxBytes} bytes`, 'url'));
          else done(null, chunk);
        },
      });
      await sink(response.body, cap);
      const type = response.headers['content-type'];
      return { bytes, contentType: Array.isArray(type) ? type[0] : type };
    }
  } catch (error) {
    if (limits.signal?.aborted) throw new FetchAbortedError('the fetch was stopped');
    if (error instanceof InvalidInputError) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof InvalidInputError) throw cause;
    if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError')
      throw new FetchTimeoutError(`the URL did not answer within ${limits.timeoutMs / 1000} s`, 'url');
    throw new FetchFailedError(`cannot fetch the URL: ${(error as Error).message}`, 'url');
  } finally {
    timer.clear();
    // Closing waits for a connection attempt in flight (a DNS lookup): once the fetch is over
    // its time or stopped, the agent is destroyed without waiting for it.
    if (deadline.aborted) void agent.destroy().catch(() => {});
    else await agent.close();
  }
}

/** Downloads `url` to `target` within the limits (see fetchInto). */
export async function fetchToFile(
  url: string,
  target: string,
  limits: FetchLimits,
): Promise<{ bytes: number; contentType: string | undefined }> {
  return fetchInto(url, limits, (body, cap) => pipeline(body, cap, fs.createWriteStream(target)));
}

/** Downloads `url` into memory within the limits (images: MAX_IMAGE_BYTES). */
export async function fetchToBuffer(url: string, limits: FetchLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await fetchInto(url, limits, (body, cap) =>
    pipeline(
      body,
      cap,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      }),
    ),
  );
  return Buffer.concat(chunks);
}
