import { lookup } from 'node:dns/promises';
import { checkIp } from '@svc/ip-address';

/**
 * Why a webhook URL would be refused by the delivery's SSRF guard (the same `checkIp` rule as
 * batch-runner's default `isPublicIp`), checked before a job runs instead of after it finished.
 * A name is resolved now; the delivery still checks every answer again at connect time.
 * Returns the refusal, or undefined; `unresolved` when the name does not resolve right now
 * (the delivery will retry, so that is a warning, not a refusal).
 */
export async function privateWebhookTarget(
  url: string,
): Promise<{ refused: string } | { unresolved: string } | undefined> {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined; // not a URL: validateSubmit says so
  }
  const literal = checkIp(host);
  if (literal.ok) return undefined;
  if (literal.rule === 'special_purpose') return { refused: literal.message };
  let answers: { address: string }[];
  try {
    answers = await lookup(host, { all: true });
  } catch (error) {
    return { unresolved: `${host} does not resolve now (${(error as { code?: string }).code ?? error})` };
  }
  for (const { address } of answers) {
    const check = checkIp(address);
    if (!check.ok) return { refused: `${host} resolves to ${address}: ${check.message}` };
  }
  return undefined;
}
