import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { jsonDepth } from '../../src/http/request-guards.js';
import { MAX_JSON_DEPTH } from '../../src/catalog/limits.js';

/** A raw HTTP exchange on a real port: what Node answers before Fastify sees the request. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describeEachDialect('hostile input gets a 4xx in the interface shapes, never a 5xx', (ctx) => {
  it('refuses non-finite offsets and limits on every listing, naming the parameter', async () => {
    const t = ctx();
    const s = t.store.store_uuid;
    for (const path of [
      `/v1/products/status?store_uuid=${s}&offset=Infinity`,
      `/v1/products/status?store_uuid=${s}&limit=-Infinity`,
      `/v1/products?store_uuid=${s}&offset=1e400`,
      `/v1/search?store_uuid=${s}&query=a&offset=Infinity`,
      `/v1/search?store_uuid=${s}&query=a&limit=Infinity`,
      `/v1/collection?store_uuid=${s}&offset=Infinity`,
      `/v1/changes?store_uuid=${s}&after=Infinity`,
    ]) {
      const res = await t.request({ method: 'GET', url: path });
      assert.equal(res.statusCode, 422, path);
      assert.match(json(res).detail, /query parameter '(offset|limit|after)' must be a finite number/, path);
      assert.ok(res.headers['x-request-id']);
    }
    const assets = await t.request({ method: 'GET', url: `/v1/assets?store_uuid=${s}&offset=Infinity` });
    assert.equal(assets.statusCode, 400, 'the asset endpoints answer validation errors with 400');
    assert.equal(json(assets).status.code, -1);
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels before parsing it`, async () => {
    const t = ctx();
    const deepArray = '['.repeat(10_000) + ']'.repeat(10_000);
    const deepObject = `[${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}]`;
    for (const [url, payload] of [
      [`/v1/products?store_uuid=${t.store.store_uuid}`, deepArray],
      [`/v1/products?store_uuid=${t.store.store_uuid}`, deepObject],
      [`/v1/collection?store_uuid=${t.store.store_uuid}`, deepObject],
    ]) {
      const res = await t.request({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 400, url);
      assert.match(json(res).detail, /nested deeper than 64 levels/);
    }
    const assets = await t.request({
      method: 'POST',
      url: `/v1/assets?store_uuid=${t.store.store_uuid}`,
      payload: deepArray,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(assets.statusCode, 400);
    assert.match(json(assets).data.error_info[0].details, /nested deeper/);
    // Nesting within the limit, with brackets inside strings, is fine.
    const fine = await t.request({
      method: 'POST',
      url: `/v1/products?store_uuid=${t.store.store_uuid}`,
      payload: [
        { product_code: 'ok1', 'Product Name': '[[[{{{ "quoted" \\" ]]]', Category: 'Shirts', 'Selling Price': '5' },
      ],
    });
    assert.equal(fine.statusCode, 200);
  });

  it('answers a malformed multipart body with 400', async () => {
    const t = ctx();
    const multipart = { 'content-type': 'multipart/form-data; boundary=xyz' };
    const unclosed =
      '--xyz\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\nabc';
    for (const [url, payload] of [
      [`/v1/visual-search?store_uuid=${t.store.store_uuid}`, 'random bytes, no boundary at all'],
      [`/v1/visual-search?store_uuid=${t.store.store_uuid}`, unclosed],
      [`/v1/media?store_uuid=${t.store.store_uuid}`, unclosed.replace('"image"', '"file"')],
    ]) {
      const res = await t.request({ method: 'POST', url, payload, headers: multipart });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(json(res).detail, /malformed multipart\/form-data body/);
    }
  });
});

describe('framework and Node refusals, on a real port', () => {
  let t: TestApp;
  let port = 0;
  before(async () => {
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  it('an invalid percent-encoding: 400 in the detail shape with a request id', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/collection/%ff%fe/products?store_uuid=x`, {
      headers: { authorization: `Bearer ${t.store.api_token}` },
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { detail: string; request_id: string };
    assert.match(body.detail, /percent-encoded/);
    assert.equal(res.headers.get('x-request-id'), body.request_id);
  });

  it('a path parameter over 200 characters: 414 in the envelope', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/collection/${'c'.repeat(300)}/products?store_uuid=x`);
    assert.equal(res.status, 414);
    const body = (await res.json()) as { status: { code: number; request_id: string } };
    assert.equal(body.status.code, -1);
    assert.equal(res.headers.get('x-request-id'), body.status.request_id);
  });

  it('headers over 16 KB: 431 in the envelope, and a malformed request: 400', async () => {
    const big = await raw(
      port,
      `GET /v1/stores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'x'.repeat(20_000)}\r\n\r\n`,
    );
    assert.match(big, /^HTTP\/1\.1 431 /);
    const envelope = bodyOf(big);
    assert.equal(envelope.status.code, -1);
    assert.match(big, new RegExp(`X-Request-Id: ${envelope.status.request_id}`));
    const garbage = await raw(port, 'THIS IS NOT HTTP\r\n\r\n');
    assert.match(garbage, /^HTTP\/1\.1 400 /);
    assert.ok(bodyOf(garbage).request_id);
  });
});

describe('jsonDepth', () => {
  it('counts nesting outside strings and stops past the limit', () => {
    assert.equal(jsonDepth('{"a":[1,{"b":2}]}'), 3);
    assert.equal(jsonDepth('["[[[[", "\\"[{"]'), 1);
    assert.equal(jsonDepth('1'), 0);
    assert.equal(jsonDepth('['.repeat(1000), 10), 11);
  });
});
