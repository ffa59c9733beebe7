import { secretList, signatureOf } from './hmac.js';

/** The header that carries the signature. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Service-Signature';

/** Options of signPayload. */
export interface SignOptions {
  /**
   * Unix time in seconds put in `t=`.
   * @default the current time
   */
  timestamp?: number;
}

/**
 * The `X-Service-Signature` value for a body: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, one v1
 * per secret in the order given (newest first during a rotation). The signed string is
 * `<t>.<exact body bytes>`, HMAC-SHA256, lowercase hex: Stripe's scheme, so Stripe's SDK
 * verifies it too.
 */
export function signPayload(
  body: string | Uint8Array,
  secrets: string | readonly string[],
  options: SignOptions = {},
): string {
  const list = secretList(secrets);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(`timestamp must be whole unix seconds, got ${timestamp}`);
  }
  return [`t=${timestamp}`, ...list.map((secret) => `v1=${signatureOf(timestamp, body, secret)}`)].join(',');
}
