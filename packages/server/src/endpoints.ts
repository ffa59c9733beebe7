import { MAX_BATCH_RECORDS, MAX_BULK_VERIFY_EMAILS } from '@svc/core';

/**
 * Every endpoint of the /v2 API by id: what authenticates it and how it is billed. Plans list
 * these ids (`Plan.endpoints`), tokens carry them as scopes, usage lines are named by them, and
 * each route declares its id in `config.endpoint`, so auth, limits and usage are hooks that read
 * this table instead of code in handlers.
 */

/**
 * - `none`: no key (health, the OpenAPI document).
 * - `any`: a key or a token.
 * - `key`: a key, never a token (minting tokens).
 * - `live_key`: a live key only (managing keys and secrets).
 */
export type AuthRequirement = 'none' | 'any' | 'key' | 'live_key';

export interface EndpointSpec {
  auth: AuthRequirement;
  /** Counts against the allowance and appears on the invoice (live keys only). */
  billable: boolean;
  /** Callable by plans that list it; false = every authenticated account may call it. */
  planGated: boolean;
  /**
   * The most entries of the list its JSON body carries (bulk addresses, batch records). Its body
   * limits grow with it (`jsonBodyLimits` in plugins/json-body.ts); without one the body is small.
   */
  listItems?: number;
  /**
   * The answer is always one small object (well under compression's 1 KiB threshold): the
   * compression hooks, which cost a call a few µs to decide not to compress, are left off.
   */
  smallAnswer?: true;
}

export const ENDPOINTS = {
  verify_email: { auth: 'any', billable: true, planGated: true, smallAnswer: true },
  verify_email_bulk: { auth: 'any', billable: true, planGated: true, listItems: MAX_BULK_VERIFY_EMAILS },
  verify_email_cache_delete: { auth: 'any', billable: false, planGated: false },
  geo_ip: { auth: 'any', billable: true, planGated: true, smallAnswer: true },
  geo_me: { auth: 'any', billable: true, planGated: true, smallAnswer: true },
  enrich_contact: { auth: 'any', billable: true, planGated: true },
  enrich_company: { auth: 'any', billable: true, planGated: true },
  batch_create: { auth: 'any', billable: true, planGated: true, listItems: MAX_BATCH_RECORDS },
  batch_get: { auth: 'any', billable: false, planGated: false },
  batch_list: { auth: 'any', billable: false, planGated: false },
  batch_results: { auth: 'any', billable: false, planGated: false },
  batch_cancel: { auth: 'any', billable: false, planGated: false },
  batch_events: { auth: 'any', billable: false, planGated: false },
  event_resend: { auth: 'any', billable: false, planGated: false },
  webhooks_test: { auth: 'any', billable: false, planGated: false },
  tokens_create: { auth: 'key', billable: false, planGated: false, smallAnswer: true },
  usage_get: { auth: 'any', billable: false, planGated: false },
  account_get: { auth: 'any', billable: false, planGated: false },
  keys_list: { auth: 'live_key', billable: false, planGated: false },
  keys_create: { auth: 'live_key', billable: false, planGated: false },
  keys_rotate: { auth: 'live_key', billable: false, planGated: false },
  keys_revoke: { auth: 'live_key', billable: false, planGated: false },
  webhook_secret_rotate: { auth: 'live_key', billable: false, planGated: false },
  feedback_receive: { auth: 'none', billable: false, planGated: false },
  feedback_provider_put: { auth: 'live_key', billable: false, planGated: false },
  feedback_providers_list: { auth: 'any', billable: false, planGated: false },
  feedback_provider_delete: { auth: 'live_key', billable: false, planGated: false },
  feedback_stats: { auth: 'any', billable: false, planGated: false },
  health: { auth: 'none', billable: false, planGated: false },
  openapi: { auth: 'none', billable: false, planGated: false },
} as const satisfies Record<string, EndpointSpec>;

export type EndpointId = keyof typeof ENDPOINTS;

export const ENDPOINT_IDS = Object.keys(ENDPOINTS) as EndpointId[];

/** The endpoints a plan can be limited to (`Plan.endpoints`). */
export const PLAN_GATED_ENDPOINTS = ENDPOINT_IDS.filter((id) => ENDPOINTS[id].planGated);

export function isEndpointId(value: unknown): value is EndpointId {
  return typeof value === 'string' && Object.hasOwn(ENDPOINTS, value);
}
