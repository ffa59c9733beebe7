import { createHmac } from 'node:crypto';

/** HMAC-SHA256 of `<timestamp>.<body bytes>` keyed with the secret's UTF-8 bytes, as 32 raw bytes. */
export function hmacOf(timestamp: number, body: string | Uint8Array, secret: string): Buffer {
  // Strings (key and data) are hashed as UTF-8 by node:crypto; bytes are hashed as they are.
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

/** Throws a TypeError unless the body is raw text or bytes (the usual mistake: a parsed object). */
export function assertRawBody(body: unknown): asserts body is string | Uint8Array {
  if (typeof body === 'string' || body instanceof Uint8Array) return;
  throw new TypeError(
    `the body must be the exact text or bytes sent (string or Uint8Array), got ${
      body === null ? 'null' : typeof body
    }: a parsed and re-serialised body no longer matches its signature`,
  );
}
