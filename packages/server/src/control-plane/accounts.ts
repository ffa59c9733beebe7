import { createId, ServiceError } from '@svc/core';
import type { AuthContext } from '../context.js';
import { ENDPOINTS, type EndpointId, isEndpointId } from '../endpoints.js';
import { safeEqual } from './presented-credential.js';
import {
  generateApiKey,
  generateTokenSecret,
  generateWebhookSecret,
  hashSecret,
  last4,
  parseSecret,
  type ServerSecrets,
  webhookSecretPrefix,
} from './secrets.js';
import type { Account, ApiKey, ControlPlaneStore, Environment, Plan, Token, WebhookSecret } from './store.js';

/*
 * The account operations the HTTP routes and the operator CLI share, so both enforce the same
 * rules. Failures a caller can fix are ServiceErrors (the routes render them; the CLI prints the
 * message); plaintext secrets are returned once and never stored.
 */

/** What the operations need: the store, the server secrets (for webhook secrets) and a clock. */
export interface AccountDeps {
  controlPlane: ControlPlaneStore;
  secrets: ServerSecrets;
  /** ms since the epoch. */
  now(): number;
}

/** A key with its secret, which exists only in this value: show it once. */
export interface IssuedKey {
  key: ApiKey;
  secret: string;
}

/** A webhook signing secret with its plaintext, which exists only in this value: show it once. */
export interface IssuedWebhookSecret {
  record: WebhookSecret;
  secret: string;
}

/** Tokens live 1 h unless asked otherwise, 24 h at most (DESIGN §8), 60 s at least. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3_600;
export const MAX_TOKEN_TTL_SECONDS = 86_400;
export const MIN_TOKEN_TTL_SECONDS = 60;
/** Longest grace period of a rotated key or webhook secret: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400;
/** How often a key's `last_used_at` is written: at most once a minute, not on every request. */
export const TOUCH_INTERVAL_MS = 60_000;
const MAX_NAME_LENGTH = 200;

/** Endpoints a token may be scoped to: those any credential may call (not minting, not key management). */
export const TOKEN_SCOPES: readonly EndpointId[] = (Object.keys(ENDPOINTS) as EndpointId[]).filter(
  (id) => ENDPOINTS[id].auth === 'any',
);

/**
 * Key and webhook-secret management (the `live_key` endpoints), which a token may carry only when
 * asked for by name, minted from a live key, for at most `MAX_MANAGEMENT_TOKEN_TTL_SECONDS`: what
 * the dashboard signs in with, so the browser holds a short-lived token and never the key. A
 * token without scopes (all of TOKEN_SCOPES) never includes them.
 */
export const MANAGEMENT_SCOPES: readonly EndpointId[] = (Object.keys(ENDPOINTS) as EndpointId[]).filter(
  (id) => ENDPOINTS[id].auth === 'live_key',
);
/** Longest life of a token carrying a management scope: 1 h. */
export const MAX_MANAGEMENT_TOKEN_TTL_SECONDS = 3_600;

const invalid = (message: string) => new ServiceError('invalid_request', message);

function checkName(name: unknown, field: string): void {
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw invalid(`${field} must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
  }
}

function checkGrace(graceSeconds: unknown): number {
  if (
    !Number.isSafeInteger(graceSeconds) ||
    (graceSeconds as number) < 0 ||
    (graceSeconds as number) > MAX_GRACE_SECONDS
  ) {
    throw invalid(`grace_seconds must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (30 days)`);
  }
  return graceSeconds as number;
}

async function requirePlan(store: ControlPlaneStore, planId: string): Promise<Plan> {
  const plan = typeof planId === 'string' ? await store.getPlan(planId) : null;
  if (plan) return plan;
  const known =
    (await store.listPlans()).map((p) => p.id).join(', ') || 'none (start the server once to load them)';
  throw invalid(`unknown plan ${JSON.stringify(planId)}; plans: ${known}`);
}

async function requireAccount(store: ControlPlaneStore, accountId: string): Promise<Account> {
  const account = await store.getAccount(accountId);
  if (!account) throw new ServiceError('not_found', `no account ${accountId}`);
  return account;
}

async function requireKey(store: ControlPlaneStore, accountId: string, keyId: string): Promise<ApiKey> {
  const key = await store.getKey(accountId, keyId);
  // Another account's key is "not found" too: its existence is not the caller's business.
  if (!key) throw new ServiceError('not_found', `no key ${keyId} on this account`);
  return key;
}

/** True while a key may authenticate at `now`. */
export function isKeyUsable(key: ApiKey, now: number): boolean {
  return (
    (key.revoked_at === null || key.revoked_at > now) && (key.expires_at === null || key.expires_at > now)
  );
}

/**
 * True for a key that may manage the account (keys, management tokens, the webhook secret) at
 * `now`: a live key, usable, with no end date. A key with one (in a rotation's grace period, or
 * given one by an operator) still calls the API until then, but manages nothing: rotating a
 * leaked key takes control away from it at once.
 */
export function isKeyInCharge(key: ApiKey, now: number): boolean {
  return key.environment === 'live' && key.expires_at === null && isKeyUsable(key, now);
}

/** Why `key` may not manage the account, or null when it may (see isKeyInCharge). */
export function managementRefusal(key: ApiKey, now: number): string | null {
  if (key.environment !== 'live')
    return 'managing keys and secrets needs a live key (sk_live_…); a test key cannot';
  if (key.expires_at !== null) {
    const when = key.expires_at > now ? 'ends' : 'ended';
    return `key ${key.id} ${when} at ${new Date(key.expires_at).toISOString()} (rotated, or given an end date): until then it calls the API but manages no keys, tokens with management scopes or webhook secrets; use the key that replaced it`;
  }
  return isKeyUsable(key, now) ? null : `key ${key.id} is revoked`;
}

/** How long `authenticate` reuses a plan it read: plans change only when configuration is loaded. */
export const PLAN_CACHE_MS = 5_000;
// Per store, so two servers in one process (tests) never share plans.
const planCache = new WeakMap<ControlPlaneStore, Map<string, { plan: Plan; until: number }>>();

/** The plan, read through a short cache: it is needed on every request and almost never changes. */
async function cachedPlan(store: ControlPlaneStore, planId: string, now: number): Promise<Plan | null> {
  const hit = planInCache(store, planId, now);
  if (hit) return hit;
  let plans = planCache.get(store);
  if (!plans) {
    plans = new Map();
    planCache.set(store, plans);
  }
  const plan = await store.getPlan(planId);
  if (plan) plans.set(planId, { plan, until: now + PLAN_CACHE_MS });
  else plans.delete(planId);
  return plan;
}

/** The plan when the plan cache holds it fresh; undefined otherwise. */
function planInCache(store: ControlPlaneStore, planId: string, now: number): Plan | undefined {
  const hit = planCache.get(store)?.get(planId);
  return hit && hit.until > now ? hit.plan : undefined;
}

/**
 * How long `authenticate` reuses the key (or token), and the account, it read for a credential.
 * A change made through this process's account operations (revokeKey, rotateKey,
 * setAccountDisabled, setAccountPlan) applies at once; one made by ANOTHER process sharing the
 * store (e.g. `svc keys revoke` against the server's SQLite file) takes at most this long.
 * Expiry, revocation and disable times are still compared with the clock on every request.
 */
export const CREDENTIAL_CACHE_MS = 2_000;
/** At most this many credentials are cached per store; the oldest entry leaves first. */
export const CREDENTIAL_CACHE_MAX = 10_000;

interface CachedCredential {
  key: ApiKey;
  token: Token | null;
  account: Account;
  until: number;
}
// Per store, keyed by the credential's hash. Only credentials that authenticated are cached:
// unknown ones would let a guesser fill the cache (they are limited per address instead).
interface CredentialCache {
  entries: Map<string, CachedCredential>;
  // Bumped by every forget: a lookup that began before one must not cache what it read.
  generation: number;
}
const credentialCache = new WeakMap<ControlPlaneStore, CredentialCache>();

function credentialsOf(store: ControlPlaneStore): CredentialCache {
  let cache = credentialCache.get(store);
  if (!cache) {
    cache = { entries: new Map(), generation: 0 };
    credentialCache.set(store, cache);
  }
  return cache;
}

/** Drops every cached credential of the account: its keys, tokens or account record changed here. */
export function forgetCredentials(store: ControlPlaneStore, accountId: string): void {
  const cache = credentialCache.get(store);
  if (!cache) return;
  cache.generation++;
  for (const [hash, entry] of cache.entries) if (entry.account.id === accountId) cache.entries.delete(hash);
}

/** How many credentials are cached for the store (for tests and diagnostics). */
export function cachedCredentialCount(store: ControlPlaneStore): number {
  return credentialCache.get(store)?.entries.size ?? 0;
}

/**
 * Writes the configured plans into the store (at server start, and before the CLI creates an
 * account), so accounts can only be put on plans that exist. This process sees the new plans at once.
 */
export async function syncPlans(store: ControlPlaneStore, plans: Record<string, Plan>): Promise<void> {
  for (const plan of Object.values(plans)) await store.upsertPlan(plan);
  planCache.delete(store);
}

/** Makes a key record and its secret (not stored yet). */
function issueKey(
  accountId: string,
  environment: Environment,
  name: string | null,
  now: number,
  rotatedFrom: string | null = null,
  createdBy: string | null = null,
): IssuedKey {
  const secret = generateApiKey(environment);
  return {
    secret,
    key: {
      id: createId('key', now),
      account_id: accountId,
      environment,
      name,
      hash: hashSecret(secret),
      last4: last4(secret),
      created_at: now,
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      rotated_from: rotatedFrom,
      created_by: createdBy,
    },
  };
}

function issueWebhookSecret(secrets: ServerSecrets, accountId: string, now: number): IssuedWebhookSecret {
  const secret = generateWebhookSecret();
  return {
    secret,
    record: {
      id: createId('wsec', now),
      account_id: accountId,
      // Bound to the account: a sealed secret copied to another account's row will not unseal.
      sealed: secrets.seal(secret, accountId),
      prefix: webhookSecretPrefix(secret),
      created_at: now,
      expires_at: null,
    },
  };
}

/** Options of `createAccount`. */
export interface CreateAccountInput {
  name: string;
  planId: string;
  /** @default deps.now() */
  now?: number;
}

/** A new account with its first keys and webhook secret, as createAccount returns it. */
export type CreatedAccount = {
  account: Account;
  testKey: IssuedKey;
  liveKey: IssuedKey;
  webhookSecret: IssuedWebhookSecret;
};

/** The records of a new account (checked, not stored yet). */
async function newAccount(deps: AccountDeps, input: CreateAccountInput): Promise<CreatedAccount> {
  checkName(input.name, 'name');
  await requirePlan(deps.controlPlane, input.planId);
  const now = input.now ?? deps.now();
  const account: Account = {
    id: createId('acct', now),
    name: input.name.trim(),
    plan_id: input.planId,
    created_at: now,
    disabled_at: null,
  };
  return {
    account,
    testKey: issueKey(account.id, 'test', 'default', now),
    liveKey: issueKey(account.id, 'live', 'default', now),
    webhookSecret: issueWebhookSecret(deps.secrets, account.id, now),
  };
}

/** Stores the keys and the webhook secret of an account just stored. */
async function storeCredentials(store: ControlPlaneStore, created: CreatedAccount): Promise<CreatedAccount> {
  await store.createKey(created.testKey.key);
  await store.createKey(created.liveKey.key);
  await store.addWebhookSecret(created.webhookSecret.record);
  return created;
}

/** A new account on a plan, with its first test key, first live key and first webhook secret. */
export async function createAccount(deps: AccountDeps, input: CreateAccountInput): Promise<CreatedAccount> {
  const created = await newAccount(deps, input);
  await deps.controlPlane.createAccount(created.account);
  return storeCredentials(deps.controlPlane, created);
}

/**
 * As createAccount, but only when the store has no account yet (the server's first start);
 * null when it has one. Atomic across processes on the same data (see
 * ControlPlaneStore.createFirstAccount): servers starting together make one owner.
 */
export async function createFirstAccount(
  deps: AccountDeps,
  input: CreateAccountInput,
): Promise<CreatedAccount | null> {
  const created = await newAccount(deps, input);
  if (!(await deps.controlPlane.createFirstAccount(created.account))) return null;
  return storeCredentials(deps.controlPlane, created);
}

/** Moves an account to another plan (which must exist). */
export async function setAccountPlan(
  store: ControlPlaneStore,
  input: { accountId: string; planId: string },
): Promise<Account> {
  await requirePlan(store, input.planId);
  const account = await store.updateAccount(input.accountId, { plan_id: input.planId });
  forgetCredentials(store, input.accountId);
  if (!account) throw new ServiceError('not_found', `no account ${input.accountId}`);
  return account;
}

/** Disables an account (its keys and tokens stop working at once) or, with `disabled: false`, enables it again. */
export async function setAccountDisabled(
  store: ControlPlaneStore,
  input: { accountId: string; disabled: boolean; now?: number },
): Promise<Account> {
  const current = await requireAccount(store, input.accountId);
  // Disabling twice keeps the first time: it is when the account stopped working.
  const disabledAt = input.disabled ? (current.disabled_at ?? input.now ?? Date.now()) : null;
  const account = (await store.updateAccount(input.accountId, { disabled_at: disabledAt })) as Account;
  forgetCredentials(store, input.accountId);
  return account;
}

/** Options of `createKey`. */
export interface CreateKeyInput {
  accountId: string;
  environment: Environment;
  name?: string | null;
  /**
   * The key of the caller making it over the API (a token's key for a token): revoking that key
   * revokes this one. Absent for the operator.
   */
  createdBy?: string | null;
  /** @default Date.now() */
  now?: number;
}

/** A new key for the account; its secret is in the result only. */
export async function createKey(store: ControlPlaneStore, input: CreateKeyInput): Promise<IssuedKey> {
  if (input.environment !== 'live' && input.environment !== 'test') {
    throw invalid(`environment must be "live" or "test", got ${JSON.stringify(input.environment)}`);
  }
  const name = input.name ?? null;
  if (name !== null) checkName(name, 'name');
  await requireAccount(store, input.accountId);
  const issued = issueKey(
    input.accountId,
    input.environment,
    name,
    input.now ?? Date.now(),
    null,
    input.createdBy ?? null,
  );
  await store.createKey(issued.key);
  return issued;
}

/** Options of `rotateKey`. */
export interface RotateKeyInput {
  accountId: string;
  keyId: string;
  /** How long the old key keeps working (0 = it stops now). */
  graceSeconds: number;
  /**
   * The key of the caller rotating over the API (a token's key for a token). When it is another
   * key, the new key is that key's creation (revoking it revokes the new key); a key rotating
   * itself, or the operator, hands the new key the old one's creator.
   */
  by?: string | null;
  /** @default Date.now() */
  now?: number;
}

/**
 * Replaces a key: a new key of the same environment and name now, and the old one stops after
 * the grace period (never later than it would have anyway).
 */
export async function rotateKey(
  store: ControlPlaneStore,
  input: RotateKeyInput,
): Promise<IssuedKey & { previous: ApiKey }> {
  const grace = checkGrace(input.graceSeconds);
  const now = input.now ?? Date.now();
  const old = await requireKey(store, input.accountId, input.keyId);
  if (!isKeyUsable(old, now)) {
    throw invalid(
      `key ${old.id} is ${old.revoked_at !== null ? 'revoked' : 'expired'}; create a new key instead`,
    );
  }
  const createdBy =
    input.by === undefined || input.by === null || input.by === old.id ? old.created_by : input.by;
  const issued = issueKey(old.account_id, old.environment, old.name, now, old.id, createdBy);
  await store.createKey(issued.key);
  const end = Math.min(now + grace * 1000, old.expires_at ?? Number.POSITIVE_INFINITY);
  const previous = (await store.updateKey(old.account_id, old.id, { expires_at: end })) as ApiKey;
  forgetCredentials(store, old.account_id);
  return { ...issued, previous };
}

/** What `revokeKey` ended: the key, and the keys made with it (`created_by`), in the order revoked. */
export interface RevokedKey {
  key: ApiKey;
  /** The keys made with it, and those made with them, revoked with it now (never ones already revoked). */
  alsoRevoked: ApiKey[];
}

/**
 * The keys of `keys` made with `keyId` (`created_by`), and those made with them, oldest first;
 * without the key itself.
 */
export function keysMadeWith(keys: readonly ApiKey[], keyId: string): ApiKey[] {
  const made: ApiKey[] = [];
  const ids = new Set([keyId]);
  // Breadth first over a list sorted by creation; the set also stops a malformed cycle.
  for (let grew = true; grew; ) {
    grew = false;
    for (const key of keys) {
      if (key.created_by !== null && ids.has(key.created_by) && !ids.has(key.id)) {
        ids.add(key.id);
        made.push(key);
        grew = true;
      }
    }
  }
  return made.sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
}

/**
 * Revokes a key now, with every key made with it over the API (`created_by`, transitively), so a
 * leaked key's creations end with it; every token any of them minted stops too (`authenticate`
 * checks a token's key). Revoking a revoked key changes nothing and returns it (with the keys made
 * with it that are not revoked yet).
 */
export async function revokeKey(
  store: ControlPlaneStore,
  input: { accountId: string; keyId: string; now?: number },
): Promise<RevokedKey> {
  const now = input.now ?? Date.now();
  const key = await requireKey(store, input.accountId, input.keyId);
  const made = keysMadeWith(await store.listKeys(key.account_id), key.id);
  const end = async (target: ApiKey): Promise<ApiKey> =>
    target.revoked_at !== null
      ? target
      : ((await store.updateKey(target.account_id, target.id, { revoked_at: now })) as ApiKey);
  const revoked = await end(key);
  const alsoRevoked: ApiKey[] = [];
  for (const other of made) if (other.revoked_at === null) alsoRevoked.push(await end(other));
  forgetCredentials(store, key.account_id);
  return { key: revoked, alsoRevoked };
}

/** Options of `mintToken`. */
export interface MintTokenInput {
  /** @default DEFAULT_TOKEN_TTL_SECONDS (1 h); 60 s to 24 h */
  ttlSeconds?: number;
  /**
   * Endpoint ids (from TOKEN_SCOPES, and MANAGEMENT_SCOPES from a live key); null or absent =
   * every endpoint of TOKEN_SCOPES.
   */
  scopes?: readonly string[] | null;
}

/**
 * Exchanges the caller's key for a `tok_…` token on the same account and environment. A token
 * never outlives its key, and a token cannot mint another. Management scopes need a live key and
 * a lifetime of at most an hour.
 */
export async function mintToken(
  deps: Pick<AccountDeps, 'controlPlane' | 'now'>,
  auth: AuthContext,
  input: MintTokenInput = {},
): Promise<{ token: Token; secret: string }> {
  if (auth.token) throw new ServiceError('invalid_api_key', 'a token cannot mint tokens; use an API key');
  const ttl = input.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (!Number.isSafeInteger(ttl) || ttl < MIN_TOKEN_TTL_SECONDS || ttl > MAX_TOKEN_TTL_SECONDS) {
    throw invalid(
      `ttl_seconds must be a whole number from ${MIN_TOKEN_TTL_SECONDS} to ${MAX_TOKEN_TTL_SECONDS} (24 hours)`,
    );
  }
  let scopes: EndpointId[] | null = null;
  if (input.scopes !== undefined && input.scopes !== null) {
    if (!Array.isArray(input.scopes) || input.scopes.length === 0) {
      throw invalid('scopes must list at least one endpoint, or be left out for all of them');
    }
    scopes = [];
    for (const [index, scope] of input.scopes.entries()) {
      const management = isEndpointId(scope) && MANAGEMENT_SCOPES.includes(scope);
      if (!isEndpointId(scope) || !(TOKEN_SCOPES.includes(scope) || management)) {
        throw invalid(
          `scopes[${index}]: ${JSON.stringify(scope)} is not an endpoint a token may call; use ${[...TOKEN_SCOPES, ...MANAGEMENT_SCOPES].join(', ')}`,
        );
      }
      if (management && auth.key.environment !== 'live') {
        throw new ServiceError(
          'invalid_api_key',
          `scopes[${index}]: ${scope} manages keys or secrets, which needs a live key (sk_live_…); a test key cannot grant it`,
        );
      }
      const refusal = management ? managementRefusal(auth.key, deps.now()) : null;
      if (refusal) {
        throw new ServiceError(
          'invalid_api_key',
          `scopes[${index}]: ${scope} manages keys or secrets, which this key cannot grant: ${refusal}`,
        );
      }
      if (management && ttl > MAX_MANAGEMENT_TOKEN_TTL_SECONDS) {
        throw invalid(
          `ttl_seconds must be at most ${MAX_MANAGEMENT_TOKEN_TTL_SECONDS} (1 hour) for a token with ${scope} in its scopes`,
        );
      }
      if (!scopes.includes(scope)) scopes.push(scope);
    }
  }
  const now = deps.now();
  const secret = generateTokenSecret();
  const token: Token = {
    id: createId('tok', now),
    account_id: auth.account.id,
    key_id: auth.key.id,
    environment: auth.key.environment,
    hash: hashSecret(secret),
    scopes,
    created_at: now,
    expires_at: Math.min(now + ttl * 1000, auth.key.expires_at ?? Number.POSITIVE_INFINITY),
  };
  await deps.controlPlane.createToken(token);
  return { token, secret };
}

/**
 * A new webhook signing secret for the account; the older ones keep signing until the grace
 * period ends (deliveries carry one signature per active secret). `previousExpiresAt` is when
 * they stop, or null when the account had none.
 */
export async function rotateWebhookSecret(
  deps: AccountDeps,
  input: { accountId: string; graceSeconds: number; now?: number },
): Promise<IssuedWebhookSecret & { previousExpiresAt: number | null }> {
  const grace = checkGrace(input.graceSeconds);
  const now = input.now ?? deps.now();
  await requireAccount(deps.controlPlane, input.accountId);
  const before = await deps.controlPlane.activeWebhookSecrets(input.accountId, now);
  const issued = issueWebhookSecret(deps.secrets, input.accountId, now);
  await deps.controlPlane.addWebhookSecret(issued.record);
  const end = now + grace * 1000;
  await deps.controlPlane.expireWebhookSecrets(input.accountId, issued.record.id, end);
  return { ...issued, previousExpiresAt: before.length > 0 ? end : null };
}

/**
 * The account's webhook signing secrets in plaintext, newest first: what the webhook dispatcher
 * signs each delivery with (one signature per secret during a rotation's grace period).
 */
export async function webhookSigningSecrets(
  deps: AccountDeps,
  accountId: string,
  now: number = deps.now(),
): Promise<string[]> {
  const active = await deps.controlPlane.activeWebhookSecrets(accountId, now);
  return active.map((secret) => deps.secrets.unseal(secret.sealed, accountId));
}

/**
 * Who presents `presented` (an `X-API-Key` value): a live or test key, or a token, with its
 * account and plan; null when it is missing, malformed, unknown, revoked, expired, or its
 * account is disabled. One indexed read for a key, two for a token, plus the account and plan;
 * none while the credential is cached (CREDENTIAL_CACHE_MS), though its expiry, revocation and
 * the account's disable time are still checked against the clock.
 */
export async function authenticate(
  deps: Pick<AccountDeps, 'controlPlane' | 'now'>,
  presented: unknown,
): Promise<AuthContext | null> {
  const shape = parseSecret(presented);
  if (!shape) return null;
  const store = deps.controlPlane;
  const now = deps.now();
  const hash = hashSecret(presented as string);
  const cache = credentialsOf(store);
  const hit = cache.entries.get(hash);
  if (hit && hit.until > now) return finish(store, cache, hash, hit, now);
  const generation = cache.generation;
  let key: ApiKey | null;
  let token: Token | null = null;
  if (shape.kind === 'token') {
    token = await store.findTokenByHash(hash);
    if (!token || !safeEqual(token.hash, hash) || token.expires_at <= now) return null;
    key = await store.getKey(token.account_id, token.key_id);
  } else {
    key = await store.findKeyByHash(hash);
    if (key && (!safeEqual(key.hash, hash) || key.environment !== shape.environment)) return null;
  }
  cache.entries.delete(hash);
  if (!key) return null;
  const account = await store.getAccount(key.account_id);
  if (!account) return null;
  const entry: CachedCredential = { key, token, account, until: now + CREDENTIAL_CACHE_MS };
  if (cache.generation === generation) {
    // Inserted at the end, so the Map's order is the order entries expire in.
    cache.entries.delete(hash);
    if (cache.entries.size >= CREDENTIAL_CACHE_MAX) {
      const oldest = cache.entries.keys().next().value;
      if (oldest !== undefined) cache.entries.delete(oldest);
    }
    cache.entries.set(hash, entry);
  }
  return finish(store, cache, hash, entry, now);
}

/**
 * What `authenticate` would answer, when it can tell at once: the credential authenticated in
 * the last CREDENTIAL_CACHE_MS, is still usable by the clock, its plan is cached and its key
 * needs no `last_used_at` touch. Otherwise undefined: ask `authenticate`, which reads the store
 * (and refuses what is refused). The auth plugin answers almost every request this way, without
 * a promise; nothing is ever refused here, so a failure always takes the counted path.
 */
export function cachedCredential(
  deps: Pick<AccountDeps, 'controlPlane' | 'now'>,
  presented: string,
  /** `hashSecret(presented)`, when the caller has it already. */
  hash: string = hashSecret(presented),
): AuthContext | undefined {
  const store = deps.controlPlane;
  const entry = credentialCache.get(store)?.entries.get(hash);
  const now = deps.now();
  if (!entry || entry.until <= now || !usableNow(entry, now) || needsTouch(entry.key, now)) return undefined;
  const plan = planInCache(store, entry.account.plan_id, now);
  if (!plan) return undefined;
  return {
    account: entry.account,
    plan,
    environment: entry.key.environment,
    key: entry.key,
    token: entry.token,
  };
}

/** The checks against the clock every request makes, cached or not: expiry, revocation, disable. */
function usableNow({ key, token, account }: CachedCredential, now: number): boolean {
  if (token && token.expires_at <= now) return false;
  if (!isKeyUsable(key, now)) return false;
  return account.disabled_at === null || account.disabled_at > now;
}

/** Whether a request now should record the key's `last_used_at` (at most every TOUCH_INTERVAL_MS). */
function needsTouch(key: ApiKey, now: number): boolean {
  return key.last_used_at === null || now - key.last_used_at >= TOUCH_INTERVAL_MS;
}

/** The checks against the clock every request makes, cached or not, then the plan and the touch. */
async function finish(
  store: ControlPlaneStore,
  cache: CredentialCache,
  hash: string,
  entry: CachedCredential,
  now: number,
): Promise<AuthContext | null> {
  const { account } = entry;
  let key = entry.key;
  if (!usableNow(entry, now)) return null;
  const plan = await cachedPlan(store, account.plan_id, now);
  // A plan removed from the configuration while accounts use it is the operator's error: a 500
  // that names it, rather than a 401 that would send the customer looking at their key.
  if (!plan)
    throw new Error(
      `account ${account.id} is on plan ${JSON.stringify(account.plan_id)}, which is not configured`,
    );
  if (needsTouch(key, now)) {
    await store.touchKey(key.id, now);
    key = { ...key, last_used_at: now };
    // The cached record too, or every request would touch the key until the entry expired.
    if (cache.entries.get(hash) === entry) entry.key = key;
  }
  return { account, plan, environment: key.environment, key, token: entry.token };
}
