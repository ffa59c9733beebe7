/**
 * The control-plane Store seam (DESIGN §8): accounts, plans, API keys, tokens, usage and webhook
 * signing secrets. SQLite is the embedded default (`stores/sqlite.ts`); a Postgres store comes
 * with the scale-out issue and must pass the same suite (`testing/describe-control-plane-store.ts`).
 *
 * Secrets never reach a store in plaintext: keys and tokens arrive as SHA-256 hashes (the
 * plaintext is shown to the caller once and forgotten); webhook signing secrets, which the
 * server must be able to use to sign, arrive sealed (AES-256-GCM under the server's secret key,
 * see `secrets.ts`). Every read that serves a request is scoped by account id.
 *
 * Times are ms since the epoch in this interface; the HTTP layer turns them into ISO 8601.
 */

/** Key environments (spec §5): test keys run in the sandbox and are never billed. */
export type Environment = 'test' | 'live';

/** A plan: its rate limit, monthly allowance and endpoints (DESIGN §8). */
export interface Plan {
  /** `free`, `pro`, `enterprise`, `self_hosted` or an operator's own id. */
  id: string;
  name: string;
  /** Token-bucket refill rate, requests per second. */
  rate_per_second: number;
  /** Token-bucket capacity. */
  burst: number;
  /** Units per calendar month (UTC); null = unlimited. */
  monthly_allowance: number | null;
  /** Endpoint ids this plan may call (see `endpoints.ts`); null = all. */
  endpoints: string[] | null;
  /**
   * Whether a company enrichment that finds nothing is billed (the route's 204, a batch record
   * counted `no_match`). DESIGN §7: not by default; contact misses are always billed (the spec).
   */
  bill_company_misses: boolean;
}

export interface Account {
  /** `acct_…` */
  id: string;
  name: string;
  plan_id: string;
  created_at: number;
  /** Set when an operator disables the account: its keys and tokens stop working. */
  disabled_at: number | null;
}

export interface ApiKey {
  /** `key_…` (an id to manage the key by; never the secret) */
  id: string;
  account_id: string;
  environment: Environment;
  name: string | null;
  /** SHA-256 (hex) of the full secret `sk_live_…`; the only form of the secret kept. */
  hash: string;
  /** The last four characters of the secret, to tell keys apart in lists. */
  last4: string;
  created_at: number;
  last_used_at: number | null;
  /** Set by rotation (end of the grace period) or by an operator; the key fails after it. */
  expires_at: number | null;
  revoked_at: number | null;
  /** The key this one replaced by rotation, if any. */
  rotated_from: string | null;
  /**
   * The key whose holder made this one over the API (creating it, or rotating another key into
   * it; through a token, the token's key): revoking that key revokes this one too (`revokeKey`).
   * Null for keys made with the account, by the operator, or by a key rotating itself (the new key
   * takes the old one's place, and its creator).
   */
  created_by: string | null;
}

export interface Token {
  /** `tok_…` id (the secret itself is `tok_…` too but only its hash is stored) */
  id: string;
  account_id: string;
  /** The key that minted it: revoking or expiring that key ends the token too. */
  key_id: string;
  environment: Environment;
  hash: string;
  /** Endpoint ids the token may call; null = every endpoint its key may call except key management. */
  scopes: string[] | null;
  created_at: number;
  expires_at: number;
}

/** A webhook signing secret, sealed (never plaintext in the store). */
export interface WebhookSecret {
  id: string;
  account_id: string;
  /** The sealed `whsec_…` (see secrets.ts). */
  sealed: string;
  /** `whsec_` plus the first characters, to recognise it in the dashboard. */
  prefix: string;
  created_at: number;
  /** After rotation the old secret still signs until this time (both signatures are sent). */
  expires_at: number | null;
}

/** One line of the month's invoice. */
export interface UsageLine {
  endpoint: string;
  /** Billable calls. */
  calls: number;
  /** Units: 1 per single call, one per record for bulk and batch. */
  units: number;
}

/** One endpoint's billable usage on one day (UTC): the dashboard's chart. */
export interface DailyUsageLine extends UsageLine {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
}

/** Many calls' usage on one line, as a write-behind buffer flushes it (`addUsage`). */
export interface UsageIncrement {
  accountId: string;
  endpoint: string;
  /** `YYYY-MM` (UTC). */
  month: string;
  /** `YYYY-MM-DD` inside `month`: the calls are counted on that day too. */
  day?: string;
  /** Billable calls (a positive integer). */
  calls: number;
  /** Their units together (a whole number; 0 for calls whose units were all credited back). */
  units: number;
}

/**
 * Billed units given back, once per key: a batch job bills its records at submit, and the
 * company misses the plan does not bill are credited when the job ends (`batch-credits.ts`).
 */
export interface UsageCredit {
  accountId: string;
  /** Unique per account (`batch_…`): a second credit with the same key changes nothing. */
  key: string;
  /** The line the units were billed to. */
  endpoint: string;
  /** `YYYY-MM` (UTC) the units were billed in. */
  month: string;
  /** `YYYY-MM-DD` inside `month` they were billed on (the daily line is credited too). */
  day?: string;
  /**
   * Units given back (a positive integer), subtracted from the line (and the day's line) whatever
   * is on it yet: a small job can end before its submit's billing is recorded, and the two then
   * net out in either order. Calls are unchanged.
   */
  units: number;
}

/** Lines one `addUsage` call takes at most. */
export const MAX_USAGE_INCREMENTS = 10_000;

export interface ControlPlaneStore {
  // Plans: seeded from configuration at start (upsert), read on every request through a cache.
  upsertPlan(plan: Plan): Promise<void>;
  getPlan(id: string): Promise<Plan | null>;
  listPlans(): Promise<Plan[]>;

  createAccount(account: Account): Promise<void>;
  /**
   * Creates `account` only when the store has no account at all, atomically for every process
   * on the same data: two servers starting at once on an empty database make one owner account,
   * not two. False (and nothing written) when an account exists.
   */
  createFirstAccount(account: Account): Promise<boolean>;
  getAccount(id: string): Promise<Account | null>;
  listAccounts(): Promise<Account[]>;
  /** Changes the plan or disables; null when the account does not exist. */
  updateAccount(
    id: string,
    patch: Partial<Pick<Account, 'name' | 'plan_id' | 'disabled_at'>>,
  ): Promise<Account | null>;

  createKey(key: ApiKey): Promise<void>;
  /** Looks a presented key up by its hash (the auth hot path: one indexed read). */
  findKeyByHash(hash: string): Promise<ApiKey | null>;
  getKey(accountId: string, keyId: string): Promise<ApiKey | null>;
  listKeys(accountId: string): Promise<ApiKey[]>;
  /** Sets `expires_at` and/or `revoked_at` of one of the account's keys; null when not found. */
  updateKey(
    accountId: string,
    keyId: string,
    patch: Partial<Pick<ApiKey, 'expires_at' | 'revoked_at' | 'name'>>,
  ): Promise<ApiKey | null>;
  /** Records use; callers throttle this (at most once a minute per key), it is not per request. */
  touchKey(keyId: string, at: number): Promise<void>;

  createToken(token: Token): Promise<void>;
  findTokenByHash(hash: string): Promise<Token | null>;
  /** Removes tokens whose `expires_at` passed; returns how many. */
  deleteExpiredTokens(now: number): Promise<number>;

  addWebhookSecret(secret: WebhookSecret): Promise<void>;
  /** The account's secrets that still sign at `now`, newest first. */
  activeWebhookSecrets(accountId: string, now: number): Promise<WebhookSecret[]>;
  /** Ends every secret of the account created before `keepId` at `expiresAt` (rotation). */
  expireWebhookSecrets(accountId: string, keepId: string, expiresAt: number): Promise<void>;

  /**
   * Adds billable usage atomically. Called before the response is sent, so a crash never serves
   * a billable call that was not recorded. Returns the account's units used in `month` after it
   * (for `X-Quota-Remaining`). With `day` (`YYYY-MM-DD` inside `month`) the call is also counted
   * on that day, in the same transaction.
   */
  recordUsage(
    accountId: string,
    endpoint: string,
    month: string,
    units: number,
    day?: string,
  ): Promise<number>;
  /**
   * Adds many lines of usage (up to MAX_USAGE_INCREMENTS) in one transaction: all or none, every
   * line checked before any is added. Returns, in the lines' order, each line's account's units in
   * its month after all of them. The write-behind usage buffer (`write-behind-usage.ts`) flushes
   * through it.
   */
  addUsage(lines: UsageIncrement[]): Promise<number[]>;
  /**
   * Gives billed units back, in one transaction with a record of its key: true when applied,
   * false when a credit with that key was applied before (so a retried credit is harmless).
   */
  creditUsage(credit: UsageCredit): Promise<boolean>;
  /** Units used by the account in `month` (`YYYY-MM`), all endpoints: the quota check. */
  usedUnits(accountId: string, month: string): Promise<number>;
  /** The invoice lines of `month`, by endpoint name. */
  usage(accountId: string, month: string): Promise<UsageLine[]>;
  /** The month's usage recorded with a day, by day then endpoint; days without calls are absent. */
  usageByDay(accountId: string, month: string): Promise<DailyUsageLine[]>;

  close(): Promise<void>;
}
