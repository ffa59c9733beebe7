import { WebhookVerificationError } from './errors.js';

/** The HTTP header that carries the signature. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Service-Signature';

/**
 * The largest `t=`: 12 digits (the year 33658). A 13-digit value is what `Date.now()` returns,
 * so it is refused as a unit mistake instead of being reported as a clock in the future.
 */
export const MAX_TIMESTAMP_SECONDS = 999_999_999_999;

/** The parts of a signature header that verification uses. */
export interface ParsedSignatureHeader {
  /** `t=`, unix seconds. */
  timestamp: number;
  /** Every `v1=` value as 32 raw bytes, in header order. */
  signatures: Buffer[];
}

const DIGITS = /^\d+$/;
const LOWER_HEX_64 = /^[0-9a-f]{64}$/;
// Stripe's SDK skips schemes it does not know (its test-mode `v0`); so do we, so that a sender
// could add a scheme next to v1 without breaking receivers.
const OTHER_SCHEME = /^v\d+$/;
const WHITESPACE = /\s/;

/**
 * Parses `t=<digits>,v1=<64 lowercase hex>[,v1=…]` strictly: `t=` exactly once, at least one
 * `v1=`, no whitespace anywhere, no empty or unknown elements; `v<n>=` of other schemes skipped.
 */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  // Our signer never writes spaces, and Stripe's SDK refuses `t=…, v1=…` as well (it reads
  // ` v1` as an unknown key). A ", " usually means a proxy joined two copies of the header.
  if (WHITESPACE.test(header)) {
    throw malformed('it contains whitespace (two headers joined with ", " by a proxy look like this)');
  }
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const element of header.split(',')) {
    const equals = element.indexOf('=');
    if (equals === -1) throw malformed(`element ${show(element)} is not key=value`);
    const key = element.slice(0, equals);
    const value = element.slice(equals + 1);
    if (key === 't') {
      if (timestamp !== undefined) throw malformed('t= appears more than once');
      timestamp = parseTimestamp(value);
    } else if (key === 'v1') {
      if (!LOWER_HEX_64.test(value))
        throw malformed(`v1= must be 64 lowercase hex digits, got ${show(value)}`);
      signatures.push(Buffer.from(value, 'hex'));
    } else if (!OTHER_SCHEME.test(key)) {
      throw malformed(`unknown element ${show(`${key}=`)}`);
    }
  }
  if (timestamp === undefined) throw malformed('no t= timestamp');
  if (signatures.length === 0) throw malformed('no v1= signature');
  return { timestamp, signatures };
}

function parseTimestamp(value: string): number {
  if (!DIGITS.test(value)) throw malformed(`t= must be unix seconds in digits, got ${show(value)}`);
  const seconds = Number(value);
  if (seconds > MAX_TIMESTAMP_SECONDS) {
    throw malformed(`t= has ${value.length} digits, too many for unix seconds (milliseconds?)`);
  }
  return seconds;
}

/** A bounded, quoted excerpt: headers come from strangers and may be long. */
function show(text: string): string {
  return JSON.stringify(text.length > 24 ? `${text.slice(0, 24)}…` : text);
}

function malformed(detail: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'malformed_header',
    `the ${WEBHOOK_SIGNATURE_HEADER} header is malformed: ${detail}; expected t=<unix seconds>,v1=<64 lowercase hex>`,
  );
}
