import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { authenticate, CONTROL_PLANE_DB_FILE, createSqliteControlPlaneStore } from '@svc/server';
import { sharedTempDir } from '@svc/testkit/vitest';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { expectApiJson } from '../testing/api-json.js';
import { captureIo } from '../testing/capture-io.js';

/** Runs `svc …` in-process with a clean environment; returns the exit code and the outputs. */
async function svc(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** Who a secret authenticates as, read from the database file as the server would. */
async function whoIs(dataDir: string, secret: string) {
  const store = await createSqliteControlPlaneStore({ path: join(dataDir, CONTROL_PLANE_DB_FILE) });
  try {
    return await authenticate({ controlPlane: store, now: Date.now }, secret);
  } finally {
    await store.close();
  }
}

describe('svc accounts', () => {
  const dir = sharedTempDir('svc-accounts-');

  it('creates an account with working test and live keys and a webhook secret, shown once', async () => {
    const dataDir = join(dir(), 'create');
    const run = await svc(
      'accounts',
      'create',
      '--name',
      'Acme',
      '--plan',
      'pro',
      '--data-dir',
      dataDir,
      '--json',
    );
    expect(run.code, run.err).toBe(EXIT.ok);
    const created = JSON.parse(run.out);
    expectApiJson(created);
    expect(created.account).toMatchObject({
      name: 'Acme',
      plan_id: 'pro',
      status: 'active',
      disabled_at: null,
    });
    expect(created.account.id).toMatch(/^acct_/);
    const [test, live] = created.keys;
    expect(test).toMatchObject({ environment: 'test', secret: expect.stringMatching(/^sk_test_/) });
    expect(live).toMatchObject({ environment: 'live', secret: expect.stringMatching(/^sk_live_/) });
    expect(live.last4).toBe(live.secret.slice(-4));
    expect(created.webhook_secret.secret).toMatch(/^whsec_/);
    expect(run.err).toMatch(/shown once/);

    const auth = await whoIs(dataDir, live.secret);
    expect(auth).toMatchObject({
      account: { id: created.account.id },
      plan: { id: 'pro' },
      environment: 'live',
    });
    expect((await whoIs(dataDir, test.secret))?.environment).toBe('test');
    // The server's files keep no secret in plaintext, and are private.
    const file = await readFile(join(dataDir, CONTROL_PLANE_DB_FILE));
    for (const secret of [test.secret, live.secret, created.webhook_secret.secret])
      expect(file.includes(Buffer.from(secret))).toBe(false);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, 'secret.key'))).mode & 0o777).toBe(0o600);
  });

  it('lists accounts with their plan, state and keys by prefix and last four characters', async () => {
    const dataDir = join(dir(), 'list');
    const first = JSON.parse(
      (await svc('accounts', 'create', '--name', 'One', '--data-dir', dataDir, '--json')).out,
    );
    const second = JSON.parse(
      (
        await svc(
          'accounts',
          'create',
          '--name',
          'Two',
          '--plan',
          'enterprise',
          '--data-dir',
          dataDir,
          '--json',
        )
      ).out,
    );
    const text = await svc('accounts', 'list', '--data-dir', dataDir);
    expect(text.code, text.err).toBe(EXIT.ok);
    const lines = text.out.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+name\s+plan\s+status\s+created_at\s+working keys$/);
    const row = lines.find((line) => line.startsWith(first.account.id)) ?? '';
    expect(row).toMatch(/One\s+free\s+active\s+\d{4}-/);
    expect(row).toContain(`sk_test_…${first.keys[0].last4}`);
    expect(row).toContain(`sk_live_…${first.keys[1].last4}`);
    expect(row).not.toContain(first.keys[1].secret);
    const json = await svc('accounts', 'list', '--data-dir', dataDir, '--json');
    const listed = JSON.parse(json.out);
    expectApiJson(listed);
    expect(listed.data.map((account: { id: string }) => account.id).sort()).toEqual(
      [first.account.id, second.account.id].sort(),
    );
  });

  it('changes the plan (only to one that exists) and disables and enables an account', async () => {
    const dataDir = join(dir(), 'manage');
    const created = JSON.parse(
      (await svc('accounts', 'create', '--name', 'Co', '--data-dir', dataDir, '--json')).out,
    );
    const id = created.account.id;
    const live = created.keys[1].secret;

    const moved = await svc('accounts', 'set-plan', id, 'pro', '--data-dir', dataDir, '--json');
    expect(moved.code, moved.err).toBe(EXIT.ok);
    expect(JSON.parse(moved.out)).toMatchObject({ id, plan_id: 'pro' });
    expect((await whoIs(dataDir, live))?.plan.id).toBe('pro');

    const unknown = await svc('accounts', 'set-plan', id, 'platinum', '--data-dir', dataDir);
    expect(unknown.code).toBe(EXIT.failure);
    expect(unknown.err).toMatch(/^svc: unknown plan "platinum"; plans: .*enterprise.*free.*pro.*self_hosted/);

    const disabled = await svc('accounts', 'disable', id, '--data-dir', dataDir);
    expect(disabled.code, disabled.err).toBe(EXIT.ok);
    expect(disabled.out).toMatch(/disabled\n$/);
    expect(await whoIs(dataDir, live)).toBeNull();
    expect(await whoIs(dataDir, created.keys[0].secret)).toBeNull();

    const enabled = await svc('accounts', 'enable', id, '--data-dir', dataDir, '--json');
    expect(JSON.parse(enabled.out)).toMatchObject({ status: 'active', disabled_at: null });
    expect((await whoIs(dataDir, live))?.account.id).toBe(id);

    const missing = await svc('accounts', 'disable', 'acct_nope', '--data-dir', dataDir, '--json');
    expect(missing.code).toBe(EXIT.failure);
    expect(JSON.parse(missing.err)).toEqual({
      error: { code: 'not_found', message: `no account acct_nope in ${join(dataDir, 'control-plane.db')}` },
    });
  });

  it('reads plans and the data dir from the server config file, and never overwrites a plan the server wrote', async () => {
    const dataDir = join(dir(), 'configured');
    const config = join(dir(), 'server.json');
    await writeFile(
      config,
      JSON.stringify({ dataDir, plans: { startup: { name: 'Startup', rate_per_second: 5, burst: 20 } } }),
    );
    const run = await svc(
      'accounts',
      'create',
      '--name',
      'S',
      '--plan',
      'startup',
      '--config',
      config,
      '--json',
    );
    expect(run.code, run.err).toBe(EXIT.ok);
    const live = JSON.parse(run.out).keys[1].secret;
    expect((await whoIs(dataDir, live))?.plan).toMatchObject({
      id: 'startup',
      rate_per_second: 5,
      burst: 20,
    });

    // As the server does at start: its configured values for a default plan.
    const store = await createSqliteControlPlaneStore({ path: join(dataDir, CONTROL_PLANE_DB_FILE) });
    await store.upsertPlan({ ...(await store.getPlan('pro'))!, burst: 7 });
    await store.close();
    // Without --config the CLI knows only the default plans: it adds none over the server's.
    expect((await svc('accounts', 'list', '--data-dir', dataDir)).code).toBe(EXIT.ok);
    const after = await createSqliteControlPlaneStore({ path: join(dataDir, CONTROL_PLANE_DB_FILE) });
    expect((await after.getPlan('pro'))?.burst).toBe(7);
    expect((await after.getPlan('startup'))?.burst).toBe(20);
    await after.close();

    const bad = await svc('accounts', 'list', '--config', join(dir(), 'missing.json'));
    expect(bad.code).toBe(EXIT.failure);
    expect(bad.err).toMatch(/cannot read the config file .*missing\.json: no such file/);
  });

  it('refuses a missing data dir, and bad command lines with exit 2', async () => {
    const missing = await svc('accounts', 'list', '--data-dir', join(dir(), 'nowhere'));
    expect(missing.code).toBe(EXIT.failure);
    expect(missing.err).toMatch(
      /no control-plane database at .*nowhere.*control-plane\.db: svc serve creates it/,
    );
    await expect(stat(join(dir(), 'nowhere'))).rejects.toThrow(); // nothing created by a reader

    const noName = await svc('accounts', 'create', '--data-dir', join(dir(), 'x'));
    expect(noName.code).toBe(EXIT.usage);
    expect(noName.err).toMatch(/^svc: accounts create needs --name/);
    const unknown = await svc('accounts', 'frobnicate', '--json');
    expect(unknown.code).toBe(EXIT.usage);
    expect(JSON.parse(unknown.err).error.code).toBe('invalid_request');
    const extra = await svc('accounts', 'disable', 'a', 'b');
    expect(extra.code).toBe(EXIT.usage);
    expect(extra.err).toMatch(/unexpected arguments: b/);
  });
});
