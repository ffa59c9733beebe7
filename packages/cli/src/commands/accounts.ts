import { createAccount, isKeyUsable, setAccountDisabled, setAccountPlan } from '@svc/server';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { renderTable } from '../output/table.js';
import { printJson } from '../output.js';
import { UsageError } from '../usage-error.js';
import { CONTROL_PLANE_FLAGS, controlPlaneFlagsHelp, openControlPlane } from './control-plane/open.js';
import {
  accountJson,
  issuedKeyJson,
  keyLabel,
  SHOWN_ONCE,
  webhookSecretJson,
} from './control-plane/views.js';

const SUBCOMMANDS = 'create, list, set-plan, disable, enable';

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
  ],
  details: `Options:
  --name <name>     create: the account's name
  --plan <id>       create: its plan (default free); the plans are the server's: free, pro,
                    enterprise, self_hosted and those of its config file
${controlPlaneFlagsHelp(20)}
create prints the account's first test key, live key and webhook signing secret: they are shown
once (only hashes, and the sealed webhook secret, are stored). disable stops every key and token
of the account at once, also on a running server; enable undoes it. Keys: svc keys.`,
  options: {
    ...CONTROL_PLANE_FLAGS,
    name: { type: 'string' },
    plan: { type: 'string' },
  },
  async run({ io, flags, values, positionals }) {
    const [action, ...args] = positionals;
    const expect = (count: number, names: string) => {
      if (args.length < count) throw new UsageError(`accounts ${action} needs ${names}`, 'accounts');
      if (args.length > count)
        throw new UsageError(`unexpected arguments: ${args.slice(count).join(' ')}`, 'accounts');
    };
    switch (action) {
      case 'create': {
        expect(0, '');
        const name = values.name as string | undefined;
        if (!name) throw new UsageError('accounts create needs --name', 'accounts');
        const plane = await openControlPlane(io, values, { create: true });
        try {
          const created = await createAccount(plane.deps(), {
            name,
            planId: (values.plan as string) ?? 'free',
          });
          const now = Date.now();
          if (flags.json)
            printJson(io, {
              account: accountJson(created.account),
              keys: [issuedKeyJson(created.testKey, now), issuedKeyJson(created.liveKey, now)],
              webhook_secret: webhookSecretJson(created.webhookSecret),
            });
          else
            io.stdout.write(
              `${created.account.id} ${JSON.stringify(created.account.name)} on plan ${created.account.plan_id}\n` +
                `test key        ${created.testKey.secret}  (${created.testKey.key.id})\n` +
                `live key        ${created.liveKey.secret}  (${created.liveKey.key.id})\n` +
                `webhook secret  ${created.webhookSecret.secret}\n`,
            );
          io.stderr.write(SHOWN_ONCE);
          return EXIT.ok;
        } finally {
          await plane.close();
        }
      }
      case 'list': {
        expect(0, '');
        const plane = await openControlPlane(io, values, { create: false });
        try {
          const accounts = await plane.store.listAccounts();
          const keys = await Promise.all(accounts.map((account) => plane.store.listKeys(account.id)));
          const now = Date.now();
          if (flags.json) printJson(io, { data: accounts.map(accountJson) });
          else
            io.stdout.write(
              renderTable(
                ['id', 'name', 'plan', 'status', 'created_at', 'working keys'],
                accounts.map((account, index) => {
                  const view = accountJson(account);
                  const working = (keys[index] ?? []).filter((key) => isKeyUsable(key, now));
                  return [
                    view.id,
                    view.name,
                    view.plan_id,
                    view.status,
                    view.created_at ?? '',
                    working.map(keyLabel).join(' '),
                  ];
                }),
              ),
            );
          return EXIT.ok;
        } finally {
          await plane.close();
        }
      }
      case 'set-plan':
      case 'disable':
      case 'enable': {
        if (action === 'set-plan') expect(2, 'an account id and a plan');
        else expect(1, 'an account id');
        const [accountId = '', planId = ''] = args;
        const plane = await openControlPlane(io, values, { create: false });
        try {
          const account =
            action === 'set-plan'
              ? await setAccountPlan(plane.store, { accountId, planId })
              : await setAccountDisabled(plane.store, { accountId, disabled: action === 'disable' });
          const view = accountJson(account);
          if (flags.json) printJson(io, view);
          else
            io.stdout.write(
              `${view.id} ${JSON.stringify(view.name)} on plan ${view.plan_id}, ${view.status}\n`,
            );
          return EXIT.ok;
        } finally {
          await plane.close();
        }
      }
      default:
        throw new UsageError(
          action
            ? `unknown subcommand "${action}"; the subcommands are: ${SUBCOMMANDS}`
            : `the subcommands are: ${SUBCOMMANDS}`,
          'accounts',
        );
    }
  },
};
