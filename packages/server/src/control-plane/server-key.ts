import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileOnce } from '@svc/core';
import { SERVER_KEY_BYTES } from './secrets.js';

/** Options of `loadServerKey`. */
export interface LoadServerKeyOptions {
  /** The server's data dir; the key lives in `<dataDir>/secret.key` unless the environment has one. */
  dataDir: string;
  /** Where `SVC_SECRET_KEY` is read from. @default process.env */
  env?: Record<string, string | undefined>;
}

/** The key, and where it came from (to say so once at start, never the key itself). */
export interface LoadedServerKey {
  key: Buffer;
  source: 'env' | 'file' | 'created';
  /** The file read or created; null when the key came from `SVC_SECRET_KEY`. */
  path: string | null;
}

/** The key file's name inside the data dir. */
export const SERVER_KEY_FILE = 'secret.key';

/**
 * The server secret key (32 bytes) that seals webhook secrets and signs cursors: from
 * `SVC_SECRET_KEY` (64 hex characters, or base64 of 32 bytes) when set, otherwise from
 * `<dataDir>/secret.key`, which is created (mode 0600) on first start. Losing it makes the sealed
 * webhook secrets unreadable (rotate them) and ends every cursor; keys and tokens still work.
 */
export function loadServerKey(options: LoadServerKeyOptions): LoadedServerKey {
  const fromEnv = (options.env ?? process.env).SVC_SECRET_KEY;
  if (fromEnv !== undefined && fromEnv !== '') {
    return { key: decodeKey(fromEnv, 'SVC_SECRET_KEY'), source: 'env', path: null };
  }
  const path = join(options.dataDir, SERVER_KEY_FILE);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const created = writePrivateFileOnce(path, `${randomBytes(SERVER_KEY_BYTES).toString('hex')}\n`);
  if (!created && process.platform !== 'win32') {
    // Like ssh with a private key: a key others can read is no longer secret, so say so and stop.
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new Error(
        `${path} is readable by others (mode ${mode.toString(8).padStart(4, '0')}); run chmod 600 on it (and rotate the webhook secrets if others did read it)`,
      );
    }
  }
  return { key: decodeKey(readFileSync(path, 'utf8'), path), source: created ? 'created' : 'file', path };
}

function decodeKey(text: string, where: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === SERVER_KEY_BYTES) return bytes;
  }
  throw new Error(
    `${where} must hold a 32-byte key as 64 hex characters or base64 (make one with: openssl rand -hex 32)`,
  );
}
