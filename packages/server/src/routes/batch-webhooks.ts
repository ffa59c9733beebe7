import { isIP } from 'node:net';
import { systemLookup, type WebhookLookup, type WebhookSecretsQuery } from '@svc/batch-runner';
import { isPublicIp } from '@svc/ip-address';
import type { ServerContext } from '../context.js';
import { webhookSigningSecrets } from '../control-plane/accounts.js';
import { trustedProxyMatcher } from '../plugins/client-address.js';

/**
 * The SSRF guard of webhook delivery on this server: public unicast addresses, plus the ranges
 * the operator allow-listed in `webhooks.allowPrivateTargets` (an intranet receiver, tests).
 * Give the same guard to the dispatcher (`isAllowedAddress`) and to the submit-time check.
 */
export function webhookAddressGuard(options: ServerContext['options']): (ip: string) => boolean {
  const allowed = trustedProxyMatcher(options.webhooks.allowPrivateTargets);
  return (ip) => isPublicIp(ip) || allowed(ip);
}

/**
 * The dispatcher's `secretsFor`: the job's account's active webhook signing secrets, newest
 * first (two during a rotation's grace period). A job without an account has none here.
 */
export function accountWebhookSecrets(
  svc: Pick<ServerContext, 'controlPlane' | 'secrets' | 'now'>,
): (query: WebhookSecretsQuery) => Promise<string[]> {
  return async ({ accountId }) => (accountId ? webhookSigningSecrets(svc, accountId) : []);
}

/**
 * Why a webhook URL would be refused by delivery's SSRF guard, checked when a job is submitted
 * (400 then, instead of a job whose webhook can never arrive): an IP literal the guard refuses, or
 * a name any of whose addresses it refuses. A name that does not resolve now is accepted (it may
 * be set up before the job ends; delivery checks every answer again at connect time).
 */
export async function refusedWebhookTarget(
  url: string,
  isAllowed: (ip: string) => boolean,
  lookup: WebhookLookup = systemLookup,
): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const hint =
    'webhooks are only delivered to public addresses unless the operator allow-lists the range (webhooks.allowPrivateTargets)';
  if (isIP(host))
    return isAllowed(host) ? null : `"webhook_url" points to ${host}, a private or reserved address: ${hint}`;
  let answers: { address: string }[];
  try {
    answers = await lookup(host);
  } catch {
    return null;
  }
  const refused = answers.find(({ address }) => !isAllowed(address));
  return refused
    ? `"webhook_url" host ${host} resolves to ${refused.address}, a private or reserved address: ${hint}`
    : null;
}
