import { timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { secretList, signatureOf } from './hmac.js';
import { WEBHOOK_SIGNATURE_HEADER } from './sign.js';

/** The webhook envelope (DESIGN §6); `data.object` is the batch job for batch events. */
export interface WebhookEvent<T = unknown> {
  id: string;
  object: 'event';
  type: string;
  /** Unix seconds. */
  created: number;
  data: { object: T };
}

/** Options of verifyPayload. */
export interface VerifyOptions {
  /**
   * Largest accepted distance between `t=` and now, both ways, in seconds.
   * @default 300
   */
  toleranceSeconds?: number;
  /**
   * The current unix time in seconds (tests, replays of stored requests).
   * @default the current time
   */
  now?: number;
}

const TIMESTAMP = /^t=(\d{1,12})$/;
const SIGNATURE = /^v1=([0-9a-f]{64})$/;
const OTHER_SCHEME = /^v\d+=/;

/**
 * Checks a signature header against the exact body bytes and returns the parsed event, or throws
 * WebhookVerificationError with a reason. The header grammar is strict: `t=` exactly once and
 * first-class digits, `v1=` as 64 lowercase hex digits, no spaces; other schemes (`v0=`) are
 * ignored as Stripe does. Signatures are compared in constant time.
 */
export function verifyPayload<T = unknown>(
  body: string | Uint8Array,
  header: string | null | undefined,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent<T> {
  let list: readonly string[];
  try {
    list = secretList(secrets);
  } catch (error) {
    throw new WebhookVerificationError('no_secrets', (error as Error).message);
  }
  if (header === null || header === undefined || header === '') {
    throw new WebhookVerificationError('missing_header', `the ${WEBHOOK_SIGNATURE_HEADER} header is missing`);
  }
  const { timestamp, signatures } = parseHeader(header);
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (timestamp < now - tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `the signature is ${now - timestamp} s old (tolerance ${tolerance} s)`,
    );
  }
  if (timestamp > now + tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `the signature is dated ${timestamp - now} s in the future (tolerance ${tolerance} s)`,
    );
  }
  const matched = list.some((secret) => {
    const expected = Buffer.from(signatureOf(timestamp, body, secret), 'hex');
    return signatures.some((signature) => timingSafeEqual(expected, signature));
  });
  if (!matched) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      'no v1 signature matches the body with any of the secrets (was the body re-serialised or the secret rotated?)',
    );
  }
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  try {
    return JSON.parse(text) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the signed body is not JSON');
  }
}

function parseHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const time = TIMESTAMP.exec(part);
    if (time) {
      if (timestamp !== undefined) throw malformed('t= appears more than once');
      timestamp = Number(time[1]);
      continue;
    }
    if (/^t=\d{13,}$/.test(part))
      throw malformed('t= has 13 or more digits: milliseconds? t= is unix seconds');
    const signature = SIGNATURE.exec(part);
    if (signature) signatures.push(Buffer.from(signature[1] as string, 'hex'));
    else if (!OTHER_SCHEME.test(part))
      throw malformed(`unexpected element ${JSON.stringify(part.slice(0, 40))}`);
  }
  if (timestamp === undefined) throw malformed('no t= timestamp');
  if (signatures.length === 0) throw malformed('no v1= signature of 64 lowercase hex digits');
  return { timestamp, signatures };
}

function malformed(detail: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'malformed_header',
    `the ${WEBHOOK_SIGNATURE_HEADER} header is malformed: ${detail} (expected t=<unix seconds>,v1=<hex>)`,
  );
}

/** Reads the signature header from Node or Fetch headers (any case) and verifies the raw body. */
export function verifyRequest<T = unknown>(
  headers: Headers | Record<string, string | string[] | undefined>,
  rawBody: string | Uint8Array,
  secrets: string | readonly string[],
  options?: VerifyOptions,
): WebhookEvent<T> {
  const name = WEBHOOK_SIGNATURE_HEADER.toLowerCase();
  let value: string | null | undefined;
  if (typeof (headers as Headers).get === 'function') value = (headers as Headers).get(name);
  else {
    const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    value = Array.isArray(entry) ? entry[0] : entry;
  }
  return verifyPayload<T>(rawBody, value, secrets, options);
}
