import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on 127.0.0.1: answers 200 at once and notes when each distinct event arrived,
 * its lag (arrival minus the event's commit time) and any event delivered twice.
 */
export async function startWebhookReceiver() {
  const arrivals = new Map<string, number>();
  let posts = 0;
  let duplicates = 0;
  const lags: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { events: Array<{ id: string; time: string }> };
      posts++;
      for (const event of body.events) {
        if (arrivals.has(event.id)) {
          duplicates++;
          continue;
        }
        arrivals.set(event.id, now);
        lags.push(now - Date.parse(event.time));
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    lags,
    stats: () => ({ posts, duplicates }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
