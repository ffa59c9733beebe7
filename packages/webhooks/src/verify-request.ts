import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './event.js';
import { WEBHOOK_SIGNATURE_HEADER } from './header.js';
import { type VerifyOptions, verifyPayload } from './verify.js';

/** Request headers: Node's `request.headers` (or `headersDistinct`), or a Fetch `Headers`. */
export type WebhookRequestHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Reads `X-Service-Signature` from the headers in any letter case and verifies the raw body
 * with verifyPayload. Several copies of the header are refused as `malformed_header`.
 */
export function verifyRequest<T = unknown>(
  headers: WebhookRequestHeaders,
  rawBody: string | Uint8Array,
  secrets: string | readonly string[],
  options?: VerifyOptions,
): WebhookEvent<T> {
  return verifyPayload<T>(rawBody, signatureHeaderOf(headers), secrets, options);
}

function signatureHeaderOf(headers: WebhookRequestHeaders): string | undefined {
  const name = WEBHOOK_SIGNATURE_HEADER.toLowerCase();
  // Fetch Headers is case-insensitive and joins copies with ", " (refused later as whitespace).
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, unknown>>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    if (Array.isArray(value)) values.push(...value.map(String));
    else values.push(String(value));
  }
  if (values.length > 1) {
    throw new WebhookVerificationError(
      'malformed_header',
      `the ${WEBHOOK_SIGNATURE_HEADER} header was sent ${values.length} times; expected exactly once`,
    );
  }
  return values[0];
}

function isFetchHeaders(headers: WebhookRequestHeaders): headers is { get(name: string): string | null } {
  return typeof (headers as { get?: unknown }).get === 'function';
}
