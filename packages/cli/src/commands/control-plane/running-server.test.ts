import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier } from '@svc/email-verifier';
import { createGeoResolver, openMmdbBackend } from '@svc/geo-resolver';
import {
  CONTROL_PLANE_DB_FILE,
  CREDENTIAL_CACHE_MS,
  createServer,
  createServerSecrets,
  createSqliteControlPlaneStore,
  loadServerKey,
} from '@svc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../exit-codes.js';
import { main } from '../../main.js';
import { captureIo } from '../../testing/capture-io.js';

/** MaxMind's small City test database (shared fixtures): the server needs a geo backend. */
const GEO_FIXTURE = new URL(
  '../../../../../fixtures/maxmind-db/test-data/GeoIP2-City-Test.mmdb',
  import.meta.url,
).pathname;

async function svc(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('svc accounts and svc keys beside a running server', () => {
  let dir: string;
  let dataDir: string;
  let app: Awaited<ReturnType<typeof createServer>>;
  let base: string;
  let close: () => Promise<void>;
  /** How far the server's clock is ahead of real time: the test moves it instead of waiting. */
  let skew = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-operator-'));
    dataDir = join(dir, 'data');
    // The operator sets up before the first start, as the README says.
    expect((await svc('accounts', 'create', '--name', 'first', '--data-dir', dataDir)).code).toBe(EXIT.ok);
    const store = await createSqliteControlPlaneStore({ path: join(dataDir, CONTROL_PLANE_DB_FILE) });
    app = await createServer({
      controlPlane: store,
      secrets: createServerSecrets(loadServerKey({ dataDir, env: {} }).key),
      verifier: createVerifier(),
      geo: await createGeoResolver({ backends: [await openMmdbBackend({ source: GEO_FIXTURE })] }),
      options: { logLevel: 'silent' },
      now: () => Date.now() + skew,
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    close = async () => {
      await app.close();
      await store.close();
    };
  });
  afterAll(async () => {
    await close?.();
    await rm(dir, { recursive: true, force: true });
  });

  const account = (key: string) => fetch(`${base}/v2/account`, { headers: { 'x-api-key': key } });

  /**
   * The server's answer once a change made by another process must have reached it: a running
   * server caches credentials for CREDENTIAL_CACHE_MS by its clock, which is moved past that
   * rather than waited for.
   */
  async function settled(ask: () => Promise<Response>) {
    skew += CREDENTIAL_CACHE_MS + 1;
    return ask();
  }

  it('takes effect on the running server within its credential cache time: a new account, a plan change, a revoked key, a disabled account', async () => {
    const created = JSON.parse(
      (await svc('accounts', 'create', '--name', 'Later Co', '--data-dir', dataDir, '--json')).out,
    );
    const id = created.account.id;
    const [test, live] = created.keys;
    const first = await account(live.secret);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ id, plan: { id: 'free' } });

    expect((await svc('accounts', 'set-plan', id, 'enterprise', '--data-dir', dataDir)).code).toBe(EXIT.ok);
    const moved = await settled(() => account(live.secret));
    expect(((await moved.json()) as { plan: unknown }).plan).toMatchObject({
      id: 'enterprise',
      monthly_allowance: 1_000_000,
    });
    expect(moved.headers.get('x-ratelimit-limit')).toBe('200');

    expect((await svc('keys', 'revoke', id, test.id, '--data-dir', dataDir)).code).toBe(EXIT.ok);
    expect((await settled(() => account(test.secret))).status).toBe(401);
    expect((await account(live.secret)).status).toBe(200);

    expect((await svc('accounts', 'disable', id, '--data-dir', dataDir)).code).toBe(EXIT.ok);
    const disabled = await settled(() => account(live.secret));
    expect(disabled.status).toBe(401);
    expect(((await disabled.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect((await svc('accounts', 'enable', id, '--data-dir', dataDir)).code).toBe(EXIT.ok);
    expect((await settled(() => account(live.secret))).status).toBe(200);
  });
});
