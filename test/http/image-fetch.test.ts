import assert from 'node:assert/strict';
import dns from 'node:dns';
import { after, before, describe, it } from 'node:test';
import { FetchAbortedError, fetchToBuffer, FetchRefusedError } from '../../src/net/safe-fetch.js';
import { IMAGE_FETCH_LIMITS } from '../../src/modules/visual/image-worker.js';
import { describeEachDialect, json } from '../helpers/test-app.js';
import { drawShape, startImageServer, type ImageServer } from '../helpers/images.js';
import { ADMIN_TOKEN, adminHeaders } from '../factories/admin.js';

let server: ImageServer;
before(async () => {
  server = await startImageServer(new Map([['/ok.jpg', await drawShape('circle', 'red')]]));
});
after(async () => {
  await server.close();
});

const closed = { ...IMAGE_FETCH_LIMITS, allowPrivate: false };
const open = { ...IMAGE_FETCH_LIMITS, allowPrivate: true };

describe('image fetching (CONTRACT §8)', () => {
  it('refuses loopback, private, link-local and metadata addresses, by literal and by resolved name', async () => {
    const port = new URL(server.base).port;
    for (const url of [
      `http://127.0.0.1:${port}/ok.jpg`,
      'http://10.0.0.7/a.jpg',
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${port}/ok.jpg`,
      `http://[::1]:${port}/ok.jpg`,
      'http://192.168.1.20/a.jpg',
    ]) {
      await assert.rejects(fetchToBuffer(url, closed), FetchRefusedError, url);
    }
    assert.equal(server.hits.get('/ok.jpg') ?? 0, 0, 'nothing reached the local server');
  });

  it('re-checks every redirect: a hop to a refused address is refused, and at most 3 redirects are followed', async () => {
    const target = encodeURIComponent(`${server.base}/ok.jpg`);
    const followed = await fetchToBuffer(`${server.base}/redirect-to/${target}`, open);
    assert.ok(followed.length > 100);
    // 127.0.0.1 (the first hop) stands for a public server here; the redirect goes to another loopback address.
    const onlyOther = { ...closed, refuseAddress: (address: string) => address !== '127.0.0.1' };
    const port = new URL(server.base).port;
    await assert.rejects(
      fetchToBuffer(`${server.base}/redirect-to/${encodeURIComponent(`http://127.0.0.2:${port}/ok.jpg`)}`, onlyOther),
      FetchRefusedError,
    );
    await assert.rejects(
      fetchToBuffer(
        `${server.base}/redirect-to/${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
        onlyOther,
      ),
      FetchRefusedError,
    );
    let chain = `${server.base}/ok.jpg`;
    for (let i = 0; i < 4; i++) chain = `${server.base}/redirect-to/${encodeURIComponent(chain)}`;
    await assert.rejects(fetchToBuffer(chain, open), /more than 3 redirects/);
  });

  it('stops at the size and time limits, and reports a 404', async () => {
    await assert.rejects(
      fetchToBuffer(`${server.base}/endless`, { ...open, maxBytes: 1024 * 1024 }),
      /larger than 1048576 bytes/,
    );
    await assert.rejects(fetchToBuffer(`${server.base}/endless`, open), /larger than 10485760 bytes/);
    const started = Date.now();
    await assert.rejects(
      fetchToBuffer(`${server.base}/slow`, { ...open, timeoutMs: 300 }),
      /did not answer within 0.3 s/,
    );
    assert.ok(Date.now() - started < 2000);
    await assert.rejects(fetchToBuffer(`${server.base}/missing.jpg`, open), /HTTP 404/);
  });

  it('ends at its time limit or when stopped even while the name is still resolving (a resolver that does not answer)', async (t) => {
    // A lookup cannot be cancelled: this one answers after 3 s, as a resolver retrying after its 5 s timeout would.
    const lookup = dns.lookup;
    t.after(() => {
      dns.lookup = lookup;
    });
    const slowLookup = (...args: unknown[]) => setTimeout(() => (lookup as (...a: unknown[]) => void)(...args), 3000);
    dns.lookup = slowLookup as unknown as typeof dns.lookup;
    const url = `http://slow-resolver.test:${new URL(server.base).port}/ok.jpg`;
    let started = Date.now();
    await assert.rejects(fetchToBuffer(url, { ...open, timeoutMs: 300 }), /did not answer within 0.3 s/);
    assert.ok(Date.now() - started < 1500, `the time limit held (${Date.now() - started} ms)`);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    started = Date.now();
    await assert.rejects(fetchToBuffer(url, { ...open, signal: stop.signal }), FetchAbortedError);
    assert.ok(Date.now() - started < 1500, `the stop ended it at once (${Date.now() - started} ms)`);
  });
});

describeEachDialect(
  'image pipeline with private fetch off',
  (ctx) => {
    it('records a refused catalogue image as failed at once, with its reason', async () => {
      const t = ctx();
      const port = new URL(server.base).port;
      const urls = [
        `http://127.0.0.1:${port}/ok.jpg`,
        'http://10.1.2.3/a.jpg',
        'http://169.254.169.254/latest/meta-data/',
        `http://localhost:${port}/ok.jpg`,
      ];
      const payload = urls.map((url, i) => ({
        product_code: `R${i}`,
        'Product Name': 'Refused',
        Category: 'Tops',
        'Selling Price': '5',
        'Image URL 1': url,
      }));
      await t.request({ method: 'POST', url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload });
      await t.container.imageCatalog.catchUp(t.store.store_uuid);
      await t.container.imageWorker.drain();
      const status = json(
        await t.request({
          method: 'GET',
          url: `/admin/v1/stores/${t.store.store_uuid}/images`,
          token: null,
          headers: adminHeaders,
        }),
      ).data;
      assert.equal(status.failed, 4);
      for (const failure of status.failures) {
        assert.equal(failure.attempts, 1, 'a refused address is not retried');
        assert.match(failure.error, /refused to fetch/);
      }
    });
  },
  { allowPrivateFetch: false, adminToken: ADMIN_TOKEN },
);
