import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticate, createPostgresControlPlaneStore } from '@svc/server';
import { createScratchDatabase, POSTGRES, scratchName, serviceUrl } from '@svc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

// svc accounts / svc keys on the PostgreSQL control plane of a deployment (SVC_DATABASE_URL),
// the store every svc serve process of it uses (docs/deployment.md).

const postgresUrl = await serviceUrl(POSTGRES, 'svc accounts on PostgreSQL');

describe.skipIf(!postgresUrl)('svc accounts with SVC_DATABASE_URL', () => {
  let dir: string;
  let databaseUrl = '';
  let dropDatabase = async () => {};
  const name = scratchName('svc_t_cli');
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-accounts-pg-'));
    ({ url: databaseUrl, drop: dropDatabase } = await createScratchDatabase(postgresUrl as string, name));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await dropDatabase();
  });

  it('creates an account in the database, whose live key authenticates there', async () => {
    const io = captureIo();
    io.env = {
      SVC_DATABASE_URL: databaseUrl,
      SVC_DATA_DIR: dir,
      SVC_SECRET_KEY: randomBytes(32).toString('hex'),
    };
    const code = await main(['accounts', 'create', '--name', 'free-one', '--plan', 'free', '--json'], io);
    expect(code, io.err()).toBe(EXIT.ok);
    const created = JSON.parse(io.out()) as {
      account: { id: string };
      keys: { environment: string; secret: string }[];
    };
    const live = created.keys.find((key) => key.environment === 'live')?.secret as string;
    const store = await createPostgresControlPlaneStore({ connectionString: databaseUrl });
    try {
      const who = await authenticate({ controlPlane: store, now: Date.now }, live);
      expect(who?.account.id).toBe(created.account.id);
      expect(who?.plan.id).toBe('free');
    } finally {
      await store.close();
    }
  });

  it('svc accounts copy moves a SQLite server’s accounts into PostgreSQL: its keys keep working', async () => {
    const secretKey = randomBytes(32).toString('hex');
    const sqliteDir = join(dir, 'single');
    const created = captureIo();
    created.env = { SVC_DATA_DIR: sqliteDir, SVC_SECRET_KEY: secretKey };
    expect(await main(['accounts', 'create', '--name', 'moved', '--plan', 'pro', '--json'], created)).toBe(
      EXIT.ok,
    );
    const old = JSON.parse(created.out()) as { account: { id: string }; keys: { secret: string }[] };

    // Into a database of its own (the first test put an account in the shared one).
    const target = await createScratchDatabase(postgresUrl as string, `${name}_copy`);
    try {
      const env = {
        SVC_DATABASE_URL: target.url,
        SVC_DATA_DIR: join(dir, 'deploy'),
        SVC_SECRET_KEY: secretKey,
      };
      const copy = captureIo();
      copy.env = env;
      copy.cwd = dir;
      expect(await main(['accounts', 'copy', '--from', 'single', '--json'], copy), copy.err()).toBe(EXIT.ok);
      expect(JSON.parse(copy.out())).toMatchObject({
        from: join(sqliteDir, 'control-plane.db'),
        copied: { accounts: 1, keys: 2, webhookSecrets: 1 },
      });
      const store = await createPostgresControlPlaneStore({ connectionString: target.url });
      try {
        for (const key of old.keys) {
          const who = await authenticate({ controlPlane: store, now: Date.now }, key.secret);
          expect(who?.account.id).toBe(old.account.id);
          expect(who?.plan.id).toBe('pro');
        }
      } finally {
        await store.close();
      }
      // Twice would count the usage twice: refused.
      const again = captureIo();
      again.env = env;
      again.cwd = dir;
      expect(await main(['accounts', 'copy', '--from', 'single'], again)).toBe(EXIT.failure);
      expect(again.err()).toContain('the target control plane already has accounts');
    } finally {
      await target.drop();
    }
  });

  it('an unknown account is not found in the database named, its password masked', async () => {
    const withPassword = new URL(databaseUrl);
    withPassword.password = 'pw-not-shown';
    const io = captureIo();
    io.env = { SVC_DATABASE_URL: withPassword.toString(), SVC_DATA_DIR: dir };
    // Trust authentication on the test server: the password is not checked, only never shown.
    expect(await main(['keys', 'list', 'acct_nope'], io)).toBe(EXIT.failure);
    withPassword.password = '***';
    expect(io.err()).toContain(`no account acct_nope in ${withPassword.toString()}`);
    expect(io.err()).not.toContain('pw-not-shown');
  });

  it('svc accounts copy needs --from, an existing database there, and databaseUrl', async () => {
    const none = captureIo();
    none.env = { SVC_DATABASE_URL: databaseUrl, SVC_DATA_DIR: dir };
    expect(await main(['accounts', 'copy'], none)).toBe(EXIT.usage);
    expect(none.err()).toContain('accounts copy needs --from');
    const missing = captureIo();
    missing.env = { SVC_DATABASE_URL: databaseUrl, SVC_DATA_DIR: dir };
    missing.cwd = dir;
    expect(await main(['accounts', 'copy', '--from', 'nowhere'], missing)).toBe(EXIT.failure);
    expect(missing.err()).toContain(
      `no control-plane database at ${join(dir, 'nowhere', 'control-plane.db')}`,
    );
    const sqliteTarget = captureIo();
    sqliteTarget.env = { SVC_DATA_DIR: join(dir, 'single') };
    sqliteTarget.cwd = dir;
    expect(await main(['accounts', 'copy', '--from', 'single'], sqliteTarget)).toBe(EXIT.usage);
    expect(sqliteTarget.err()).toContain('set databaseUrl (SVC_DATABASE_URL)');
  });

  it('an unreachable database is named without its password', async () => {
    const io = captureIo();
    io.env = { SVC_DATABASE_URL: 'postgres://svc:hunter2@127.0.0.1:1/svc', SVC_DATA_DIR: dir };
    const code = await main(['accounts', 'list'], io);
    expect(code).not.toBe(EXIT.ok);
    expect(io.err()).toContain('postgres://svc:***@127.0.0.1:1/svc');
    expect(io.err()).not.toContain('hunter2');
  });
});
