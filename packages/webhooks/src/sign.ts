import { MAX_TIMESTAMP_SECONDS } from './header.js';
import { assertRawBody, hmacOf } from './hmac.js';
import { secretList } from './secrets.js';

/** Options of signPayload. */
export interface SignOptions {
  /**
   * Unix time in whole seconds written as `t=`.
   * @default the current time
   */
  timestamp?: number;
}

/**
 * The `X-Service-Signature` value for a body: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, one v1
 * per secret in the order given (newest first during a rotation). The signed string is
 * `<t>.<exact body bytes>`, HMAC-SHA256, lowercase hex: Stripe's scheme, so Stripe's SDK
 * verifies it too. Throws a TypeError for an empty secret list, an empty secret or a bad timestamp.
 */
export function signPayload(
  body: string | Uint8Array,
  secrets: string | readonly string[],
  options: SignOptions = {},
): string {
  assertRawBody(body);
  const list = secretList(secrets);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(`timestamp must be whole unix seconds >= 0, got ${timestamp}`);
  }
  if (timestamp > MAX_TIMESTAMP_SECONDS) {
    // Verifiers (ours included) would refuse the header; say so at the source.
    throw new TypeError(`timestamp must be unix seconds, got ${timestamp} (milliseconds?)`);
  }
  let header = `t=${timestamp}`;
  for (const secret of list) header += `,v1=${hmacOf(timestamp, body, secret).toString('hex')}`;
  return header;
}
