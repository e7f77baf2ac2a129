import type { Command } from 'commander';
import { printResult } from '../output.js';
import { withContainer } from '../command-context.js';

/** `vitrine analytics search|products`: what shoppers search for and which products draw them. */
export function registerAnalyticsCommands(program: Command): void {
  const analytics = program.command('analytics').description('what shoppers search for and do (from shopper events)');
  const period = (command: Command) =>
    command
      .requiredOption('--store <uuid>', 'store uuid')
      .option('--from <day>', 'first day, YYYY-MM-DD (default: 6 days before --to)')
      .option('--to <day>', 'last day, YYYY-MM-DD (default: today)')
      .option('--json', 'print one JSON object');
  type Options = { store: string; from?: string; to?: string; json?: boolean };
  period(
    analytics.command('search').description('top queries, queries that found nothing, queries nobody clicks'),
  ).action(async (options: Options) => {
    const report = await withContainer(async (c) =>
      c.events.searchAnalytics(await c.stores.getStore(options.store), options.from, options.to),
    );
    const lines = [
      `search, ${report.from} to ${report.to}`,
      'top queries (searches, clicks, click-through, conversions):',
      ...report.top_queries.map(
        (q) => `  ${q.query}  ${q.searches}  ${q.clicks}  ${(q.click_through * 100).toFixed(1)} %  ${q.conversions}`,
      ),
      'no results:',
      ...report.zero_result_queries.map((q) => `  ${q.query}  ${q.searches}`),
      'nobody clicks:',
      ...report.unclicked_queries.map((q) => `  ${q.query}  ${q.searches}`),
    ];
    printResult(!!options.json, report, lines.join('\n'));
  });
  period(analytics.command('products').description('trending products, and the most viewed that nobody bought')).action(
    async (options: Options) => {
      const report = await withContainer(async (c) =>
        c.events.productAnalytics(await c.stores.getStore(options.store), options.from, options.to),
      );
      const lines = [
        `products, ${report.from} to ${report.to}`,
        'trending:',
        ...report.trending.map((p) => `  ${p.product_code}  ${p.trend}`),
        'viewed, not bought (views, clicks, carts):',
        ...report.viewed_not_bought.map((p) => `  ${p.product_code}  ${p.views}  ${p.clicks}  ${p.carts}`),
      ];
      printResult(!!options.json, report, lines.join('\n'));
    },
  );
}
