import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES, serviceUrl } from '@svc/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../options.js';
import {
  authenticate,
  createAccount,
  revokeKey,
  rotateKey,
  syncPlans,
  webhookSigningSecrets,
} from './accounts.js';
import { copyControlPlane } from './copy.js';
import { createServerSecrets } from './secrets.js';
import type { ControlPlaneStore, Plan } from './store.js';
import { createPostgresControlPlaneStore } from './stores/postgres.js';
import { createSqliteControlPlaneStore } from './stores/sqlite.js';

// Moving a single-process server's accounts into a deployment's database (docs/deployment.md).

const postgresUrl = await serviceUrl(POSTGRES, 'copying the control plane into PostgreSQL');

const secrets = createServerSecrets(randomBytes(32));
let dir: string;
const closers: (() => Promise<unknown>)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-copy-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

async function sqlite(name: string): Promise<ControlPlaneStore> {
  const store = await createSqliteControlPlaneStore({ path: join(dir, `${name}.db`) });
  closers.push(() => store.close());
  return store;
}

const JAN = Date.UTC(2026, 0, 15, 12);
const MAR = Date.UTC(2026, 2, 3, 9);

/** A source with what a server accumulates: plans, two accounts, a rotated and a revoked key, usage. */
async function populated() {
  const from = await sqlite('source');
  const free = DEFAULT_PLANS.free as Plan;
  await syncPlans(from, { ...DEFAULT_PLANS, team: { ...free, id: 'team', name: 'Team', burst: 40 } });
  const deps = { controlPlane: from, secrets, now: () => JAN };
  const acme = await createAccount(deps, { name: 'Acme', planId: 'team', now: JAN });
  const other = await createAccount(deps, { name: 'Other', planId: 'free', now: JAN });
  const rotated = await rotateKey(from, {
    accountId: acme.account.id,
    keyId: acme.liveKey.key.id,
    graceSeconds: 0,
    now: JAN + 1000,
  });
  await revokeKey(from, { accountId: other.account.id, keyId: other.testKey.key.id, now: JAN + 2000 });
  // Usage with days, and one line from before days were kept (month only).
  await from.recordUsage(acme.account.id, 'geo_ip', '2026-01', 3, '2026-01-15');
  await from.recordUsage(acme.account.id, 'geo_ip', '2026-01', 2, '2026-01-16');
  await from.recordUsage(acme.account.id, 'verify_email', '2026-01', 5);
  await from.recordUsage(acme.account.id, 'batch_create', '2026-03', 1000, '2026-03-02');
  // A batch of company misses, every unit credited back when it ended: 1 call, 0 units.
  await from.recordUsage(other.account.id, 'batch_create', '2026-03', 4, '2026-03-03');
  await from.creditUsage({
    accountId: other.account.id,
    key: 'batch_misses',
    endpoint: 'batch_create',
    month: '2026-03',
    day: '2026-03-03',
    units: 4,
  });
  return { from, acme, other, rotated };
}

async function expectSameState(from: ControlPlaneStore, to: ControlPlaneStore, accountIds: string[]) {
  expect(await to.listPlans()).toEqual(await from.listPlans());
  expect(await to.listAccounts()).toEqual(await from.listAccounts());
  for (const id of accountIds) {
    expect(await to.listKeys(id)).toEqual(await from.listKeys(id));
    for (const month of ['2026-01', '2026-02', '2026-03']) {
      expect(await to.usage(id, month)).toEqual(await from.usage(id, month));
      expect(await to.usageByDay(id, month)).toEqual(await from.usageByDay(id, month));
    }
  }
}

async function copyAndCheck(to: ControlPlaneStore) {
  const { from, acme, other, rotated } = await populated();
  const report = await copyControlPlane({ from, to, now: () => MAR });
  expect(report).toEqual({ plans: 5, accounts: 2, keys: 5, webhookSecrets: 2, usageLines: 5 });
  await expectSameState(from, to, [acme.account.id, other.account.id]);
  // The keys people hold keep working against the new store; the revoked one stays refused.
  const who = await authenticate({ controlPlane: to, now: () => MAR }, rotated.secret);
  expect(who?.account.id).toBe(acme.account.id);
  expect(who?.plan).toMatchObject({ id: 'team', burst: 40 });
  expect(await authenticate({ controlPlane: to, now: () => MAR }, acme.liveKey.secret)).toBeNull();
  expect(await authenticate({ controlPlane: to, now: () => MAR }, other.testKey.secret)).toBeNull();
  // The sealed webhook secret opens with the same server key and signs as before.
  expect(await webhookSigningSecrets({ controlPlane: to, secrets, now: () => MAR }, acme.account.id)).toEqual(
    [acme.webhookSecret.secret],
  );
  // A second copy would double the usage: refused.
  await expect(copyControlPlane({ from, to })).rejects.toThrow(
    'the target control plane already has accounts',
  );
}

describe('copyControlPlane', () => {
  it('SQLite into SQLite: plans, accounts, keys (old ones keep working), webhook secrets and usage', async () => {
    await copyAndCheck(await sqlite('target'));
  });

  it.skipIf(!postgresUrl)('SQLite into PostgreSQL', async () => {
    const schema = `svc_t_copy_${randomBytes(6).toString('hex')}`;
    const to = await createPostgresControlPlaneStore({ connectionString: postgresUrl, schema });
    closers.push(async () => {
      await to.close();
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });
    await copyAndCheck(to);
  });
});
