import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sessionSecrets } from '../../testing/session-secrets.js';
import type { Plan } from '../store.js';
import { createSqliteControlPlaneStore, MIGRATIONS } from './sqlite.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'svc-cp-sqlite-')), 'control-plane.db');

describe('SQLite control-plane store', () => {
  it('creates its file and the WAL files readable by the owner only, whatever the umask', async () => {
    const path = fresh();
    const umask = process.umask(0o022);
    try {
      const store = await createSqliteControlPlaneStore({ path });
      await store.recordUsage('acct_x', 'geo_ip', '2026-11', 1);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        expect(existsSync(file)).toBe(true);
        expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
      }
      await store.close();
    } finally {
      process.umask(umask);
    }
  });

  it('keeps no plaintext key, token or webhook secret anywhere in its files', async () => {
    const path = fresh();
    const { deps, account, liveKey, secrets } = await sessionSecrets(
      await createSqliteControlPlaneStore({ path }),
    );
    const bytes = [path, `${path}-wal`]
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1'))
      .join('');
    // The data is there (the test would be empty otherwise): the account id and key hashes.
    expect(bytes).toContain(account.id);
    expect(bytes).toContain(liveKey.key.hash);
    for (const secret of secrets) {
      expect(bytes).not.toContain(secret);
      expect(bytes).not.toContain(secret.slice(-24));
    }
    await deps.controlPlane.close();
  });

  it('migrates a new file to the newest schema version, once, and reopens it as it is', async () => {
    const path = fresh();
    await (await createSqliteControlPlaneStore({ path })).close();
    const raw = new Database(path);
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(
      raw
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((row) => (row as { name: string }).name),
    ).toEqual([
      'accounts',
      'api_keys',
      'plans',
      'tokens',
      'usage',
      'usage_credits',
      'usage_daily',
      'webhook_secrets',
    ]);
    raw.close();
    // Reopening applies nothing again (a second CREATE TABLE would throw).
    await (await createSqliteControlPlaneStore({ path })).close();
  });

  it('brings a version-1 file forward keeping its usage (months before version 2 have no days)', async () => {
    const path = fresh();
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0] as string);
    raw.pragma('user_version = 1');
    raw.prepare("INSERT INTO usage VALUES ('acct_x', '2026-11', 'geo_ip', 3, 3)").run();
    raw.close();
    const store = await createSqliteControlPlaneStore({ path });
    expect(await store.usage('acct_x', '2026-11')).toEqual([{ endpoint: 'geo_ip', calls: 3, units: 3 }]);
    expect(await store.usageByDay('acct_x', '2026-11')).toEqual([]);
    expect(await store.recordUsage('acct_x', 'geo_ip', '2026-11', 1, '2026-11-23')).toBe(4);
    expect(await store.usageByDay('acct_x', '2026-11')).toEqual([
      { day: '2026-11-23', endpoint: 'geo_ip', calls: 1, units: 1 },
    ]);
    await store.close();
  });

  it('brings a version-2 file forward: its plans bill no company misses until configured to', async () => {
    const path = fresh();
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0] as string);
    raw.exec(MIGRATIONS[1] as string);
    raw.pragma('user_version = 2');
    raw.prepare("INSERT INTO plans VALUES ('pro', 'Pro', 25, 100, 100000, NULL)").run();
    raw.close();
    const store = await createSqliteControlPlaneStore({ path });
    expect(await store.getPlan('pro')).toMatchObject({
      id: 'pro',
      monthly_allowance: 100_000,
      bill_company_misses: false,
    });
    await store.upsertPlan({ ...((await store.getPlan('pro')) as Plan), bill_company_misses: true });
    expect((await store.getPlan('pro'))?.bill_company_misses).toBe(true);
    await store.close();
  });

  it('brings a version-3 file forward: its keys were made by no key (revokes end nothing else)', async () => {
    const path = fresh();
    const raw = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 3)) raw.exec(migration);
    raw.pragma('user_version = 3');
    raw
      .prepare(
        "INSERT INTO api_keys VALUES ('key_a', 'acct_x', 'live', NULL, 'hash_a', 'abcd', 1, NULL, NULL, NULL, NULL)",
      )
      .run();
    raw.close();
    const store = await createSqliteControlPlaneStore({ path });
    expect(await store.getKey('acct_x', 'key_a')).toMatchObject({ id: 'key_a', created_by: null });
    await store.close();
  });

  it('refuses a file written by a newer version, naming both versions', async () => {
    const path = fresh();
    await (await createSqliteControlPlaneStore({ path })).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    await expect(createSqliteControlPlaneStore({ path })).rejects.toThrow(
      `has control-plane schema version ${MIGRATIONS.length + 1}, newer than this @svc/server knows (${MIGRATIONS.length})`,
    );
  });

  it('says which file it could not open', async () => {
    const path = join(fresh(), 'missing-dir', 'control-plane.db');
    await expect(createSqliteControlPlaneStore({ path })).rejects.toThrow(
      `cannot open the control-plane database ${path}`,
    );
  });

  it('uses the driver it is given', async () => {
    let opened = 0;
    const Counting = function (this: unknown, ...args: ConstructorParameters<typeof Database>) {
      opened++;
      return new Database(...args);
    } as unknown as typeof Database;
    await (await createSqliteControlPlaneStore({ path: fresh(), driver: Counting })).close();
    expect(opened).toBe(1);
  });
});
