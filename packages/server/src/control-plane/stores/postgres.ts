import { connectPostgresClient, type PgRow } from '@svc/core/postgres';
import type {
  Account,
  ApiKey,
  ControlPlaneStore,
  DailyUsageLine,
  Plan,
  Token,
  UsageIncrement,
  UsageLine,
  WebhookSecret,
} from '../store.js';
import { assertCredit, assertDay, assertIncrements, assertMonth, assertUnits } from './checks.js';
import { migrateOnClient } from './postgres-migrate.js';
import { checkedSchema, openPool, type PostgresConnectionOptions } from './postgres-pool.js';

/** Options of the PostgreSQL control-plane store. */
export type PostgresControlPlaneStoreOptions = PostgresConnectionOptions;

// BIGINT (int8) arrives as a string from pg, since it may exceed 2^53; ms timestamps and unit
// counts never do, so they become numbers here, as the other stores return them.
type Int8 = string | number;
const int = (value: Int8): number => Number(value);
const intOrNull = (value: Int8 | null): number | null => (value === null ? null : Number(value));

interface PlanRow {
  id: string;
  name: string;
  rate_per_second: number;
  burst: number;
  monthly_allowance: Int8 | null;
  endpoints: string[] | null;
  bill_company_misses: boolean;
}
interface AccountRow {
  id: string;
  name: string;
  plan_id: string;
  created_at: Int8;
  disabled_at: Int8 | null;
}
interface KeyRow extends Omit<ApiKey, 'created_at' | 'last_used_at' | 'expires_at' | 'revoked_at'> {
  created_at: Int8;
  last_used_at: Int8 | null;
  expires_at: Int8 | null;
  revoked_at: Int8 | null;
}
interface TokenRow extends Omit<Token, 'created_at' | 'expires_at'> {
  created_at: Int8;
  expires_at: Int8;
}
interface SecretRow extends Omit<WebhookSecret, 'created_at' | 'expires_at'> {
  created_at: Int8;
  expires_at: Int8 | null;
}

const toPlan = (r: PlanRow): Plan => ({
  id: r.id,
  name: r.name,
  rate_per_second: r.rate_per_second,
  burst: r.burst,
  monthly_allowance: intOrNull(r.monthly_allowance),
  endpoints: r.endpoints,
  bill_company_misses: r.bill_company_misses,
});
const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  plan_id: r.plan_id,
  created_at: int(r.created_at),
  disabled_at: intOrNull(r.disabled_at),
});
const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  account_id: r.account_id,
  environment: r.environment,
  name: r.name,
  hash: r.hash,
  last4: r.last4,
  created_at: int(r.created_at),
  last_used_at: intOrNull(r.last_used_at),
  expires_at: intOrNull(r.expires_at),
  revoked_at: intOrNull(r.revoked_at),
  rotated_from: r.rotated_from,
  created_by: r.created_by ?? null,
});
const toToken = (r: TokenRow): Token => ({
  id: r.id,
  account_id: r.account_id,
  key_id: r.key_id,
  environment: r.environment,
  hash: r.hash,
  scopes: r.scopes,
  created_at: int(r.created_at),
  expires_at: int(r.expires_at),
});
const toSecret = (r: SecretRow): WebhookSecret => ({
  id: r.id,
  account_id: r.account_id,
  sealed: r.sealed,
  prefix: r.prefix,
  created_at: int(r.created_at),
  expires_at: intOrNull(r.expires_at),
});

// JSONB parameters go in as JSON text: pg would turn a JS array into a Postgres array literal.
const json = (value: string[] | null): string | null => (value === null ? null : JSON.stringify(value));

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const compareIncrements = (a: UsageIncrement, b: UsageIncrement) =>
  compareText(a.accountId, b.accountId) ||
  compareText(a.month, b.month) ||
  compareText(a.endpoint, b.endpoint) ||
  compareText(a.day ?? '', b.day ?? '');

/**
 * A ControlPlaneStore in PostgreSQL, for several API processes on several machines (issue 13).
 * Migrates its schema on start (see `migratePostgresControlPlane`). Every method but `addUsage`
 * is one statement, so one transaction: usage is added and the month's new total read back by
 * one `INSERT … ON CONFLICT DO UPDATE … RETURNING`, the same guarantee as SQLite's write
 * transaction; `addUsage` runs those statements in one explicit transaction. pg is an optional
 * peer dependency, loaded on first use.
 */
export async function createPostgresControlPlaneStore(
  options: PostgresControlPlaneStoreOptions,
): Promise<ControlPlaneStore> {
  const schema = checkedSchema(options.schema);
  const opened = await openPool(options);
  const { pool } = opened;
  try {
    const client = await connectPostgresClient(opened);
    try {
      await migrateOnClient(client, schema);
    } finally {
      client.release();
    }
  } catch (error) {
    if (opened.owned) await pool.end().catch(() => {});
    throw error;
  }

  const s = `"${schema}"`;
  let closed = false;
  const query = async <R extends PgRow>(text: string, values: unknown[] = []): Promise<R[]> => {
    // A caller's pool stays open after close(), so the store itself must refuse.
    if (closed) throw new Error('the control-plane store is closed');
    return (await pool.query<R>(text, values)).rows;
  };
  const first = async <R extends PgRow>(text: string, values: unknown[]): Promise<R | undefined> =>
    (await query<R>(text, values))[0];

  // A patch with only the given fields: an absent field keeps its value, null is a value.
  const update = async <R extends PgRow>(
    table: 'accounts' | 'api_keys',
    fields: Record<string, unknown>,
    where: string[],
    args: unknown[],
  ): Promise<R | undefined> => {
    const set = Object.entries(fields).filter(([, value]) => value !== undefined);
    const condition = where.map((column, i) => `${column} = $${set.length + i + 1}`).join(' AND ');
    if (set.length === 0) return first<R>(`SELECT * FROM ${s}.${table} WHERE ${condition}`, args);
    return first<R>(
      `UPDATE ${s}.${table} SET ${set.map(([column], i) => `${column} = $${i + 1}`).join(', ')}
       WHERE ${condition} RETURNING *`,
      [...set.map(([, value]) => value), ...args],
    );
  };

  // One statement, one transaction: $1 account, $2 month, $3 endpoint, $4 units, $5 calls, $6 day.
  // The month row is written first and the lines after it (their INSERTs read the month's
  // RETURNING), so concurrent calls lock in the same order and never deadlock; the month row's
  // lock makes each call see its own total.
  const addStatement = (withDay: boolean) => `WITH total AS (
       INSERT INTO ${s}.usage_months (account_id, month, units) VALUES ($1, $2, $4)
       ON CONFLICT (account_id, month) DO UPDATE SET units = usage_months.units + excluded.units
       RETURNING units
     ), line AS (
       INSERT INTO ${s}.usage (account_id, month, endpoint, calls, units)
       SELECT $1, $2, $3::text, $5::bigint, $4 FROM total
       ON CONFLICT (account_id, month, endpoint)
       DO UPDATE SET calls = usage.calls + excluded.calls, units = usage.units + excluded.units
     )${
       withDay
         ? `, day_line AS (
       INSERT INTO ${s}.usage_daily (account_id, day, endpoint, calls, units)
       SELECT $1, $6::text, $3::text, $5::bigint, $4 FROM total
       ON CONFLICT (account_id, day, endpoint)
       DO UPDATE SET calls = usage_daily.calls + excluded.calls, units = usage_daily.units + excluded.units
     )`
         : ''
     }
     SELECT units FROM total`;

  const usedUnits = async (accountId: string, month: string): Promise<number> => {
    const row = await first<{ units: Int8 }>(
      `SELECT units FROM ${s}.usage_months WHERE account_id = $1 AND month = $2`,
      [accountId, month],
    );
    return row ? int(row.units) : 0;
  };

  return {
    async upsertPlan(plan) {
      await query(
        `INSERT INTO ${s}.plans (id, name, rate_per_second, burst, monthly_allowance, endpoints, bill_company_misses)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, rate_per_second = excluded.rate_per_second,
           burst = excluded.burst, monthly_allowance = excluded.monthly_allowance, endpoints = excluded.endpoints,
           bill_company_misses = excluded.bill_company_misses`,
        [
          plan.id,
          plan.name,
          plan.rate_per_second,
          plan.burst,
          plan.monthly_allowance,
          json(plan.endpoints),
          plan.bill_company_misses,
        ],
      );
    },
    async getPlan(id) {
      const row = await first<PlanRow>(`SELECT * FROM ${s}.plans WHERE id = $1`, [id]);
      return row ? toPlan(row) : null;
    },
    async listPlans() {
      return (await query<PlanRow>(`SELECT * FROM ${s}.plans ORDER BY id`)).map(toPlan);
    },

    async createAccount(account) {
      await query(
        `INSERT INTO ${s}.accounts (id, name, plan_id, created_at, disabled_at) VALUES ($1, $2, $3, $4, $5)`,
        [account.id, account.name, account.plan_id, account.created_at, account.disabled_at],
      );
    },
    async createFirstAccount(account) {
      if (closed) throw new Error('the control-plane store is closed');
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // Under READ COMMITTED two transactions could each see no account and both insert: this
        // lock mode conflicts with itself and with every insert, so they take turns.
        await client.query(`LOCK TABLE ${s}.accounts IN SHARE ROW EXCLUSIVE MODE`);
        const inserted = await client.query(
          `INSERT INTO ${s}.accounts (id, name, plan_id, created_at, disabled_at)
           SELECT $1::text, $2::text, $3::text, $4::bigint, $5::bigint WHERE NOT EXISTS (SELECT 1 FROM ${s}.accounts)`,
          [account.id, account.name, account.plan_id, account.created_at, account.disabled_at],
        );
        await client.query('COMMIT');
        return inserted.rowCount === 1;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async getAccount(id) {
      const row = await first<AccountRow>(`SELECT * FROM ${s}.accounts WHERE id = $1`, [id]);
      return row ? toAccount(row) : null;
    },
    async listAccounts() {
      return (await query<AccountRow>(`SELECT * FROM ${s}.accounts ORDER BY created_at, id`)).map(toAccount);
    },
    async updateAccount(id, patch) {
      const row = await update<AccountRow>(
        'accounts',
        { name: patch.name, plan_id: patch.plan_id, disabled_at: patch.disabled_at },
        ['id'],
        [id],
      );
      return row ? toAccount(row) : null;
    },

    async createKey(key) {
      await query(
        `INSERT INTO ${s}.api_keys (id, account_id, environment, name, hash, last4, created_at, last_used_at, expires_at, revoked_at, rotated_from, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          key.id,
          key.account_id,
          key.environment,
          key.name,
          key.hash,
          key.last4,
          key.created_at,
          key.last_used_at,
          key.expires_at,
          key.revoked_at,
          key.rotated_from,
          key.created_by,
        ],
      );
    },
    async findKeyByHash(hash) {
      const row = await first<KeyRow>(`SELECT * FROM ${s}.api_keys WHERE hash = $1`, [hash]);
      return row ? toKey(row) : null;
    },
    async getKey(accountId, keyId) {
      const row = await first<KeyRow>(`SELECT * FROM ${s}.api_keys WHERE account_id = $1 AND id = $2`, [
        accountId,
        keyId,
      ]);
      return row ? toKey(row) : null;
    },
    async listKeys(accountId) {
      const rows = await query<KeyRow>(
        `SELECT * FROM ${s}.api_keys WHERE account_id = $1 ORDER BY created_at, id`,
        [accountId],
      );
      return rows.map(toKey);
    },
    async updateKey(accountId, keyId, patch) {
      const row = await update<KeyRow>(
        'api_keys',
        { expires_at: patch.expires_at, revoked_at: patch.revoked_at, name: patch.name },
        ['account_id', 'id'],
        [accountId, keyId],
      );
      return row ? toKey(row) : null;
    },
    async touchKey(keyId, at) {
      await query(`UPDATE ${s}.api_keys SET last_used_at = $1 WHERE id = $2`, [at, keyId]);
    },

    async createToken(token) {
      await query(
        `INSERT INTO ${s}.tokens (id, account_id, key_id, environment, hash, scopes, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          token.id,
          token.account_id,
          token.key_id,
          token.environment,
          token.hash,
          json(token.scopes),
          token.created_at,
          token.expires_at,
        ],
      );
    },
    async findTokenByHash(hash) {
      const row = await first<TokenRow>(`SELECT * FROM ${s}.tokens WHERE hash = $1`, [hash]);
      return row ? toToken(row) : null;
    },
    async deleteExpiredTokens(now) {
      if (closed) throw new Error('the control-plane store is closed');
      return (await pool.query(`DELETE FROM ${s}.tokens WHERE expires_at <= $1`, [now])).rowCount ?? 0;
    },

    async addWebhookSecret(secret) {
      await query(
        `INSERT INTO ${s}.webhook_secrets (id, account_id, sealed, prefix, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [secret.id, secret.account_id, secret.sealed, secret.prefix, secret.created_at, secret.expires_at],
      );
    },
    async activeWebhookSecrets(accountId, now) {
      const rows = await query<SecretRow>(
        `SELECT * FROM ${s}.webhook_secrets WHERE account_id = $1 AND (expires_at IS NULL OR expires_at > $2)
         ORDER BY created_at DESC, id DESC`,
        [accountId, now],
      );
      return rows.map(toSecret);
    },
    async expireWebhookSecrets(accountId, keepId, expiresAt) {
      // Never lengthens a grace period already running (two rotations in a row).
      await query(
        `UPDATE ${s}.webhook_secrets SET expires_at = $3
         WHERE account_id = $1 AND id <> $2 AND (expires_at IS NULL OR expires_at > $3)`,
        [accountId, keepId, expiresAt],
      );
    },

    async recordUsage(accountId, endpoint, month, units, day) {
      assertMonth(month);
      assertUnits(units);
      if (day !== undefined) assertDay(day, month);
      const row = await first<{ units: Int8 }>(addStatement(day !== undefined), [
        accountId,
        month,
        endpoint,
        units,
        1,
        ...(day === undefined ? [] : [day]),
      ]);
      return int((row as { units: Int8 }).units);
    },
    async addUsage(lines) {
      assertIncrements(lines);
      if (closed) throw new Error('the control-plane store is closed');
      // Lines in one global order (account, month, endpoint, day), so two processes flushing at
      // once take the month rows' locks in the same order and cannot deadlock.
      const order = lines
        .map((line, index) => ({ line, index }))
        .sort((a, b) => compareIncrements(a.line, b.line));
      const totals = new Map<string, number>();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const { line } of order) {
          const { rows } = await client.query<{ units: Int8 }>(addStatement(line.day !== undefined), [
            line.accountId,
            line.month,
            line.endpoint,
            line.units,
            line.calls,
            ...(line.day === undefined ? [] : [line.day]),
          ]);
          // The month row stays locked until COMMIT: its last value is the total after all lines.
          totals.set(`${line.accountId} ${line.month}`, int((rows[0] as { units: Int8 }).units));
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
      return lines.map(({ accountId, month }) => totals.get(`${accountId} ${month}`) as number);
    },
    async creditUsage(credit) {
      assertCredit(credit);
      if (closed) throw new Error('the control-plane store is closed');
      const { accountId, key, endpoint, month, day, units } = credit;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const inserted = await client.query(
          `INSERT INTO ${s}.usage_credits (account_id, key, endpoint, month, day, units)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, key) DO NOTHING`,
          [accountId, key, endpoint, month, day ?? null, units],
        );
        if (inserted.rowCount === 0) {
          await client.query('COMMIT');
          return false;
        }
        // The statement recordUsage uses, with 0 calls and -units: month row first, then the lines.
        await client.query(addStatement(day !== undefined), [
          accountId,
          month,
          endpoint,
          -units,
          0,
          ...(day === undefined ? [] : [day]),
        ]);
        await client.query('COMMIT');
        return true;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async usedUnits(accountId, month) {
      assertMonth(month);
      return usedUnits(accountId, month);
    },
    async usage(accountId, month) {
      assertMonth(month);
      const rows = await query<{ endpoint: string; calls: Int8; units: Int8 }>(
        `SELECT endpoint, calls, units FROM ${s}.usage WHERE account_id = $1 AND month = $2 ORDER BY endpoint`,
        [accountId, month],
      );
      return rows.map((r): UsageLine => ({ endpoint: r.endpoint, calls: int(r.calls), units: int(r.units) }));
    },

    async usageByDay(accountId, month) {
      assertMonth(month);
      // Days sort as text within a month; the range reads one account's month off the primary key.
      const rows = await query<{ day: string; endpoint: string; calls: Int8; units: Int8 }>(
        `SELECT day, endpoint, calls, units FROM ${s}.usage_daily
         WHERE account_id = $1 AND day >= $2 AND day <= $3 ORDER BY day, endpoint`,
        [accountId, `${month}-01`, `${month}-31`],
      );
      return rows.map(
        (r): DailyUsageLine => ({
          day: r.day,
          endpoint: r.endpoint,
          calls: int(r.calls),
          units: int(r.units),
        }),
      );
    },

    async close() {
      if (closed) return;
      closed = true;
      if (opened.owned) await pool.end();
    },
  };
}
