import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect, json, type TestApp } from '../helpers/test-app.js';
import { product } from '../factories/products.js';

// `if_updated_at` on a product item: a write that applies only to the product as the client read it
// (the console's editor, any client that must not overwrite someone else's change unseen).

const write = (t: TestApp, body: unknown[], method: 'POST' | 'PUT' = 'PUT') =>
  t.request({ method, url: `/v1/products?store_uuid=${t.store.store_uuid}`, payload: body });

async function read(t: TestApp, code: string): Promise<Record<string, any> | undefined> {
  const res = await t.request({
    method: 'GET',
    url: `/v1/products?store_uuid=${t.store.store_uuid}&product_code=${code}`,
  });
  return json(res).data.products[0];
}

async function latestSequence(t: TestApp): Promise<number> {
  const res = await t.request({ method: 'GET', url: `/v1/changes?store_uuid=${t.store.store_uuid}&limit=1` });
  return json(res).data.latest_sequence;
}

describeEachDialect('product writes with if_updated_at', (ctx) => {
  it('applies a write made against the product as stored, and fails one made against an older read as conflict', async () => {
    const t = ctx();
    await write(t, [product('C1')], 'POST');
    const seen = (await read(t, 'C1'))!;
    await new Promise((resolve) => setTimeout(resolve, 5)); // another updated_at
    const first = json(await write(t, [{ product_code: 'C1', Category: 'Tops', if_updated_at: seen.updated_at }])).data;
    assert.deepEqual([first.updated, first.failed], [1, 0]);
    const after = (await read(t, 'C1'))!;
    assert.equal(after.Category, 'Tops');
    assert.equal('if_updated_at' in after, false, 'a precondition is never stored');

    // A second editor who read the product before the first one saved.
    const before = await latestSequence(t);
    const stale = json(
      await write(t, [{ product_code: 'C1', Category: 'Dresses', if_updated_at: seen.updated_at }]),
    ).data;
    assert.deepEqual([stale.updated, stale.failed], [0, 1]);
    assert.equal(stale.error_info[0].reason, 'conflict');
    assert.match(stale.error_info[0].details, new RegExp(`updated_at is ${after.updated_at}`));
    assert.equal((await read(t, 'C1'))!.Category, 'Tops', 'nothing overwritten');
    assert.equal(await latestSequence(t), before, 'nothing in the change feed');
  });

  it('creates with if_updated_at null only when the code is free, and never creates for a stale read', async () => {
    const t = ctx();
    const created = json(await write(t, [{ ...product('N1'), if_updated_at: null }], 'POST')).data;
    assert.deepEqual([created.inserted, created.failed], [1, 0]);
    const taken = json(await write(t, [{ ...product('N1', { Category: 'Coats' }), if_updated_at: null }], 'POST')).data;
    assert.equal(taken.error_info[0].reason, 'conflict');
    assert.equal((await read(t, 'N1'))!.Category, 'Shirts');
    // A precondition on a product that is gone: a conflict on POST (no re-creation) and on PUT.
    const gone = json(await write(t, [{ ...product('N2'), if_updated_at: '2026-01-01T00:00:00.000Z' }], 'POST')).data;
    assert.deepEqual([gone.inserted, gone.error_info[0].reason], [0, 'conflict']);
    assert.equal(await read(t, 'N2'), undefined);
    const put = json(
      await write(t, [{ product_code: 'N2', Category: 'x', if_updated_at: '2026-01-01T00:00:00.000Z' }]),
    ).data;
    assert.equal(put.error_info[0].reason, 'conflict');
  });

  it('lets exactly one of two concurrent writes made against the same read through', async () => {
    const t = ctx();
    await write(t, [product('R1')], 'POST');
    const seen = (await read(t, 'R1'))!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const answers = await Promise.all(
      ['Tops', 'Coats'].map(
        async (Category) =>
          json(await write(t, [{ product_code: 'R1', Category, if_updated_at: seen.updated_at }])).data,
      ),
    );
    assert.deepEqual(answers.map((a) => a.updated).sort(), [0, 1]);
    const winner = answers.findIndex((a) => a.updated === 1);
    assert.equal((await read(t, 'R1'))!.Category, ['Tops', 'Coats'][winner]);
  });

  it('names if_updated_at when it is neither a string nor null', async () => {
    const t = ctx();
    await write(t, [product('B1')], 'POST');
    const bad = json(await write(t, [{ product_code: 'B1', Category: 'x', if_updated_at: 42 }])).data;
    assert.equal(bad.error_info[0].reason, 'invalid_field');
    assert.match(bad.error_info[0].details, /^if_updated_at must be/);
  });
});
