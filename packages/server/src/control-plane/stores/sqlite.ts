import type { SqliteDriver } from '@svc/core';
import { createPrivateDatabaseFile, importOptionalPeer } from '@svc/core';
import type BetterSqlite3 from 'better-sqlite3';
import type {
  Account,
  ApiKey,
  ControlPlaneStore,
  DailyUsageLine,
  Plan,
  Token,
  UsageCredit,
  UsageIncrement,
  UsageLine,
  WebhookSecret,
} from '../store.js';
import { assertCredit, assertDay, assertIncrements, assertMonth, assertUnits } from './checks.js';

/** Options of the SQLite control-plane store. */
export interface SqliteControlPlaneStoreOptions {
  /** Database file; created (mode 0600) if missing. `:memory:` works but keeps nothing. */
  path: string;
  /** Milliseconds a write waits for another process's lock (the CLI beside a running server). @default 5000 */
  busyTimeoutMs?: number;
  /**
   * better-sqlite3's `Database` class, for an app whose better-sqlite3 this package cannot
   * resolve (an optional peer resolves from this package's folder): pass
   * `(await import('better-sqlite3')).default`.
   * @default the better-sqlite3 this package resolves, loaded on first use
   */
  driver?: SqliteDriver;
}

/** The file name the server uses inside its data dir. */
export const CONTROL_PLANE_DB_FILE = 'control-plane.db';

/**
 * The schema, one entry per version (`PRAGMA user_version` counts the entries applied). Never
 * edit an entry that has shipped: add the next one, so every existing file is brought forward.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: accounts, plans, keys and tokens (hashes), sealed webhook secrets, usage.
  `
  CREATE TABLE plans (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, rate_per_second REAL NOT NULL, burst REAL NOT NULL,
    monthly_allowance INTEGER, endpoints TEXT
  );
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, plan_id TEXT NOT NULL, created_at INTEGER NOT NULL, disabled_at INTEGER
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, environment TEXT NOT NULL CHECK (environment IN ('test', 'live')),
    name TEXT, hash TEXT NOT NULL UNIQUE, last4 TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER,
    expires_at INTEGER, revoked_at INTEGER, rotated_from TEXT
  );
  CREATE INDEX api_keys_account ON api_keys (account_id, created_at);
  CREATE TABLE tokens (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, key_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('test', 'live')), hash TEXT NOT NULL UNIQUE, scopes TEXT,
    created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL
  );
  CREATE INDEX tokens_expiry ON tokens (expires_at);
  CREATE TABLE webhook_secrets (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, sealed TEXT NOT NULL, prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER
  );
  CREATE INDEX webhook_secrets_account ON webhook_secrets (account_id, created_at);
  CREATE TABLE usage (
    account_id TEXT NOT NULL, month TEXT NOT NULL, endpoint TEXT NOT NULL,
    calls INTEGER NOT NULL, units INTEGER NOT NULL,
    PRIMARY KEY (account_id, month, endpoint)
  ) WITHOUT ROWID;
  `,
  // 2: usage per day as well (the dashboard's chart); months before it have no days.
  `
  CREATE TABLE usage_daily (
    account_id TEXT NOT NULL, day TEXT NOT NULL, endpoint TEXT NOT NULL,
    calls INTEGER NOT NULL, units INTEGER NOT NULL,
    PRIMARY KEY (account_id, day, endpoint)
  ) WITHOUT ROWID;
  `,
  // 3: whether a plan bills company-enrichment misses (DESIGN §7: not by default), and the usage
  // credits applied, by key, so a credit is applied once.
  `
  ALTER TABLE plans ADD COLUMN bill_company_misses INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE usage_credits (
    account_id TEXT NOT NULL, key TEXT NOT NULL, endpoint TEXT NOT NULL, month TEXT NOT NULL, day TEXT,
    units INTEGER NOT NULL,
    PRIMARY KEY (account_id, key)
  ) WITHOUT ROWID;
  `,
  // 4: the key that made each key over the API: revoking it revokes them too (issue 24).
  `
  ALTER TABLE api_keys ADD COLUMN created_by TEXT;
  CREATE INDEX api_keys_created_by ON api_keys (account_id, created_by);
  `,
];

type PlanRow = Omit<Plan, 'endpoints' | 'bill_company_misses'> & {
  endpoints: string | null;
  bill_company_misses: 0 | 1;
};
type TokenRow = Omit<Token, 'scopes'> & { scopes: string | null };

// Loaded on first use, so apps on the memory store never need the native addon. The cause's
// first line is kept: a missing package and a missing native build need different fixes.
async function loadBetterSqlite3(): Promise<typeof BetterSqlite3> {
  const { default: Database } = await importOptionalPeer(() => import('better-sqlite3'), {
    user: 'the SQLite control-plane store',
    needs: 'better-sqlite3',
    install: 'better-sqlite3@12',
    from: '@svc/server',
    otherwise: 'passed as the `driver` option',
  });
  return Database;
}

/** Brings the file to the newest schema; refuses a file written by a newer version. */
function migrate(db: BetterSqlite3.Database, path: string): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  if (version() > MIGRATIONS.length) {
    throw new Error(
      `${path} has control-plane schema version ${version()}, newer than this @svc/server knows (${MIGRATIONS.length}); upgrade @svc/server`,
    );
  }
  if (version() === MIGRATIONS.length) return;
  // IMMEDIATE takes the write lock before reading the version, so two processes opening a new
  // file at once apply each migration once.
  db.transaction(() => {
    for (let next = version(); next < MIGRATIONS.length; next++) {
      db.exec(MIGRATIONS[next] as string);
      db.pragma(`user_version = ${next + 1}`);
    }
  }).immediate();
}

/**
 * A ControlPlaneStore in one SQLite file (better-sqlite3, WAL): the embedded default. The file
 * is created readable by its owner only; the CLI and a running server may open it at once.
 * better-sqlite3 is an optional peer dependency, loaded on first use.
 */
export async function createSqliteControlPlaneStore(
  options: SqliteControlPlaneStoreOptions,
): Promise<ControlPlaneStore> {
  const Database = (options.driver as typeof BetterSqlite3 | undefined) ?? (await loadBetterSqlite3());
  let db: BetterSqlite3.Database;
  try {
    createPrivateDatabaseFile(options.path);
    db = new Database(options.path);
  } catch (error) {
    throw new Error(`cannot open the control-plane database ${options.path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses at most the last commits on power loss, never consistency; the
    // usage rows a crash of the process (not the machine) could lose are none.
    db.pragma('synchronous = NORMAL');
    migrate(db, options.path);
  } catch (error) {
    db.close();
    throw error;
  }

  const toPlan = (row: PlanRow | undefined): Plan | null =>
    row
      ? {
          ...row,
          endpoints: row.endpoints === null ? null : JSON.parse(row.endpoints),
          bill_company_misses: row.bill_company_misses === 1,
        }
      : null;
  const toToken = (row: TokenRow | undefined): Token | null =>
    row ? { ...row, scopes: row.scopes === null ? null : JSON.parse(row.scopes) } : null;

  const statements = {
    upsertPlan: db.prepare(
      `INSERT INTO plans (id, name, rate_per_second, burst, monthly_allowance, endpoints, bill_company_misses)
       VALUES (@id, @name, @rate_per_second, @burst, @monthly_allowance, @endpoints, @bill_company_misses)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, rate_per_second = excluded.rate_per_second,
         burst = excluded.burst, monthly_allowance = excluded.monthly_allowance, endpoints = excluded.endpoints,
         bill_company_misses = excluded.bill_company_misses`,
    ),
    plan: db.prepare<[string], PlanRow>('SELECT * FROM plans WHERE id = ?'),
    plans: db.prepare<[], PlanRow>('SELECT * FROM plans ORDER BY id'),

    insertAccount: db.prepare(
      `INSERT INTO accounts (id, name, plan_id, created_at, disabled_at)
       VALUES (@id, @name, @plan_id, @created_at, @disabled_at)`,
    ),
    // One statement, so one write transaction: SQLite lets one writer in at a time.
    insertFirstAccount: db.prepare(
      `INSERT INTO accounts (id, name, plan_id, created_at, disabled_at)
       SELECT @id, @name, @plan_id, @created_at, @disabled_at WHERE NOT EXISTS (SELECT 1 FROM accounts)`,
    ),
    account: db.prepare<[string], Account>('SELECT * FROM accounts WHERE id = ?'),
    accounts: db.prepare<[], Account>('SELECT * FROM accounts ORDER BY created_at, id'),

    insertKey: db.prepare(
      `INSERT INTO api_keys (id, account_id, environment, name, hash, last4, created_at, last_used_at, expires_at, revoked_at, rotated_from, created_by)
       VALUES (@id, @account_id, @environment, @name, @hash, @last4, @created_at, @last_used_at, @expires_at, @revoked_at, @rotated_from, @created_by)`,
    ),
    keyByHash: db.prepare<[string], ApiKey>('SELECT * FROM api_keys WHERE hash = ?'),
    key: db.prepare<[string, string], ApiKey>('SELECT * FROM api_keys WHERE account_id = ? AND id = ?'),
    keys: db.prepare<[string], ApiKey>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id'),
    touchKey: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),

    insertToken: db.prepare(
      `INSERT INTO tokens (id, account_id, key_id, environment, hash, scopes, created_at, expires_at)
       VALUES (@id, @account_id, @key_id, @environment, @hash, @scopes, @created_at, @expires_at)`,
    ),
    tokenByHash: db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE hash = ?'),
    deleteExpiredTokens: db.prepare('DELETE FROM tokens WHERE expires_at <= ?'),

    insertSecret: db.prepare(
      `INSERT INTO webhook_secrets (id, account_id, sealed, prefix, created_at, expires_at)
       VALUES (@id, @account_id, @sealed, @prefix, @created_at, @expires_at)`,
    ),
    activeSecrets: db.prepare<[string, number], WebhookSecret>(
      `SELECT * FROM webhook_secrets WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?)
       ORDER BY created_at DESC, id DESC`,
    ),
    expireSecrets: db.prepare(
      `UPDATE webhook_secrets SET expires_at = @expires_at
       WHERE account_id = @account_id AND id != @keep AND (expires_at IS NULL OR expires_at > @expires_at)`,
    ),

    addUsage: db.prepare(
      `INSERT INTO usage (account_id, month, endpoint, calls, units) VALUES (?, ?, ?, 1, ?)
       ON CONFLICT (account_id, month, endpoint) DO UPDATE SET calls = calls + 1, units = units + excluded.units`,
    ),
    usedUnits: db.prepare<[string, string], { units: number }>(
      'SELECT COALESCE(SUM(units), 0) AS units FROM usage WHERE account_id = ? AND month = ?',
    ),
    insertCredit: db.prepare(
      `INSERT INTO usage_credits (account_id, key, endpoint, month, day, units) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, key) DO NOTHING`,
    ),
    // A line of 0 calls and -units when the billing is not recorded yet; it nets out then.
    creditUsage: db.prepare(
      `INSERT INTO usage (account_id, month, endpoint, calls, units) VALUES (?, ?, ?, 0, -?)
       ON CONFLICT (account_id, month, endpoint) DO UPDATE SET units = units + excluded.units`,
    ),
    creditDailyUsage: db.prepare(
      `INSERT INTO usage_daily (account_id, day, endpoint, calls, units) VALUES (?, ?, ?, 0, -?)
       ON CONFLICT (account_id, day, endpoint) DO UPDATE SET units = units + excluded.units`,
    ),
    usage: db.prepare<[string, string], UsageLine>(
      'SELECT endpoint, calls, units FROM usage WHERE account_id = ? AND month = ? ORDER BY endpoint',
    ),
    addUsageCalls: db.prepare(
      `INSERT INTO usage (account_id, month, endpoint, calls, units) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, month, endpoint) DO UPDATE SET calls = calls + excluded.calls, units = units + excluded.units`,
    ),
    addDailyUsageCalls: db.prepare(
      `INSERT INTO usage_daily (account_id, day, endpoint, calls, units) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, day, endpoint) DO UPDATE SET calls = calls + excluded.calls, units = units + excluded.units`,
    ),
    addDailyUsage: db.prepare(
      `INSERT INTO usage_daily (account_id, day, endpoint, calls, units) VALUES (?, ?, ?, 1, ?)
       ON CONFLICT (account_id, day, endpoint) DO UPDATE SET calls = calls + 1, units = units + excluded.units`,
    ),
    usageByDay: db.prepare<[string, string, string], DailyUsageLine>(
      `SELECT day, endpoint, calls, units FROM usage_daily WHERE account_id = ? AND day >= ? AND day <= ?
       ORDER BY day, endpoint`,
    ),
  };

  // One transaction: the total returned is the one this call's units produced.
  const recordUsage = db.transaction(
    (accountId: string, endpoint: string, month: string, units: number, day: string | undefined) => {
      statements.addUsage.run(accountId, month, endpoint, units);
      if (day !== undefined) statements.addDailyUsage.run(accountId, day, endpoint, units);
      return (statements.usedUnits.get(accountId, month) as { units: number }).units;
    },
  );

  // All lines or none; the totals are read after the last line is added.
  const addUsage = db.transaction((lines: UsageIncrement[]) => {
    for (const { accountId, endpoint, month, day, calls, units } of lines) {
      statements.addUsageCalls.run(accountId, month, endpoint, calls, units);
      if (day !== undefined) statements.addDailyUsageCalls.run(accountId, day, endpoint, calls, units);
    }
    const totals = new Map<string, number>();
    return lines.map(({ accountId, month }) => {
      const key = `${accountId} ${month}`;
      let total = totals.get(key);
      if (total === undefined) {
        total = (statements.usedUnits.get(accountId, month) as { units: number }).units;
        totals.set(key, total);
      }
      return total;
    });
  });

  // The credit's record and the lines it lowers, together: a credit seen before changes nothing.
  const creditUsage = db.transaction(({ accountId, key, endpoint, month, day, units }: UsageCredit) => {
    if (statements.insertCredit.run(accountId, key, endpoint, month, day ?? null, units).changes === 0)
      return false;
    statements.creditUsage.run(accountId, month, endpoint, units);
    if (day !== undefined) statements.creditDailyUsage.run(accountId, day, endpoint, units);
    return true;
  });

  // A patch with only the given fields: an absent field keeps its value, null is a value.
  const update = (
    table: 'accounts' | 'api_keys',
    fields: Record<string, unknown>,
    where: string,
    args: unknown[],
  ) => {
    const set = Object.entries(fields).filter(([, value]) => value !== undefined);
    if (set.length === 0) return;
    db.prepare(`UPDATE ${table} SET ${set.map(([column]) => `${column} = ?`).join(', ')} WHERE ${where}`).run(
      ...set.map(([, value]) => value),
      ...args,
    );
  };

  return {
    async upsertPlan(plan) {
      statements.upsertPlan.run({
        ...plan,
        endpoints: plan.endpoints === null ? null : JSON.stringify(plan.endpoints),
        bill_company_misses: plan.bill_company_misses ? 1 : 0,
      });
    },
    async getPlan(id) {
      return toPlan(statements.plan.get(id));
    },
    async listPlans() {
      return statements.plans.all().map((row) => toPlan(row) as Plan);
    },

    async createAccount(account) {
      statements.insertAccount.run(account);
    },
    async createFirstAccount(account) {
      return statements.insertFirstAccount.run(account).changes === 1;
    },
    async getAccount(id) {
      return statements.account.get(id) ?? null;
    },
    async listAccounts() {
      return statements.accounts.all();
    },
    async updateAccount(id, patch) {
      update(
        'accounts',
        { name: patch.name, plan_id: patch.plan_id, disabled_at: patch.disabled_at },
        'id = ?',
        [id],
      );
      return statements.account.get(id) ?? null;
    },

    async createKey(key) {
      statements.insertKey.run(key);
    },
    async findKeyByHash(hash) {
      return statements.keyByHash.get(hash) ?? null;
    },
    async getKey(accountId, keyId) {
      return statements.key.get(accountId, keyId) ?? null;
    },
    async listKeys(accountId) {
      return statements.keys.all(accountId);
    },
    async updateKey(accountId, keyId, patch) {
      update(
        'api_keys',
        { expires_at: patch.expires_at, revoked_at: patch.revoked_at, name: patch.name },
        'account_id = ? AND id = ?',
        [accountId, keyId],
      );
      return statements.key.get(accountId, keyId) ?? null;
    },
    async touchKey(keyId, at) {
      statements.touchKey.run(at, keyId);
    },

    async createToken(token) {
      statements.insertToken.run({
        ...token,
        scopes: token.scopes === null ? null : JSON.stringify(token.scopes),
      });
    },
    async findTokenByHash(hash) {
      return toToken(statements.tokenByHash.get(hash));
    },
    async deleteExpiredTokens(now) {
      return statements.deleteExpiredTokens.run(now).changes;
    },

    async addWebhookSecret(secret) {
      statements.insertSecret.run(secret);
    },
    async activeWebhookSecrets(accountId, now) {
      return statements.activeSecrets.all(accountId, now);
    },
    async expireWebhookSecrets(accountId, keepId, expiresAt) {
      statements.expireSecrets.run({ account_id: accountId, keep: keepId, expires_at: expiresAt });
    },

    async recordUsage(accountId, endpoint, month, units, day) {
      assertMonth(month);
      assertUnits(units);
      if (day !== undefined) assertDay(day, month);
      return recordUsage.immediate(accountId, endpoint, month, units, day);
    },
    async addUsage(lines) {
      assertIncrements(lines);
      return addUsage.immediate(lines);
    },
    async creditUsage(credit) {
      assertCredit(credit);
      return creditUsage.immediate(credit);
    },
    async usedUnits(accountId, month) {
      assertMonth(month);
      return (statements.usedUnits.get(accountId, month) as { units: number }).units;
    },
    async usage(accountId, month) {
      assertMonth(month);
      return statements.usage.all(accountId, month);
    },
    async usageByDay(accountId, month) {
      assertMonth(month);
      return statements.usageByDay.all(accountId, `${month}-01`, `${month}-31`);
    },

    async close() {
      if (db.open) db.close();
    },
  };
}
