import http from 'node:http';
import zlib from 'node:zlib';
import sharp from 'sharp';

/** Synthetic product photos (drawn at test time: no image files in the repository). */
export function drawShape(
  shape: 'circle' | 'square' | 'stripes' | 'triangle',
  colour: string,
  size = 224,
): Promise<Buffer> {
  const body = {
    circle: `<circle cx="112" cy="112" r="80" fill="${colour}"/>`,
    square: `<rect x="40" y="40" width="144" height="144" fill="${colour}"/>`,
    stripes: [0, 1, 2, 3, 4, 5, 6]
      .map((i) => `<rect x="0" y="${i * 32}" width="224" height="16" fill="${colour}"/>`)
      .join(''),
    triangle: `<polygon points="112,24 200,200 24,200" fill="${colour}"/>`,
  }[shape];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="224" height="224"><rect width="224" height="224" fill="white"/>${body}</svg>`;
  return sharp(Buffer.from(svg)).resize(size, size).jpeg({ quality: 90 }).toBuffer();
}

/** A PNG whose header claims width × height pixels, with almost no pixel data (a decompression bomb's header). */
export function pngHeaderOnly(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(1000))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** multipart/form-data for inject(). */
export async function imageForm(fields: Array<{ name: string; data: Buffer | string; filename?: string }>) {
  const form = new FormData();
  for (const field of fields) {
    if (field.filename)
      form.append(
        field.name,
        new Blob([typeof field.data === 'string' ? field.data : new Uint8Array(field.data)]),
        field.filename,
      );
    else form.append(field.name, String(field.data));
  }
  const request = new Request('http://local/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type')! },
  };
}

export interface ImageServer {
  base: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** A local HTTP server for catalogue images, with misbehaving routes (404, slow, endless, redirects). */
export async function startImageServer(images: Map<string, Buffer>): Promise<ImageServer> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const image = images.get(url);
    if (image) {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.end(image);
      return;
    }
    if (url === '/slow') {
      setTimeout(() => {
        res.writeHead(200);
        res.end('late');
      }, 5_000).unref();
      return;
    }
    if (url === '/endless') {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = () => {
        while (res.write(chunk)) {
          /* until the socket pushes back */
        }
      };
      res.on('drain', pump);
      pump();
      return;
    }
    if (url.startsWith('/redirect-to/')) {
      res.writeHead(302, { location: decodeURIComponent(url.slice('/redirect-to/'.length)) });
      res.end();
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
