import type { Command } from 'commander';
import { printResult } from '../output.js';
import { collect, withTokens } from '../command-context.js';

/** `vitrine token create|list|revoke`. */
export function registerTokenCommands(program: Command): void {
  const token = program.command('token').description('API tokens');
  token
    .command('create')
    .description('issue another token for a workspace, or a publishable key (--scope search) for storefronts')
    .requiredOption('--workspace <id>', 'workspace id')
    .option(
      '--scope <scope>',
      'full: every endpoint of every store of the workspace; search: a publishable key for the shopper endpoints of --store',
      'full',
    )
    .option('--store <uuid>', 'a store the publishable key works for, repeatable (--scope search)', collect, [])
    .option('--json', 'print one JSON object')
    .action(async (options: { workspace: string; scope: string; store: string[]; json?: boolean }) => {
      const created = await withTokens((tokens) =>
        tokens.createToken(options.workspace, { scope: options.scope, storeIds: options.store }),
      );
      printResult(!!options.json, created, [
        `token_id:  ${created.token_id}`,
        `api_token: ${created.api_token}`,
        ...(created.scope === 'search'
          ? [
              `A publishable key for ${created.store_uuids!.join(', ')}: search, search by photo, similar, complementary, collections, store details only.`,
            ]
          : []),
        'The token is shown only once.',
      ]);
    });
  token
    .command('list')
    .description("a workspace's tokens and publishable keys, newest first (never the token itself)")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'print one JSON array')
    .action(async (options: { workspace: string; json?: boolean }) => {
      const listed = await withTokens((tokens) => tokens.listTokens(options.workspace));
      printResult(
        !!options.json,
        listed,
        listed.map(
          (t) =>
            `${t.token_id}  ${t.scope === 'search' ? `publishable key for ${t.store_uuids!.join(', ')}` : 'workspace token'}  created ${t.created_at}${t.revoked_at ? `  revoked ${t.revoked_at}` : ''}`,
        ),
      );
    });
  token
    .command('revoke')
    .description('revoke a token at once')
    .argument('<token_id>', 'the token id printed by token create')
    .option('--json', 'print one JSON object')
    .action(async (tokenId: string, options: { json?: boolean }) => {
      const revoked = await withTokens((tokens) => tokens.revokeToken(tokenId));
      printResult(!!options.json, revoked, `token ${tokenId} revoked`);
    });
}
