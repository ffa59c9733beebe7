import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  authenticate,
  CONTROL_PLANE_DB_FILE,
  createKey,
  createSqliteControlPlaneStore,
  mintToken,
} from '@svc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { expectApiJson } from '../testing/api-json.js';
import { captureIo } from '../testing/capture-io.js';

async function svc(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** Opens the database file as the server would, runs `use`, closes it. */
async function withStore<T>(
  dataDir: string,
  use: (store: Awaited<ReturnType<typeof createSqliteControlPlaneStore>>) => Promise<T>,
): Promise<T> {
  const store = await createSqliteControlPlaneStore({ path: join(dataDir, CONTROL_PLANE_DB_FILE) });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

const whoIs = (dataDir: string, secret: string) =>
  withStore(dataDir, (store) => authenticate({ controlPlane: store, now: Date.now }, secret));

describe('svc keys', () => {
  let dir: string;
  let dataDir: string;
  let accountId: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-keys-'));
    dataDir = join(dir, 'data');
    const created = await svc('accounts', 'create', '--name', 'Keys Co', '--data-dir', dataDir, '--json');
    accountId = JSON.parse(created.out).account.id;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a key whose secret works, shown once, and lists keys without their secrets', async () => {
    const run = await svc(
      'keys',
      'create',
      accountId,
      '--environment',
      'live',
      '--name',
      'ci',
      '--data-dir',
      dataDir,
      '--json',
    );
    expect(run.code, run.err).toBe(EXIT.ok);
    const key = JSON.parse(run.out);
    expectApiJson(key);
    expect(key).toMatchObject({ account_id: accountId, environment: 'live', name: 'ci', status: 'active' });
    expect(key.secret).toMatch(/^sk_live_/);
    expect(run.err).toMatch(/shown once/);
    expect((await whoIs(dataDir, key.secret))?.key.id).toBe(key.id);

    const text = await svc('keys', 'list', accountId, '--data-dir', dataDir);
    expect(text.code, text.err).toBe(EXIT.ok);
    const lines = text.out.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+key\s+name\s+status\s+created_at\s+last_used_at\s+ends_at$/);
    // Newest first; the key is told by prefix and last four characters only.
    expect(lines[2]).toMatch(new RegExp(`^${key.id}\\s+sk_live_…${key.last4}\\s+ci\\s+active\\s+\\d{4}-`));
    expect(text.out).not.toContain(key.secret);
    const json = JSON.parse((await svc('keys', 'list', accountId, '--data-dir', dataDir, '--json')).out);
    expectApiJson(json);
    expect(json.data).toHaveLength(3);
    expect(json.data[0]).not.toHaveProperty('secret');
    expect(json.data[0]).not.toHaveProperty('hash');
  });

  it('rotates a key: a new secret now, the old one until the grace period ends', async () => {
    const old = JSON.parse(
      (await svc('keys', 'create', accountId, '--environment', 'test', '--data-dir', dataDir, '--json')).out,
    );
    const run = await svc('keys', 'rotate', accountId, old.id, '--data-dir', dataDir, '--json');
    expect(run.code, run.err).toBe(EXIT.ok);
    const rotated = JSON.parse(run.out);
    expectApiJson(rotated);
    expect(rotated).toMatchObject({ environment: 'test', rotated_from: old.id, status: 'active' });
    expect(rotated.previous).toMatchObject({ id: old.id, status: 'expiring' });
    const graceEnd = Date.parse(rotated.previous.expires_at) - Date.now();
    expect(graceEnd).toBeGreaterThan(86_390_000);
    expect(graceEnd).toBeLessThanOrEqual(86_400_000);
    expect((await whoIs(dataDir, old.secret))?.key.id).toBe(old.id); // still in its grace period
    expect((await whoIs(dataDir, rotated.secret))?.key.id).toBe(rotated.id);

    const now = await svc(
      'keys',
      'rotate',
      accountId,
      rotated.id,
      '--grace-seconds',
      '0',
      '--data-dir',
      dataDir,
    );
    expect(now.code, now.err).toBe(EXIT.ok);
    expect(now.out).toMatch(
      new RegExp(
        `^test key  sk_test_\\w+  \\(key_\\w+\\)\\n${rotated.id} \\(sk_test_…${rotated.last4}\\) works until `,
      ),
    );
    expect(await whoIs(dataDir, rotated.secret)).toBeNull();

    const again = await svc('keys', 'rotate', accountId, rotated.id, '--data-dir', dataDir);
    expect(again.code).toBe(EXIT.failure);
    expect(again.err).toMatch(/is expired; create a new key instead/);
    const bad = await svc(
      'keys',
      'rotate',
      accountId,
      old.id,
      '--grace-seconds',
      '1h',
      '--data-dir',
      dataDir,
    );
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err).toMatch(/--grace-seconds must be a whole number of seconds, got "1h"/);
    const long = await svc(
      'keys',
      'rotate',
      accountId,
      old.id,
      '--grace-seconds',
      '9999999',
      '--data-dir',
      dataDir,
    );
    expect(long.code).toBe(EXIT.failure);
    expect(long.err).toMatch(/grace_seconds must be a whole number of seconds from 0 to 2592000/);
  });

  it('revokes a key and the tokens it minted, at once', async () => {
    const key = JSON.parse(
      (await svc('keys', 'create', accountId, '--environment', 'live', '--data-dir', dataDir, '--json')).out,
    );
    const token = await withStore(dataDir, async (store) => {
      const auth = await authenticate({ controlPlane: store, now: Date.now }, key.secret);
      if (!auth) throw new Error('the new key does not authenticate');
      return (await mintToken({ controlPlane: store, now: Date.now }, auth)).secret;
    });
    expect((await whoIs(dataDir, token))?.token).not.toBeNull();
    // A key made with it over the API (as POST /v2/keys records) ends with it.
    const made = await withStore(dataDir, (store) =>
      createKey(store, { accountId, environment: 'test', createdBy: key.id }),
    );

    const run = await svc('keys', 'revoke', accountId, key.id, '--data-dir', dataDir, '--json');
    expect(run.code, run.err).toBe(EXIT.ok);
    expect(JSON.parse(run.out)).toMatchObject({
      id: key.id,
      status: 'revoked',
      revoked_at: expect.any(String),
      also_revoked: [{ id: made.key.id, status: 'revoked', created_by: key.id }],
    });
    expect(await whoIs(dataDir, key.secret)).toBeNull();
    expect(await whoIs(dataDir, token)).toBeNull();
    expect(await whoIs(dataDir, made.secret)).toBeNull();
    const text = await svc('keys', 'list', accountId, '--data-dir', dataDir);
    expect(text.out).toMatch(new RegExp(`${key.id}\\s+sk_live_…${key.last4}\\s+revoked`));
  });

  it('finds a key from what a customer sees (sk_live_…a1b2) across accounts, by environment and last four', async () => {
    const other = JSON.parse(
      (await svc('accounts', 'create', '--name', 'Other Co', '--data-dir', dataDir, '--json')).out,
    );
    const wanted = other.keys[1]; // the other account's live key
    const run = await svc(
      'keys',
      'list',
      '--last4',
      wanted.last4,
      '--environment',
      'live',
      '--data-dir',
      dataDir,
    );
    expect(run.code, run.err).toBe(EXIT.ok);
    const lines = run.out.trim().split('\n');
    expect(lines[0]).toMatch(/^account\s+id\s+key\s+name\s+status/);
    const rows = lines.slice(2);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((row) => row.includes(`sk_live_…${wanted.last4}`))).toBe(true);
    expect(rows.some((row) => row.startsWith(`${other.account.id}  ${wanted.id}`))).toBe(true);

    const all = JSON.parse((await svc('keys', 'list', '--data-dir', dataDir, '--json')).out).data;
    expect(new Set(all.map((key: { account_id: string }) => key.account_id))).toEqual(
      new Set([accountId, other.account.id]),
    );
    const tests = JSON.parse(
      (await svc('keys', 'list', other.account.id, '--environment', 'test', '--data-dir', dataDir, '--json'))
        .out,
    ).data;
    expect(tests.map((key: { id: string }) => key.id)).toEqual([other.keys[0].id]);
    const bad = await svc('keys', 'list', '--environment', 'staging', '--data-dir', dataDir);
    expect(bad.code).toBe(EXIT.usage);
  });

  it('names what is wrong: a missing environment, an unknown account or key', async () => {
    const noEnv = await svc('keys', 'create', accountId, '--data-dir', dataDir);
    expect(noEnv.code).toBe(EXIT.usage);
    expect(noEnv.err).toMatch(/^svc: keys create needs --environment test or live/);
    const wrongEnv = await svc('keys', 'create', accountId, '--environment', 'prod', '--data-dir', dataDir);
    expect(wrongEnv.code).toBe(EXIT.usage);
    const noAccount = await svc('keys', 'list', 'acct_nope', '--data-dir', dataDir, '--json');
    expect(noAccount.code).toBe(EXIT.failure);
    expect(JSON.parse(noAccount.err)).toEqual({
      error: {
        code: 'not_found',
        message: `no account acct_nope in ${join(dataDir, CONTROL_PLANE_DB_FILE)}`,
      },
    });
    const noKey = await svc('keys', 'revoke', accountId, 'key_nope', '--data-dir', dataDir);
    expect(noKey.code).toBe(EXIT.failure);
    expect(noKey.err).toContain(`no key key_nope on this account in ${join(dataDir, CONTROL_PLANE_DB_FILE)}`);
    const missingArg = await svc('keys', 'rotate', accountId);
    expect(missingArg.code).toBe(EXIT.usage);
    expect(missingArg.err).toMatch(/keys rotate needs an account id and a key id/);
  });
});
