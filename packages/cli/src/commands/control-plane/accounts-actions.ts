import { createAccount, isKeyUsable, setAccountDisabled, setAccountPlan } from '@svc/server';
import type { CommandContext } from '../../command.js';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { renderTable } from '../../output/table.js';
import { printJson } from '../../output.js';
import { UsageError } from '../../usage-error.js';
import { withControlPlane } from './open.js';
import { accountJson, issuedKeyJson, keyLabel, SHOWN_ONCE, webhookSecretJson } from './views.js';

const SUBCOMMANDS = 'create, list, set-plan, disable, enable, copy';

/** Runs `svc accounts …` (loaded on first use: it brings in @svc/server). */
export async function runAccounts({ io, flags, values, positionals }: CommandContext): Promise<ExitCode> {
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
      return withControlPlane(io, values, { create: true }, async (plane) => {
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
      });
    }
    case 'list': {
      expect(0, '');
      return withControlPlane(io, values, { create: false }, async (plane) => {
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
      });
    }
    case 'set-plan':
    case 'disable':
    case 'enable': {
      if (action === 'set-plan') expect(2, 'an account id and a plan');
      else expect(1, 'an account id');
      const [accountId = '', planId = ''] = args;
      return withControlPlane(io, values, { create: false }, async (plane) => {
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
      });
    }
    case 'copy':
      expect(0, '');
      return (await import('./accounts-copy.js')).copyAccounts(io, flags.json === true, values);
    default:
      throw new UsageError(
        action
          ? `unknown subcommand "${action}"; the subcommands are: ${SUBCOMMANDS}`
          : `the subcommands are: ${SUBCOMMANDS}`,
        'accounts',
      );
  }
}
