import http from 'node:http';

/** One request of a load mix: its route name (for per-route figures) and what to send. */
export interface MixRequest {
  route: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: string;
  /** Called with the answer's status and body (events, writes: what the bench checks at the end). */
  onAnswer?: (status: number, body: string) => void;
}

export interface RouteFigures {
  count: number;
  p50: number;
  p99: number;
  serverErrors: number;
  failures: number;
}

export interface LoadWindow {
  seconds: number;
  sent: number;
  completed: number;
  /** Requests not sent because MAX_IN_FLIGHT were already waiting (the server fell behind). */
  shed: number;
  serverErrors: number;
  /** Socket errors and timeouts. */
  failures: number;
  routes: Map<string, RouteFigures>;
  examples: string[];
}

const MAX_IN_FLIGHT = 512;

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/**
 * A load generator for mixed traffic over kept-alive sockets. `rate` given: open loop (requests
 * leave on schedule whether or not earlier ones have answered, as shoppers do; latency includes any
 * queueing), in ticks of 10 ms. `rate` absent: closed loop at full speed with `connections` callers
 * (capacity). Latency per route in ms.
 */
export async function runLoad(options: {
  base: string;
  headers: Record<string, string>;
  next: () => MixRequest;
  seconds: number;
  rate?: number;
  connections?: number;
}): Promise<LoadWindow> {
  const url = new URL(options.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections ?? 64 });
  const latencies = new Map<string, number[]>();
  const window: LoadWindow = {
    seconds: options.seconds,
    sent: 0,
    completed: 0,
    shed: 0,
    serverErrors: 0,
    failures: 0,
    routes: new Map(),
    examples: [],
  };
  const perRoute = (route: string) => {
    let figures = window.routes.get(route);
    if (!figures) {
      figures = { count: 0, p50: 0, p99: 0, serverErrors: 0, failures: 0 };
      window.routes.set(route, figures);
      latencies.set(route, []);
    }
    return figures;
  };
  let inFlight = 0;
  const send = (request: MixRequest) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const figures = perRoute(request.route);
      inFlight++;
      window.sent++;
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: request.method,
          path: request.path,
          agent,
          headers: options.headers,
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            inFlight--;
            const status = res.statusCode ?? 0;
            latencies.get(request.route)!.push(performance.now() - started);
            figures.count++;
            window.completed++;
            const body = Buffer.concat(chunks).toString();
            if (status >= 500) {
              window.serverErrors++;
              figures.serverErrors++;
              if (window.examples.length < 5) window.examples.push(`${request.route} ${status} ${body.slice(0, 200)}`);
            } else if (status >= 400 && window.examples.length < 5)
              window.examples.push(`${request.route} ${status} ${body.slice(0, 200)}`);
            request.onAnswer?.(status, body);
            resolve();
          });
        },
      );
      const fail = (error: Error) => {
        inFlight--;
        window.failures++;
        figures.failures++;
        if (window.examples.length < 5) window.examples.push(`${request.route} ${error.message}`);
        resolve();
      };
      req.once('timeout', () => req.destroy(new Error('timeout')));
      req.once('error', fail);
      req.end(request.body);
    });

  const pending = new Set<Promise<void>>();
  const track = (promise: Promise<void>) => {
    pending.add(promise);
    void promise.then(() => pending.delete(promise));
  };
  const deadline = performance.now() + options.seconds * 1000;
  if (options.rate === undefined) {
    const caller = async () => {
      while (performance.now() < deadline) await send(options.next());
    };
    await Promise.all(Array.from({ length: options.connections ?? 32 }, caller));
  } else {
    const start = performance.now();
    let due = 0;
    while (performance.now() < deadline) {
      const target = Math.floor(((performance.now() - start) / 1000) * options.rate);
      for (; due < target; due++) {
        if (inFlight >= MAX_IN_FLIGHT) window.shed++;
        else track(send(options.next()));
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  await Promise.all(pending);
  agent.destroy();
  for (const [route, figures] of window.routes) {
    const sorted = latencies.get(route)!.sort((a, b) => a - b);
    figures.p50 = percentile(sorted, 0.5);
    figures.p99 = percentile(sorted, 0.99);
  }
  return window;
}
