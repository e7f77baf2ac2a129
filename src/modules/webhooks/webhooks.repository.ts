import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { WebhookDeliveriesTable, WebhookSubscriptionsTable } from '../../storage/schema.js';

export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export async function insertSubscription(db: Db, row: SubscriptionRow) {
  await db.insertInto('webhook_subscriptions').values(row).execute();
}

export function findSubscription(db: Db, id: string) {
  return db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function subscriptionsOfStore(db: Db, storeId: string) {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateSubscription(db: Db, id: string, values: Partial<SubscriptionRow>) {
  await db.updateTable('webhook_subscriptions').set(values).where('id', '=', id).execute();
}

export async function deleteSubscription(db: Db, id: string) {
  await db.deleteFrom('webhook_deliveries').where('subscription_id', '=', id).execute();
  const result = await db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Updates a subscription only while `owner` holds its lease; false when the lease was lost. */
export async function updateLeased(db: Db, id: string, owner: string, values: Partial<SubscriptionRow>) {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set(values)
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertDelivery(db: Db, row: DeliveryRow) {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

export function deliveriesOf(db: Db, subscriptionId: string, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Keeps the newest `keep` log entries of a subscription. */
export async function trimDeliveries(db: Db, subscriptionId: string, keep: number) {
  const boundary = await db
    .selectFrom('webhook_deliveries')
    .select(['at'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('at', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst();
  if (boundary)
    await db
      .deleteFrom('webhook_deliveries')
      .where('subscription_id', '=', subscriptionId)
      .where('at', '<=', boundary.at)
      .execute();
}

/** Subscriptions by health (active, failing: active with failed attempts, disabled), all stores (/metrics). */
export async function countByHealth(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .select(['state', 'attempts', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy(['state', 'attempts'])
    .execute();
  const counts: Record<string, number> = { active: 0, failing: 0, disabled: 0 };
  for (const row of rows) {
    const health = row.state === 'disabled' ? 'disabled' : row.attempts > 0 ? 'failing' : 'active';
    counts[health] += Number(row.n);
  }
  return counts;
}

/** Changes not yet delivered, summed over the active subscriptions (/metrics). */
export async function backlog(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_subscriptions as w')
    .innerJoin('stores as s', 's.id', 'w.store_id')
    .select((eb) => eb.fn.sum<number>(eb('s.change_seq', '-', eb.ref('w.cursor_seq'))).as('behind'))
    .where('w.state', '=', 'active')
    .executeTakeFirst();
  return Math.max(0, Number(row?.behind ?? 0));
}
