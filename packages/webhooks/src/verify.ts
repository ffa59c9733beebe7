import { timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { parseEvent, type WebhookEvent } from './event.js';
import { MAX_TIMESTAMP_SECONDS, parseSignatureHeader, WEBHOOK_SIGNATURE_HEADER } from './header.js';
import { assertRawBody, hmacOf } from './hmac.js';
import { secretList } from './secrets.js';

/** Options of verifyPayload and verifyRequest. */
export interface VerifyOptions {
  /**
   * Largest accepted distance between `t=` and now, in seconds, in both directions (the
   * boundary itself is accepted). Must be a finite number >= 0.
   * @default 300
   */
  toleranceSeconds?: number;
  /**
   * The current unix time in seconds (tests; checking a stored request later).
   * @default the current time
   */
  now?: number;
}

/**
 * Checks a signature header against the exact body bytes and returns the parsed event, or throws
 * WebhookVerificationError with a `reason`. Signatures are compared in constant time; any `v1`
 * matching any secret is enough (rotation). Bad arguments (a non-raw body, bad options) are
 * TypeErrors; an unusable secret list is the `no_secrets` reason.
 */
export function verifyPayload<T = unknown>(
  body: string | Uint8Array,
  header: string | null | undefined,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent<T> {
  assertRawBody(body);
  const { tolerance, now } = resolveOptions(options);
  let list: readonly string[];
  try {
    list = secretList(secrets);
  } catch (error) {
    throw new WebhookVerificationError('no_secrets', (error as Error).message);
  }
  if (header === null || header === undefined || header === '') {
    throw new WebhookVerificationError(
      'missing_header',
      `the ${WEBHOOK_SIGNATURE_HEADER} header is missing or empty`,
    );
  }
  const { timestamp, signatures } = parseSignatureHeader(header);
  // Clock checks first: they are cheap, and a replay is more useful to report than a mismatch.
  if (timestamp < now - tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `the signature is ${now - timestamp} s old, more than the tolerance of ${tolerance} s`,
    );
  }
  if (timestamp > now + tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `the signature is dated ${timestamp - now} s in the future, more than the tolerance of ${tolerance} s`,
    );
  }
  if (!list.some((secret) => matchesAny(hmacOf(timestamp, body, secret), signatures))) {
    throw new WebhookVerificationError('no_matching_signature', mismatchMessage(list));
  }
  return parseEvent<T>(
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
  );
}

/** Both sides are 32 bytes (the header grammar guarantees it), as timingSafeEqual requires. */
function matchesAny(expected: Buffer, signatures: readonly Buffer[]): boolean {
  let found = false;
  // No early exit: the time taken does not depend on which signature matched.
  for (const signature of signatures) {
    if (signature.length === expected.length && timingSafeEqual(expected, signature)) found = true;
  }
  return found;
}

function mismatchMessage(secrets: readonly string[]): string {
  let message =
    'no v1 signature matches the body with any of the secrets: wrong secret, or the body was changed or re-serialised (verify the raw bytes received)';
  // A trailing newline from a secrets file is the classic way to get here with the right secret.
  if (secrets.some((secret) => secret.trim() !== secret)) {
    message += '; note: a secret starts or ends with whitespace';
  }
  return message;
}

function resolveOptions(options: VerifyOptions): { tolerance: number; now: number } {
  const tolerance = options.toleranceSeconds ?? 300;
  // NaN would make both clock comparisons false and silently switch the replay check off.
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError(`toleranceSeconds must be a finite number >= 0, got ${tolerance}`);
  }
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (typeof now !== 'number' || !Number.isFinite(now) || now < 0) {
    throw new TypeError(`now must be unix seconds, got ${now}`);
  }
  if (now > MAX_TIMESTAMP_SECONDS)
    throw new TypeError(`now must be unix seconds, got ${now} (milliseconds?)`);
  return { tolerance, now };
}
