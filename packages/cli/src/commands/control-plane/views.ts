import { type Account, type ApiKey, type IssuedKey, type IssuedWebhookSecret, keyView } from '@svc/server';
import { renderTable } from '../../output/table.js';

/** ms → ISO 8601 (the API's times), keeping null. */
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** An account as `--json` prints it: the API's conventions (snake_case, ISO 8601). */
export function accountJson(account: Account) {
  return {
    id: account.id,
    name: account.name,
    plan_id: account.plan_id,
    status: account.disabled_at === null ? 'active' : 'disabled',
    created_at: iso(account.created_at),
    disabled_at: iso(account.disabled_at),
  };
}

/** How a key is recognised without its secret: `sk_live_…a1b2`. */
export function keyLabel(key: ApiKey): string {
  return `sk_${key.environment}_…${key.last4}`;
}

/** A key as `--json` prints it: the API's view (never the hash), its account, and its secret when just issued. */
export function keyJson(key: ApiKey, now: number, secret?: string) {
  return {
    ...keyView(key, now),
    account_id: key.account_id,
    ...(secret === undefined ? {} : { secret }),
  };
}

export function issuedKeyJson(issued: IssuedKey, now: number) {
  return keyJson(issued.key, now, issued.secret);
}

export function webhookSecretJson(issued: IssuedWebhookSecret) {
  return {
    id: issued.record.id,
    prefix: issued.record.prefix,
    created_at: iso(issued.record.created_at),
    expires_at: iso(issued.record.expires_at),
    secret: issued.secret,
  };
}

/** Keys as a table: id, which key, name, state, and when; with their account when of several. */
export function keysTable(keys: ApiKey[], now: number, withAccount = false): string {
  const headers = ['id', 'key', 'name', 'status', 'created_at', 'last_used_at', 'ends_at'];
  const rows = keys.map((key) => [
    key.id,
    keyLabel(key),
    key.name ?? '',
    keyView(key, now).status,
    iso(key.created_at) ?? '',
    iso(key.last_used_at) ?? '-',
    iso(key.revoked_at ?? key.expires_at) ?? '-',
  ]);
  if (!withAccount) return renderTable(headers, rows);
  return renderTable(
    ['account', ...headers],
    rows.map((row, index) => [keys[index]?.account_id ?? '', ...row]),
  );
}

/** The reminder printed (on stderr) with every secret: it is not kept anywhere readable. */
export const SHOWN_ONCE =
  'these secrets are shown once and only their hashes (webhook secrets: sealed) are stored; keep them now\n';
