import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVitrineClient, unwrap, VitrineError, type VitrineClient } from '../../clients/typescript/src/index.js';
import { cliDatabase, jsonOf, runCli } from '../helpers/cli.js';
import { DIALECTS, POSTGRES_SKIP } from '../helpers/backends.js';
import { drawShape } from '../helpers/images.js';
import { startServe, type ServedVitrine } from '../helpers/serve.js';
import { ADMIN_TOKEN } from '../factories/admin.js';

for (const dialect of DIALECTS) {
  describe(
    `@vitrine/client against vitrine serve (${dialect})`,
    { skip: dialect === 'postgres' && POSTGRES_SKIP },
    () => {
      let served: ServedVitrine | undefined;
      // Registered first so it runs first: the server goes before its database is dropped.
      after(() => served?.stop());
      const database = cliDatabase(dialect);
      let client: VitrineClient;
      let store: string;

      before(async () => {
        assert.equal(runCli(database(), ['migrate']).status, 0);
        const created = jsonOf(
          runCli(database(), ['store', 'create', '--workspace-name', 'Client', '--name', 'Shop', '--json']),
        );
        store = created.store_uuid;
        served = await startServe(database(), { VITRINE_ADMIN_TOKEN: ADMIN_TOKEN });
        client = createVitrineClient({ baseUrl: served.url, token: created.api_token });
      });

      it('writes and reads products with the generated types', async () => {
        const written = await unwrap(
          client.api.POST('/v1/products', {
            params: { query: { store_uuid: store } },
            body: [
              {
                product_code: 'RED-1',
                'Product Name': 'Red Summer Dress',
                Category: 'Dresses',
                'Selling Price': '49.90',
              },
              {
                product_code: 'BLUE-1',
                'Product Name': 'Blue Denim Jacket',
                Category: 'Jackets',
                'Selling Price': '89',
                'Image URL 1': 'http://127.0.0.1:9/blue.jpg',
              },
            ],
          }),
        );
        assert.equal(written.inserted, 2);
        const listed = await unwrap(client.api.GET('/v1/products', { params: { query: { store_uuid: store } } }));
        assert.deepEqual(
          listed.products.map((product) => product.product_code),
          ['BLUE-1', 'RED-1'],
        );
        const statuses = await unwrap(
          client.api.GET('/v1/products/status', { params: { query: { store_uuid: store, limit: 10 } } }),
        );
        assert.equal(statuses.data[0]['BLUE-1'].status, 'new');
        assert.equal(statuses.data[1]['RED-1'].status, 'problem'); // no image yet: Missing images
      });

      it('searches text once the search follower has indexed the writes', async () => {
        let hits: Array<{ product_code: string }> = [];
        for (let attempt = 0; attempt < 50 && hits.length === 0; attempt++) {
          hits = await unwrap(
            client.api.GET('/v1/search', { params: { query: { store_uuid: store, query: 'denim' } } }),
          );
          if (hits.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(hits[0]?.product_code, 'BLUE-1');
      });

      it('tracks shopper events, counting a retry once', async () => {
        const events = [{ event_id: 'c1', type: 'view', product_code: 'BLUE-1', session_id: 's' }];
        assert.deepEqual(await client.trackEvents(store, events), {
          accepted: 1,
          duplicate: 0,
          rejected: 0,
          error_info: [],
        });
        assert.equal((await client.trackEvents(store, events)).duplicate, 1);
      });

      it('uploads a photo, indexes it, and finds the product by that photo', async () => {
        const photo = await drawShape('circle', '#c0142a');
        const uploaded = await client.uploadMedia(store, [
          { name: 'red.jpg', data: new Blob([new Uint8Array(photo)]) },
        ]);
        assert.equal(uploaded.uploaded, 1);
        await unwrap(
          client.api.PUT('/v1/products', {
            params: { query: { store_uuid: store } },
            body: [{ product_code: 'RED-1', 'Image URL 1': uploaded.files[0].url }],
          }),
        );
        let hits: Array<{ product_code: string; image_url: string }> = [];
        for (let attempt = 0; attempt < 100 && hits.length === 0; attempt++) {
          hits = await client.searchByPhoto(store, new Blob([new Uint8Array(photo)]), { limit: 5 });
          if (hits.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
        }
        assert.equal(hits[0]?.product_code, 'RED-1');
        assert.equal(hits[0].image_url, uploaded.files[0].url);
      });

      it('manages a collection and lists its members', async () => {
        const created = await unwrap(
          client.api.POST('/v1/collection', {
            params: { query: { store_uuid: store } },
            body: [{ id: 'dresses', name: 'Dresses', filters: { Category: 'Dresses' }, status: 'active' }],
          }),
        );
        assert.deepEqual(created.ids, ['dresses']);
        let members = { total: 0, products: [] as Array<{ product_code: string }> };
        for (let attempt = 0; attempt < 50 && members.total === 0; attempt++) {
          members = await unwrap(
            client.api.GET('/v1/collection/{id}/products', {
              params: { path: { id: 'dresses' }, query: { store_uuid: store } },
            }),
          );
          if (members.total === 0) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.deepEqual(
          members.products.map((product) => product.product_code),
          ['RED-1'],
        );
      });

      it('turns error answers into VitrineError with the status, the message and the request id', async () => {
        const unknownStore = await unwrap(
          client.api.GET('/v1/stores', { params: { query: { store_uuid: '00000000-0000-0000-0000-000000000000' } } }),
        ).catch((error: unknown) => error);
        assert.ok(unknownStore instanceof VitrineError);
        assert.equal(unknownStore.status, 404);
        assert.match(unknownStore.message, /store not found/);
        assert.match(unknownStore.requestId ?? '', /^[0-9a-f-]{36}$/);

        const tooMany = await unwrap(
          client.api.GET('/v1/search', { params: { query: { store_uuid: store, query: 'dress', limit: 500 } } }),
        ).catch((error: unknown) => error);
        assert.ok(tooMany instanceof VitrineError);
        assert.equal(tooMany.status, 422);
        assert.match(tooMany.message, /limit/);

        const wrongToken = createVitrineClient({ baseUrl: served!.url, token: 'vt_nope' });
        const refused = await unwrap(
          wrongToken.api.GET('/v1/stores', { params: { query: { store_uuid: store } } }),
        ).catch((error: unknown) => error);
        assert.ok(refused instanceof VitrineError);
        assert.equal(refused.status, 401);
      });

      it('calls the operator API with the admin token', async () => {
        const admin = createVitrineClient({ baseUrl: served!.url, token: ADMIN_TOKEN });
        const stores = await unwrap(admin.api.GET('/admin/v1/stores'));
        assert.ok(stores.some((listed) => listed.store_uuid === store));
      });
    },
  );
}
