import type { Command } from '../command.js';
import { CONTROL_PLANE_FLAGS, controlPlaneFlagsHelp } from './control-plane/flags.js';

/** `svc keys`: an account's API keys, on the store `svc serve` uses. */
export const keysCommand: Command = {
  name: 'keys',
  summary: "Create, list, rotate and revoke an account's API keys (operators)",
  usage: [
    'create <account_id> --environment test|live [--name N] [--data-dir D] [--config F]',
    'list [<account_id>] [--environment test|live] [--last4 a1b2] [--data-dir D] [--config F]',
    'rotate <account_id> <key_id> [--grace-seconds 86400] [--data-dir D] [--config F]',
    'revoke <account_id> <key_id> [--data-dir D] [--config F]',
  ],
  details: `Options:
  --environment test|live   create: test keys run in the sandbox and are never billed;
                            list: only keys of that environment
  --last4 <a1b2>            list: only keys ending so (to find the key of sk_live_…a1b2)
  --name <name>             create: a label to tell keys apart
  --grace-seconds <s>       rotate: how long the old key keeps working (0 to 2592000, 30 days;
                            default 86400)
${controlPlaneFlagsHelp(28)}
A new key's secret (sk_test_… / sk_live_…) is printed once; lists show keys by prefix and last
four characters (sk_live_…a1b2), newest first, of one account or (no account id) of all. rotate issues a new key of the same environment and name and ends
the old one after the grace period; revoke ends a key and the tokens it minted at once, also on a
running server.`,
  options: {
    ...CONTROL_PLANE_FLAGS,
    environment: { type: 'string' },
    name: { type: 'string' },
    'grace-seconds': { type: 'string' },
    last4: { type: 'string' },
  },
  async run(context) {
    return (await import('./control-plane/keys-actions.js')).runKeys(context);
  },
};
