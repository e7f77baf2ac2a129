// Type-level tests of the generated client: `npm run typecheck` fails when a call marked as an
// expected error compiles, i.e. when the client stops refusing a call the API would refuse.
import { createVitrineClient } from '../../clients/typescript/src/index.js';

export async function wrongCallsDoNotCompile() {
  const { api } = createVitrineClient({ baseUrl: 'http://127.0.0.1:8080', token: 'vt_x' });
  // @ts-expect-error limit is an integer, not a string
  await api.GET('/v1/search', { params: { query: { store_uuid: 's', query: 'dress', limit: 'ten' } } });
  // @ts-expect-error store_uuid is required
  await api.GET('/v1/search', { params: { query: { query: 'dress' } } });
  // @ts-expect-error no such path
  await api.GET('/v1/serach', { params: { query: { store_uuid: 's' } } });
  // @ts-expect-error the products body is an array of products
  await api.POST('/v1/products', { params: { query: { store_uuid: 's' } }, body: { product_code: 'A' } });
  // @ts-expect-error DELETE /v1/search does not exist
  await api.DELETE('/v1/search', {});
  // Optional parameters are optional: offset and limit have defaults.
  await api.GET('/v1/search', { params: { query: { store_uuid: 's', query: 'dress' } } });
}
