import { createHmac } from 'node:crypto';

/** The Standard Webhooks headers (standardwebhooks.com), sent beside `X-Service-Signature`. */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

// `whsec_` and canonical base64 (what the server generates): the Standard Webhooks secret format.
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * The HMAC key Standard Webhooks uses for a secret: the bytes of the base64 after `whsec_`, as
 * `new Webhook(secret)` of the `standardwebhooks` package decodes it. A secret of another shape
 * (a CLI user's own `whsec_test`, say) is not base64, so its UTF-8 bytes are the key, which the
 * receiver gets with `new Webhook(secret, { format: 'raw' })`.
 */
export function standardWebhookKey(secret: string): Buffer {
  const base64 = STANDARD_SECRET.exec(secret)?.[1];
  return base64 ? Buffer.from(base64, 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * The `webhook-signature` value: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per
 * secret, space-separated, in the order given (newest first during a rotation).
 */
export function signStandardWebhook(
  id: string,
  timestamp: number,
  body: string,
  secrets: readonly string[],
): string {
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', standardWebhookKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
    )
    .join(' ');
}
