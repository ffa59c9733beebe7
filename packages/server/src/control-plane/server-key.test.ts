import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServerSecrets } from './secrets.js';
import { loadServerKey } from './server-key.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'svc-key-'));

describe('loadServerKey', () => {
  it('creates <dataDir>/secret.key with mode 0600 on first start and reads the same key after', () => {
    const dataDir = join(fresh(), 'data');
    const first = loadServerKey({ dataDir, env: {} });
    expect(first.source).toBe('created');
    expect(first.key).toHaveLength(32);
    expect(statSync(first.path as string).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o077).toBe(0);
    const again = loadServerKey({ dataDir, env: {} });
    expect(again.source).toBe('file');
    expect(again.key.equals(first.key)).toBe(true);
    // What was sealed before the restart unseals after it.
    const sealed = createServerSecrets(first.key).seal('whsec_x', 'acct_a');
    expect(createServerSecrets(again.key).unseal(sealed, 'acct_a')).toBe('whsec_x');
  });

  it('prefers SVC_SECRET_KEY (hex or base64) and writes no file', () => {
    const dataDir = fresh();
    const hex = 'ab'.repeat(32);
    expect(loadServerKey({ dataDir, env: { SVC_SECRET_KEY: hex } })).toEqual({
      key: Buffer.from(hex, 'hex'),
      source: 'env',
      path: null,
    });
    const base64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadServerKey({ dataDir, env: { SVC_SECRET_KEY: base64 } }).key).toEqual(Buffer.alloc(32, 7));
    expect(() => readFileSync(join(dataDir, 'secret.key'))).toThrow(/ENOENT/);
  });

  it('names SVC_SECRET_KEY or the file when the key is not 32 bytes', () => {
    expect(() => loadServerKey({ dataDir: fresh(), env: { SVC_SECRET_KEY: 'short' } })).toThrow(
      /SVC_SECRET_KEY must hold a 32-byte key/,
    );
    const dataDir = fresh();
    writeFileSync(join(dataDir, 'secret.key'), 'ab'.repeat(16), { mode: 0o600 });
    expect(() => loadServerKey({ dataDir, env: {} })).toThrow(/secret\.key must hold a 32-byte key/);
  });

  it.skipIf(process.platform === 'win32')('refuses a key file others can read', () => {
    const dataDir = fresh();
    const { path } = loadServerKey({ dataDir, env: {} });
    chmodSync(path as string, 0o644);
    expect(() => loadServerKey({ dataDir, env: {} })).toThrow(
      /readable by others \(mode 0644\); run chmod 600/,
    );
  });
});
