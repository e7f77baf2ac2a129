import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPost {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { delivery_id: string; store_uuid: string; replay: boolean; events: Array<Record<string, any>> };
}

/** How the receiver answers one POST: a status, a status with headers, or never ('hang'). */
export type Answer = number | { status: number; headers: Record<string, string> } | 'hang';

/** A webhook receiver on 127.0.0.1 that records every POST; it can go down and come back on the same port. */
export interface Receiver {
  url: string;
  /** POSTs answered 2xx (what the receiver accepted). */
  posts: ReceivedPost[];
  /** Every POST that arrived, whatever the answer. */
  calls: number;
  /** Every event received, in arrival order (duplicates included). */
  events(): Array<Record<string, any>>;
  /** `call`: 0 for the first POST that arrived, 1 for the second, … */
  answer: (post: ReceivedPost, call: number) => Answer | Promise<Answer>;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const sockets = new Set<import('node:net').Socket>();
  let port = 0;
  const receiver: Receiver = {
    url: '',
    posts: [],
    calls: 0,
    events: () => receiver.posts.flatMap((post) => post.json.events),
    answer: () => 200,
    down: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
    up: () => new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve())),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
  const respond = async (req: http.IncomingMessage, body: string, res: http.ServerResponse) => {
    if (req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    const post: ReceivedPost = { headers: req.headers, body, json: JSON.parse(body) };
    const answer = await receiver.answer(post, receiver.calls++);
    if (answer === 'hang') return;
    // Only answered POSTs count as received: a timed-out one is sent again.
    const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
    if (status >= 200 && status < 300) receiver.posts.push(post);
    res.writeHead(status, headers).end();
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => void respond(req, body, res));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${port}${path}`;
  return receiver;
}

/** Waits until `condition` holds (polling), or fails saying what it waited for. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
