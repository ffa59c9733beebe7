import type { Command } from '../command.js';
import { CONTROL_PLANE_FLAGS, controlPlaneFlagsHelp } from './control-plane/flags.js';

/** `svc accounts`: the operator's view of the server's accounts, on the store `svc serve` uses. */
export const accountsCommand: Command = {
  name: 'accounts',
  summary: "Create, list and manage the server's accounts (operators)",
  usage: [
    'create --name <name> [--plan free] [--data-dir D] [--config F]',
    'list [--data-dir D] [--config F]',
    'set-plan <account_id> <plan> [--data-dir D] [--config F]',
    'disable <account_id> [--data-dir D] [--config F]',
    'enable <account_id> [--data-dir D] [--config F]',
    'copy --from <sqlite data dir> [--config F]',
  ],
  details: `Options:
  --name <name>     create: the account's name
  --plan <id>       create: its plan (default free); the plans are the server's: free, pro,
                    enterprise, self_hosted and those of its config file
${controlPlaneFlagsHelp(20)}
create prints the account's first test key, live key and webhook signing secret: they are shown
once (only hashes, and the sealed webhook secret, are stored). disable stops every key and token
of the account at once, also on a running server; enable undoes it. copy moves a single-process
server to PostgreSQL: the accounts, keys (they keep working), webhook secrets, plans and usage of
<dir>/control-plane.db into the empty control plane of databaseUrl (docs/deployment.md). Keys:
svc keys.`,
  options: {
    ...CONTROL_PLANE_FLAGS,
    name: { type: 'string' },
    plan: { type: 'string' },
    from: { type: 'string' },
  },
  async run(context) {
    return (await import('./control-plane/accounts-actions.js')).runAccounts(context);
  },
};
