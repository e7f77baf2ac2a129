import type { Command } from 'commander';
import type { WebhookSubscription } from '../../modules/webhooks/webhooks.service.js';
import { printResult } from '../output.js';
import { collect, parseSequence, withWebhooks } from '../command-context.js';

/** `vitrine webhook add|list|remove|enable|replay|deliveries`. */
export function registerWebhookCommands(program: Command): void {
  const webhook = program
    .command('webhook')
    .description('webhook subscriptions: catalog changes pushed to other systems');
  const describeWebhook = (w: WebhookSubscription) =>
    `${w.id}  ${w.state}${w.disabled_reason ? ` (${w.disabled_reason})` : ''}  ${w.url}  cursor ${w.cursor_sequence}${w.attempts > 0 ? `  failing: ${w.attempts} attempts, last ${w.last_error}` : ''}`;
  webhook
    .command('add')
    .description("subscribe a URL to a store's catalog events from now on (the signing secret is shown once)")
    .requiredOption('--store <uuid>', 'store uuid')
    .requiredOption('--url <url>', 'http(s) URL receiving signed JSON POSTs')
    .option('--event <type>', 'an event type such as product.updated, repeatable (default: all)', collect, [])
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; url: string; event: string[]; json?: boolean }) => {
      const created = await withWebhooks((webhooks) =>
        webhooks.create(options.store, { url: options.url, event_types: options.event }),
      );
      printResult(!!options.json, created, [
        `webhook_id: ${created.id}`,
        `secret:     ${created.secret}`,
        `events:     ${created.event_types.join(', ')}`,
        'The secret is shown only once: the receiver checks X-Vitrine-Signature with it.',
      ]);
    });
  webhook
    .command('list')
    .description("a store's webhook subscriptions with their health")
    .requiredOption('--store <uuid>', 'store uuid')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      const list = await withWebhooks((webhooks) => webhooks.list(options.store));
      printResult(!!options.json, { webhooks: list }, list.length > 0 ? list.map(describeWebhook) : 'no webhooks');
    });
  webhook
    .command('remove')
    .description('remove a subscription and its delivery log')
    .argument('<webhook_id>', 'the id printed by webhook add')
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { json?: boolean }) => {
      const removed = await withWebhooks((webhooks) => webhooks.remove(id));
      printResult(!!options.json, removed, `webhook ${id} removed`);
    });
  webhook
    .command('enable')
    .description('re-enable a disabled subscription (it resumes from its cursor)')
    .argument('<webhook_id>', 'the id printed by webhook add')
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { json?: boolean }) => {
      const enabled = await withWebhooks((webhooks) => webhooks.enable(id));
      printResult(!!options.json, enabled, describeWebhook(enabled));
    });
  webhook
    .command('replay')
    .description('deliver a retained range of change sequences again (flagged replay)')
    .argument('<webhook_id>', 'the id printed by webhook add')
    .requiredOption('--from <seq>', 'first sequence', (value) => parseSequence(value))
    .option('--to <seq>', 'last sequence (default: the latest)', (value) => parseSequence(value))
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { from: number; to?: number; json?: boolean }) => {
      const replaying = await withWebhooks((webhooks) => webhooks.replay(id, { from: options.from, to: options.to }));
      printResult(
        !!options.json,
        replaying,
        `webhook ${id} will deliver sequences ${options.from}..${replaying.replay?.upto ?? '?'} again`,
      );
    });
  webhook
    .command('deliveries')
    .description('the delivery log of a subscription, newest first')
    .argument('<webhook_id>', 'the id printed by webhook add')
    .option('--limit <n>', 'how many entries', (value) => parseSequence(value), 20)
    .option('--json', 'print one JSON object')
    .action(async (id: string, options: { limit: number; json?: boolean }) => {
      const log = await withWebhooks((webhooks) => webhooks.deliveries(id, options.limit));
      printResult(
        !!options.json,
        { deliveries: log },
        log.length > 0
          ? log.map(
              (d) =>
                `${d.at}  ${d.outcome}${d.status_code ? ` ${d.status_code}` : ''}  seq ${d.first_sequence}..${d.last_sequence} (${d.events} events${d.replay ? ', replay' : ''})${d.error ? `  ${d.error}` : ''}`,
            )
          : 'no deliveries yet',
      );
    });
}
