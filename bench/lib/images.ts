import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { SHARED } from './harness.js';
import { fashionMnist } from '../../training/datasets.js';

export const FASHION_IMAGES = path.join(SHARED, 'datasets/fashion-images');

export interface LabelledPhoto {
  id: string;
  file: string;
  type: string;
  colour: string;
  gender: string;
}

export function readPhotoLabels(): LabelledPhoto[] {
  const lines = fs.readFileSync(path.join(FASHION_IMAGES, 'labels.csv'), 'utf8').trim().split('\n').slice(1);
  return lines.map((line) => {
    const [id, filename, articleType, baseColour, gender] = line.split(',');
    return { id, file: path.join(FASHION_IMAGES, filename), type: articleType, colour: baseColour, gender };
  });
}

/** Fashion-MNIST test images as 28×28 PNGs (grey), with their labels. */
export function readFashionMnist(count: number): Promise<Array<{ png: Buffer; label: number }>> {
  return fashionMnist('t10k', count);
}

/** Serves `bodyOf(path)` on 127.0.0.1 (the catalogue's image host during a benchmark). */
export async function serveImages(
  bodyOf: (urlPath: string) => Buffer | undefined,
): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const body = bodyOf(req.url ?? '');
    if (!body) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** multipart/form-data body with one `image` field. */
export async function multipartImage(image: Buffer, filename = 'photo.jpg') {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(image)]), filename);
  const request = new Request('http://local/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}
