import { createBatchRunner, createMemoryStore, createVerifyEmailProcessor } from '@svc/batch-runner';
import { createVerifier } from '@svc/email-verifier';
import { afterEach, describe, expect, it } from 'vitest';
import { fleetVerifierOptions, mailLabPerFile } from '../testing/fleet-verifier.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer | undefined;

const liveVerifier = () => createVerifier(fleetVerifierOptions(lab.dns, lab.fleet));

async function start(shareAcrossAccounts?: boolean) {
  server = await createTestServer({
    verifier: liveVerifier(),
    options: shareAcrossAccounts === undefined ? {} : { verifyCache: { shareAcrossAccounts } },
  });
  return server;
}

async function verify(key: string, body: object, path = '/v2/verify/email') {
  const response = await (server as TestServer).call('POST', path, key, body);
  expect(response.statusCode).toBe(200);
  return response.json();
}

/** The recipients the fake MTA was asked about (the catch-all question's random ones left out). */
async function asked(): Promise<string[]> {
  await lab.fleet.waitForIdle();
  return lab.fleet.sessions.flatMap((session) =>
    session.rcpts.map((rcpt) => rcpt.address).filter((address) => !/^[a-z0-9]{16}@/.test(address)),
  );
}

const lab = mailLabPerFile({
  zones: {
    'canary.test': { A: ['192.0.2.1'] },
    'good.test': { MX: [{ priority: 10, exchange: 'mx1.good.test' }] },
    'mx1.good.test': { A: ['127.0.0.2'] },
  },
  fleet: {
    hosts: ['127.0.0.2'],
    script: { mailboxes: { 'alice@good.test': 'accept', 'bob@good.test': 'accept' } },
  },
});
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

const probe = { email: 'alice@good.test', options: { probe_mailbox: true } };

describe('the result cache behind POST /v2/verify/email', () => {
  it("answers an account's repeat from its cache (cached_at, no probe, billed), never another account's", async () => {
    const s = await start();
    const a = await s.account('pro', 'a');
    const b = await s.account('pro', 'b');

    const first = await verify(a.liveKey.secret, probe);
    expect(first).not.toHaveProperty('cached_at');
    const again = await verify(a.liveKey.secret, probe);
    expect(again.checked_at).toBe(first.checked_at);
    expect(Date.parse(again.cached_at)).toBeGreaterThanOrEqual(Date.parse(first.checked_at));
    expect(again.request_id).not.toBe(first.request_id);
    expect(await asked()).toEqual(['alice@good.test']);

    // B's request probes: A's answer is A's.
    const other = await verify(b.liveKey.secret, probe);
    expect(other).not.toHaveProperty('cached_at');
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test']);

    // The cached answer is billed like any other: the user got an answer.
    const usage = await s.call('GET', '/v2/usage', a.liveKey.secret);
    expect(usage.json().total).toEqual({ calls: 2, units: 2 });
  });

  it('probes again with options.fresh, and the bulk endpoint reads the same per-account cache', async () => {
    const s = await start();
    const a = await s.account('pro', 'a');
    await verify(a.liveKey.secret, probe);
    const fresh = await verify(a.liveKey.secret, { ...probe, options: { probe_mailbox: true, fresh: true } });
    expect(fresh).not.toHaveProperty('cached_at');
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test']);

    const bulk = await verify(
      a.liveKey.secret,
      { emails: ['alice@good.test', 'bob@good.test'], options: { probe_mailbox: true } },
      '/v2/verify/email/bulk',
    );
    expect(bulk.results.map((result: { cached_at?: string }) => result.cached_at !== undefined)).toEqual([
      true,
      false,
    ]);
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test', 'bob@good.test']);
  });

  it('refuses a fresh that is not a boolean, naming the field', async () => {
    const s = await start();
    const a = await s.account('pro', 'a');
    const response = await s.call('POST', '/v2/verify/email', a.liveKey.secret, {
      email: 'alice@good.test',
      options: { fresh: 'yes' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('fresh');
  });

  it("DELETE /v2/verify/email/cache forgets an address in the caller's namespace only, unbilled", async () => {
    const s = await start();
    const a = await s.account('pro', 'a');
    const b = await s.account('pro', 'b');
    const forget = (key: string, email: string) =>
      s.call('DELETE', `/v2/verify/email/cache?email=${encodeURIComponent(email)}`, key);
    await verify(a.liveKey.secret, probe);
    const byB = await forget(b.liveKey.secret, 'alice@good.test');
    expect(byB.statusCode).toBe(200);
    expect(byB.json()).toEqual({ object: 'verify_cache_invalidation', email: 'alice@good.test', deleted: 0 });
    expect((await verify(a.liveKey.secret, probe)).cached_at).toBeDefined();

    expect((await forget(a.liveKey.secret, 'Alice@good.test')).json().deleted).toBe(1);
    expect(await verify(a.liveKey.secret, probe)).not.toHaveProperty('cached_at');
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test']);

    // Test keys have no cache; a string that is not an address is refused; nothing is billed.
    expect((await forget(a.testKey.secret, 'alice@good.test')).json().deleted).toBe(0);
    const bad = await forget(a.liveKey.secret, 'not an address');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('unprocessable');
    const usage = await s.call('GET', '/v2/usage', a.liveKey.secret);
    expect(usage.json().total).toEqual({ calls: 3, units: 3 });
  });

  it('shares results across accounts only when the operator says so', async () => {
    const s = await start(true);
    const a = await s.account('pro', 'a');
    const b = await s.account('pro', 'b');
    const first = await verify(a.liveKey.secret, probe);
    const other = await verify(b.liveKey.secret, probe);
    // The other account gets the first account's check: its checked_at, and cached_at from when
    // that check was stored (the same millisecond or a little later, never before).
    expect(other.checked_at).toBe(first.checked_at);
    expect(Date.parse(other.cached_at)).toBeGreaterThanOrEqual(Date.parse(first.checked_at));
    expect(await asked()).toEqual(['alice@good.test']);
  });
});

describe("the result cache behind svc serve's verify_email batch runner", () => {
  it("a probing job is answered from its account's cache; another account's job probes", async () => {
    const verifier = liveVerifier();
    const runner = createBatchRunner({
      store: createMemoryStore(),
      processors: [createVerifyEmailProcessor(verifier, { probe_mailbox: true })],
      pollIntervalMs: 5,
    });
    runner.start();
    const run = async (account: string) => {
      const job = await runner.submit({
        type: 'verify_email',
        records: ['alice@good.test', 'bob@good.test'],
        account_id: account,
      });
      await expect.poll(async () => (await runner.get(job.id)).status).toBe('completed');
      const { data } = await runner.results(job.id);
      return data.map((row) => (row.result as { cached_at?: string }).cached_at !== undefined);
    };
    try {
      // A single call by account A first, then A's job: alice from the cache, bob probed.
      await verifier.verify('alice@good.test', { probe_mailbox: true }, { cacheNamespace: 'acct_a' });
      expect(await run('acct_a')).toEqual([true, false]);
      expect((await asked()).sort()).toEqual(['alice@good.test', 'bob@good.test']);
      // The same job again: nothing probed.
      expect(await run('acct_a')).toEqual([true, true]);
      expect(await asked()).toHaveLength(2);
      // Account B's job probes both.
      expect(await run('acct_b')).toEqual([false, false]);
      expect(await asked()).toHaveLength(4);
    } finally {
      await runner.close();
    }
  });
});
