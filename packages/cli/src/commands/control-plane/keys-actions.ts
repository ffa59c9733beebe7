import { ServiceError } from '@svc/core';
import { createKey, type Environment, revokeKey, rotateKey } from '@svc/server';
import type { CommandContext } from '../../command.js';
import { EXIT, type ExitCode } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { UsageError } from '../../usage-error.js';
import { withControlPlane } from './open.js';
import { issuedKeyJson, keyJson, keyLabel, keysTable, SHOWN_ONCE } from './views.js';

const SUBCOMMANDS = 'create, list, rotate, revoke';
/** A rotated key keeps working a day unless told otherwise (as POST /v2/keys/{id}/rotate). */
const DEFAULT_GRACE_SECONDS = 86_400;

/** Runs `svc keys …` (loaded on first use: it brings in @svc/server). */
export async function runKeys({ io, flags, values, positionals }: CommandContext): Promise<ExitCode> {
  const [action, ...args] = positionals;
  const expect = (count: number, names: string) => {
    if (args.length < count) throw new UsageError(`keys ${action} needs ${names}`, 'keys');
    if (args.length > count)
      throw new UsageError(`unexpected arguments: ${args.slice(count).join(' ')}`, 'keys');
  };
  if (action === 'list') expect(Math.min(args.length, 1), '');
  else if (action === 'create') expect(1, 'an account id');
  else if (action === 'rotate' || action === 'revoke') expect(2, 'an account id and a key id');
  else
    throw new UsageError(
      action
        ? `unknown subcommand "${action}"; the subcommands are: ${SUBCOMMANDS}`
        : `the subcommands are: ${SUBCOMMANDS}`,
      'keys',
    );
  const [accountId = '', keyId = ''] = args;
  const environment = values.environment as string | undefined;
  if ((action === 'create' || environment !== undefined) && environment !== 'test' && environment !== 'live')
    throw new UsageError(
      environment === undefined
        ? 'keys create needs --environment test or live'
        : `--environment must be test or live, got "${environment}"`,
      'keys',
    );
  const graceSeconds = parseGrace(values['grace-seconds'] as string | undefined);

  return withControlPlane(io, values, { create: false }, async (plane) => {
    const now = Date.now();
    if (action === 'list') {
      let accountIds = [accountId];
      if (!accountId) accountIds = (await plane.store.listAccounts()).map((account) => account.id);
      else if (!(await plane.store.getAccount(accountId)))
        throw new ServiceError('not_found', `no account ${accountId}`);
      const last4 = values.last4 as string | undefined;
      const keys = (await Promise.all(accountIds.map((id) => plane.store.listKeys(id))))
        .flat()
        .filter(
          (key) =>
            (environment === undefined || key.environment === environment) &&
            (last4 === undefined || key.last4 === last4),
        );
      keys.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
      if (flags.json) printJson(io, { data: keys.map((key) => keyJson(key, now)) });
      else io.stdout.write(keysTable(keys, now, !accountId));
      return EXIT.ok;
    }
    if (action === 'create') {
      const issued = await createKey(plane.store, {
        accountId,
        environment: environment as Environment,
        name: (values.name as string | undefined) ?? null,
        now,
      });
      if (flags.json) printJson(io, issuedKeyJson(issued, now));
      else io.stdout.write(`${issued.key.environment} key  ${issued.secret}  (${issued.key.id})\n`);
      io.stderr.write(SHOWN_ONCE);
      return EXIT.ok;
    }
    if (action === 'rotate') {
      const { previous, ...issued } = await rotateKey(plane.store, { accountId, keyId, graceSeconds, now });
      if (flags.json) printJson(io, { ...issuedKeyJson(issued, now), previous: keyJson(previous, now) });
      else
        io.stdout.write(
          `${issued.key.environment} key  ${issued.secret}  (${issued.key.id})\n` +
            `${previous.id} (${keyLabel(previous)}) works until ${new Date(previous.expires_at ?? now).toISOString()}\n`,
        );
      io.stderr.write(SHOWN_ONCE);
      return EXIT.ok;
    }
    const { key: revoked, alsoRevoked } = await revokeKey(plane.store, { accountId, keyId, now });
    if (flags.json)
      printJson(io, { ...keyJson(revoked, now), also_revoked: alsoRevoked.map((key) => keyJson(key, now)) });
    else {
      io.stdout.write(`${revoked.id} (${keyLabel(revoked)}) revoked, with the tokens it minted\n`);
      for (const key of alsoRevoked)
        io.stdout.write(`${key.id} (${keyLabel(key)}) revoked with it: it was made with ${key.created_by}\n`);
    }
    return EXIT.ok;
  });
}

function parseGrace(text: string | undefined): number {
  if (text === undefined) return DEFAULT_GRACE_SECONDS;
  if (!/^\d+$/.test(text))
    throw new UsageError(`--grace-seconds must be a whole number of seconds, got "${text}"`, 'keys');
  return Number(text);
}
