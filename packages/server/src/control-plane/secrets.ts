import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { ServiceError } from '@svc/core';
import type { Environment } from './store.js';

/*
 * The server's secrets, in one place:
 * - API keys `sk_live_…` / `sk_test_…` and token secrets `tok_…`: shown once, stored as SHA-256.
 * - Webhook signing secrets `whsec_…`: the server must sign with them, so they are stored sealed
 *   (AES-256-GCM) under a key derived from the server's secret key.
 * - Cursors: opaque, HMAC-signed with another derived key, with an expiry.
 */

// Crockford base32, lowercase, as @svc/core's ids: URL-safe and unambiguous when read aloud.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** Random characters after a key's or token's prefix: 40 × 5 = 200 bits. */
export const SECRET_BODY_LENGTH = 40;
const BODY = `[${ALPHABET}]{${SECRET_BODY_LENGTH}}`;
const KEY_SHAPE = new RegExp(`^sk_(live|test)_${BODY}$`);
const TOKEN_SHAPE = new RegExp(`^tok_${BODY}$`);

/** 24 random bytes, base64: the Standard Webhooks secret format (`whsec_` + base64). */
const WEBHOOK_SECRET_BYTES = 24;
const WEBHOOK_SECRET_SHAPE = /^whsec_[A-Za-z0-9+/]{32}$/;

function randomBody(): string {
  // 32 is a power of two, so `byte & 31` picks every character with the same probability.
  const bytes = randomBytes(SECRET_BODY_LENGTH);
  let body = '';
  for (const byte of bytes) body += ALPHABET[byte & 31];
  return body;
}

/** A new API key secret: `sk_live_…` or `sk_test_…` (shown once, then only its hash is kept). */
export function generateApiKey(environment: Environment): string {
  if (environment !== 'live' && environment !== 'test') {
    throw new TypeError(`environment must be 'live' or 'test', got ${JSON.stringify(environment)}`);
  }
  return `sk_${environment}_${randomBody()}`;
}

/** A new token secret `tok_…` (a different length from `tok_` ids, which are 36 characters). */
export function generateTokenSecret(): string {
  return `tok_${randomBody()}`;
}

/**
 * A new webhook signing secret: `whsec_` and 24 random bytes in base64. Receivers using
 * Standard Webhooks decode the base64 part; `X-Service-Signature` (@svc/webhooks) keys its HMAC
 * with the whole string. Both work from the one secret.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(WEBHOOK_SECRET_BYTES).toString('base64')}`;
}

/** True for a string shaped like a webhook secret this module makes. */
export function isWebhookSecret(value: unknown): value is string {
  return typeof value === 'string' && WEBHOOK_SECRET_SHAPE.test(value);
}

/** What a presented `X-API-Key` value is, by its shape alone; null when it is neither. */
export type PresentedSecret = { kind: 'key'; environment: Environment } | { kind: 'token' };

/** Classifies a presented secret without any lookup, so malformed values cost no store read. */
export function parseSecret(presented: unknown): PresentedSecret | null {
  if (typeof presented !== 'string') return null;
  const key = KEY_SHAPE.exec(presented);
  if (key) return { kind: 'key', environment: key[1] as Environment };
  if (TOKEN_SHAPE.test(presented)) return { kind: 'token' };
  return null;
}

/** SHA-256 of a secret, hex: the only form of keys and tokens a store keeps. */
export function hashSecret(secret: string): string {
  // One call, no Hash object: this runs on every authenticated request.
  return hash('sha256', secret, 'hex');
}

/** The last four characters of a secret: enough to tell keys apart in a list, useless to guess with. */
export function last4(secret: string): string {
  return secret.slice(-4);
}

/** `whsec_` and the first four characters after it: to recognise a webhook secret in a dashboard. */
export function webhookSecretPrefix(secret: string): string {
  return secret.slice(0, 'whsec_'.length + 4);
}

/** The server secret key is 32 bytes (AES-256, HMAC-SHA256). */
export const SERVER_KEY_BYTES = 32;
/** Cursors expire after 24 hours (DESIGN §8). */
export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

/** Options of `signCursor` / `readCursor`. */
export interface CursorOptions {
  /** ms since the epoch. @default Date.now() */
  now?: number;
  /**
   * What the cursor belongs to (for example the account and job id). A cursor only reads back
   * with the same scope, so one account's cursor cannot page through another's list.
   * @default ''
   */
  scope?: string;
}

/** Sealing and cursor signing under the server secret key. */
export interface ServerSecrets {
  /** Encrypts a secret for the store; `context` (an account id) must be given again to unseal. */
  seal(plaintext: string, context: string): string;
  /** Decrypts what `seal` made; throws when the key, the context or the data do not match. */
  unseal(sealed: string, context: string): string;
  /** An opaque cursor carrying `payload` (JSON), valid for `ttlMs` (default 24 h). */
  signCursor(payload: unknown, options?: CursorOptions & { ttlMs?: number }): string;
  /**
   * The payload of a cursor `signCursor` made with the same scope, or ServiceError
   * `invalid_request` (400) when it is malformed, tampered with, of another scope or expired.
   */
  readCursor<T = unknown>(cursor: string, options?: CursorOptions): T;
}

const SEAL_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Derives two independent keys, so the sealing key never doubles as a MAC key. */
function deriveKey(master: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, new Uint8Array(0), `svc-server ${purpose}`, 32));
}

/** Sealing and cursor signing with keys derived from a 32-byte server secret key. */
export function createServerSecrets(serverKey: Uint8Array): ServerSecrets {
  if (!(serverKey instanceof Uint8Array) || serverKey.length !== SERVER_KEY_BYTES) {
    throw new TypeError(`the server secret key must be ${SERVER_KEY_BYTES} bytes`);
  }
  const sealKey = deriveKey(serverKey, 'seal v1');
  const cursorKey = deriveKey(serverKey, 'cursor v1');
  const mac = (scope: string, data: string): Buffer =>
    createHmac('sha256', cursorKey).update(scope).update('\0').update(data).digest();
  const badCursor = (why: string) =>
    new ServiceError('invalid_request', `the cursor is not valid (${why}); list again without a cursor`);

  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${SEAL_VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
    },
    unseal(sealed, context) {
      const [version, data, ...rest] = typeof sealed === 'string' ? sealed.split('.') : [];
      const bytes = data === undefined ? Buffer.alloc(0) : Buffer.from(data, 'base64url');
      if (version !== SEAL_VERSION || rest.length > 0 || bytes.length < IV_BYTES + TAG_BYTES) {
        throw new Error('cannot unseal: not a sealed secret of this server');
      }
      const decipher = createDecipheriv('aes-256-gcm', sealKey, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      try {
        const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new Error(
          'cannot unseal: the server secret key changed since it was sealed, or the data was altered',
          { cause: error },
        );
      }
    },
    signCursor(payload, options = {}) {
      const now = options.now ?? Date.now();
      const ttlMs = options.ttlMs ?? CURSOR_TTL_MS;
      const data = Buffer.from(JSON.stringify({ p: payload, e: now + ttlMs }), 'utf8').toString('base64url');
      return `${data}.${mac(options.scope ?? '', data).toString('base64url')}`;
    },
    readCursor<T>(cursor: string, options: CursorOptions = {}): T {
      if (typeof cursor !== 'string' || cursor.length > 4096) throw badCursor('malformed');
      const [data, signature, ...rest] = cursor.split('.');
      if (!data || !signature || rest.length > 0) throw badCursor('malformed');
      const expected = mac(options.scope ?? '', data);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw badCursor('its signature does not match: it was altered or belongs to another list');
      }
      let parsed: { p: T; e: number };
      try {
        parsed = JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
      } catch {
        throw badCursor('malformed');
      }
      if ((options.now ?? Date.now()) >= parsed.e) throw badCursor('it expired; cursors last 24 hours');
      return parsed.p;
    },
  };
}
