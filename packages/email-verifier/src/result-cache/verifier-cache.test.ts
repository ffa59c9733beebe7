import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type FakeDnsServer,
  fleetProbeOptions,
  type SmtpFleet,
  startDnsServer,
  startSmtpFleet,
} from '@svc/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNodeDnsResolver } from '../dns/backends/node-dns.js';
import { createVerifier } from '../verifier.js';
import type { VerifierOptions } from '../verifier-options.js';
import { createMemoryResultCache } from './memory.js';
import { createSqliteResultCache } from './sqlite.js';

let dns: FakeDnsServer;
let fleet: SmtpFleet;
const dir = mkdtempSync(join(tmpdir(), 'verifier-cache-'));
let now = Date.parse('2026-11-23T10:00:00Z');
const clock = () => new Date(now);

beforeAll(async () => {
  dns = await startDnsServer({
    zones: {
      'canary.test': { A: ['192.0.2.1'] },
      'good.test': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
      'other.test': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
      'mailinator.com': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
      'mx.good.test': { A: ['127.0.0.2'] },
    },
  });
  fleet = await startSmtpFleet({
    hosts: ['127.0.0.2'],
    script: {
      mailboxes: {
        'alice@good.test': 'accept',
        'bob@good.test': 'accept',
        'carol@other.test': 'accept',
        'temp@mailinator.com': 'accept',
        'grey@good.test': { greylist: { delayMs: 60 * 60_000 } },
      },
    },
  });
});
afterAll(async () => {
  await fleet.close();
  await dns.close();
  rmSync(dir, { recursive: true, force: true });
});
/** Forgets the sessions so far, once the last one has ended (its QUIT may still be under way). */
async function resetSessions(): Promise<void> {
  await fleet.waitForIdle();
  fleet.resetRecords();
}

beforeEach(async () => {
  await resetSessions();
  now = Date.parse('2026-11-23T10:00:00Z');
});

/** A verifier against the fakes; the result cache is its default unless given. */
const verifierWith = (options: Pick<VerifierOptions, 'resultCache'> = {}) =>
  createVerifier({
    dns: createNodeDnsResolver({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
    resolverHealth: { canaries: ['canary.test'] },
    clock,
    smtp: fleetProbeOptions(fleet),
    ...options,
  });

/** The recipients the fake MTA was asked about (the catch-all question's random ones left out). */
async function asked(): Promise<string[]> {
  await fleet.waitForIdle();
  return fleet.sessions.flatMap((session) =>
    session.rcpts.map((rcpt) => rcpt.address).filter((address) => !/^[a-z0-9]{16}@/.test(address)),
  );
}

const probe = { probe_mailbox: true };

describe('verify() with the result cache', () => {
  it('answers the same address again from the cache by default: no SMTP session, cached_at set', async () => {
    const verifier = verifierWith();
    const first = await verifier.verify('alice@good.test', probe);
    expect(first.state).toBe('deliverable');
    expect(first).not.toHaveProperty('cached_at');
    await fleet.waitForIdle();
    expect(fleet.sessions).toHaveLength(1);
    await resetSessions();

    now += 60_000;
    const second = await verifier.verify('Alice@GOOD.test', probe);
    expect(await asked()).toEqual([]);
    expect(fleet.sessions).toHaveLength(0);
    expect(second).toEqual({
      ...first,
      email: 'Alice@GOOD.test',
      request_id: second.request_id,
      cached_at: '2026-11-23T10:00:00.000Z',
    });
    expect(second.request_id).toMatch(/^req_/);
    expect(second.request_id).not.toBe(first.request_id);
    // The evidence is as old as the check: checked_at is the first call's.
    expect(second.checked_at).toBe(first.checked_at);
  });

  it('probes again once the state’s TTL has passed (injected clock)', async () => {
    const verifier = verifierWith({ resultCache: createMemoryResultCache({ ttlSeconds: { unknown: 300 } }) });
    expect((await verifier.verify('grey@good.test', probe)).reasons).toContain('greylisted');
    expect((await verifier.verify('alice@good.test', probe)).state).toBe('deliverable');
    expect(await asked()).toEqual(['grey@good.test', 'alice@good.test']);
    await resetSessions();

    now += 299_999;
    expect((await verifier.verify('grey@good.test', probe)).cached_at).toBeDefined();
    expect(await asked()).toEqual([]);

    now += 1; // the unknown's 5 minutes are over; the deliverable's 7 days are not
    const again = await verifier.verify('grey@good.test', probe);
    expect(again).not.toHaveProperty('cached_at');
    expect((await verifier.verify('alice@good.test', probe)).cached_at).toBe('2026-11-23T10:00:00.000Z');
    expect(await asked()).toEqual(['grey@good.test']);
  });

  it('fresh: true probes again and replaces the cached result', async () => {
    const verifier = verifierWith();
    await verifier.verify('alice@good.test', probe);
    now += 1000;
    const fresh = await verifier.verify('alice@good.test', { probe_mailbox: true, fresh: true });
    expect(fresh).not.toHaveProperty('cached_at');
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test']);
    now += 1000;
    expect((await verifier.verify('alice@good.test', probe)).cached_at).toBe('2026-11-23T10:00:01.000Z');
    expect(await asked()).toHaveLength(2);
  });

  it('never answers a probe request with a result that had no probe, nor the reverse', async () => {
    const verifier = verifierWith();
    const unprobed = await verifier.verify('alice@good.test');
    expect(unprobed.reasons).toEqual(['mailbox_not_probed']);
    const probed = await verifier.verify('alice@good.test', probe);
    expect(probed).not.toHaveProperty('cached_at');
    expect(probed.reasons).toEqual([]);
    expect(await asked()).toEqual(['alice@good.test']);
    // A request without a probe still gets a result without one (and it is not a cached one).
    const unprobedAgain = await verifier.verify('alice@good.test');
    expect(unprobedAgain.reasons).toEqual(['mailbox_not_probed']);
    expect(unprobedAgain).not.toHaveProperty('cached_at');
  });

  it('keeps check_disposable variants apart', async () => {
    const verifier = verifierWith();
    expect((await verifier.verify('temp@mailinator.com', probe)).is_disposable).toBe(true);
    const unchecked = await verifier.verify('temp@mailinator.com', { ...probe, check_disposable: false });
    expect(unchecked.is_disposable).toBe(false);
    expect(unchecked).not.toHaveProperty('cached_at');
    expect(await asked()).toEqual(['temp@mailinator.com', 'temp@mailinator.com']);
  });

  it('keeps namespaces apart: another namespace probes', async () => {
    const verifier = verifierWith();
    await verifier.verify('alice@good.test', probe, { cacheNamespace: 'acct_a' });
    const b = await verifier.verify('alice@good.test', probe, { cacheNamespace: 'acct_b' });
    expect(b).not.toHaveProperty('cached_at');
    const a = await verifier.verify('alice@good.test', probe, { cacheNamespace: 'acct_a' });
    expect(a.cached_at).toBeDefined();
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test']);
  });

  it('invalidateCached forgets an address in its namespace; a non-address is refused', async () => {
    const verifier = verifierWith();
    await verifier.verify('alice@good.test', probe);
    await verifier.verify('alice@good.test', probe, { cacheNamespace: 'acct_a' });
    await verifier.verify('bob@good.test', probe);
    expect(await verifier.invalidateCached('ALICE@good.test')).toBe(1);
    expect(await verifier.invalidateCached('ALICE@good.test')).toBe(0);
    await resetSessions();
    expect(await verifier.verify('alice@good.test', probe)).not.toHaveProperty('cached_at');
    expect(
      (await verifier.verify('alice@good.test', probe, { cacheNamespace: 'acct_a' })).cached_at,
    ).toBeDefined();
    expect((await verifier.verify('bob@good.test', probe)).cached_at).toBeDefined();
    expect(await asked()).toEqual(['alice@good.test']);
    await expect(verifier.invalidateCached('not an address')).rejects.toMatchObject({
      code: 'unprocessable',
    });
  });

  it('probes an address once for concurrent calls; the others get its answer marked cached', async () => {
    const verifier = verifierWith();
    const results = await Promise.all([
      verifier.verify('alice@good.test', probe),
      verifier.verify('ALICE@good.test', probe),
      verifier.verify('alice@good.test', probe),
      verifier.verify('alice@good.test', probe, { cacheNamespace: 'acct_b' }),
    ]);
    expect(results.map((result) => [result.email, result.state, result.cached_at !== undefined])).toEqual([
      ['alice@good.test', 'deliverable', false],
      ['ALICE@good.test', 'deliverable', true],
      ['alice@good.test', 'deliverable', true],
      ['alice@good.test', 'deliverable', false],
    ]);
    // acct_b's call is a probe of its own, but it joined the same session at the same moment, and
    // the probe asks one RCPT for a recipient queued twice.
    expect(await asked()).toEqual(['alice@good.test']);
  });

  it('gives each call its own requestId, whether it probed, joined a probe or was cached', async () => {
    const verifier = verifierWith();
    const results = await Promise.all([
      verifier.verify('alice@good.test', probe, { requestId: 'req_first' }),
      verifier.verify('alice@good.test', probe, { requestId: 'req_joined' }),
      verifier.verify('alice@good.test', probe),
    ]);
    expect(results[0]?.request_id).toBe('req_first');
    expect(results[1]?.request_id).toBe('req_joined');
    expect(results[2]?.request_id).toMatch(/^req_/);
    expect(results[2]?.request_id).not.toBe('req_first');
    const cached = await verifier.verify('alice@good.test', probe, { requestId: 'req_cached' });
    expect(cached).toMatchObject({ request_id: 'req_cached', cached_at: expect.any(String) });
    // The cached result is not changed by the calls it answered.
    expect((await verifier.verify('alice@good.test', probe)).request_id).not.toBe('req_cached');
  });

  it('resultCache: false probes every time', async () => {
    const verifier = verifierWith({ resultCache: false });
    await verifier.verify('alice@good.test', probe);
    expect(await verifier.verify('alice@good.test', probe)).not.toHaveProperty('cached_at');
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test']);
    expect(await verifier.invalidateCached('alice@good.test')).toBe(0);
  });

  it('shares results through a SQLite file between verifiers (processes)', async () => {
    const path = join(dir, 'shared.db');
    const first = verifierWith({ resultCache: await createSqliteResultCache({ path }) });
    const original = await first.verify('alice@good.test', probe);
    const secondCache = await createSqliteResultCache({ path });
    const second = verifierWith({ resultCache: secondCache });
    now += 5000;
    const served = await second.verify('alice@good.test', probe);
    expect(served.cached_at).toBe('2026-11-23T10:00:00.000Z');
    expect(served.smtp).toEqual(original.smtp);
    expect(await asked()).toEqual(['alice@good.test']);
    await secondCache.close();
  });
});

describe('verifyMany() with the result cache', () => {
  it('asks the mail server only about addresses not cached, keeps input order, stores the new ones', async () => {
    const verifier = verifierWith();
    await verifier.verify('alice@good.test', probe);
    await resetSessions();
    now += 1000;
    const results = await verifier.verifyMany(
      ['bob@good.test', 'ALICE@good.test', 'carol@other.test', 'alice@good.test', 'not-an-address'],
      probe,
    );
    expect(results.map((result) => [result.email, result.state, result.cached_at ?? null])).toEqual([
      ['bob@good.test', 'deliverable', null],
      ['ALICE@good.test', 'deliverable', '2026-11-23T10:00:00.000Z'],
      ['carol@other.test', 'deliverable', null],
      ['alice@good.test', 'deliverable', '2026-11-23T10:00:00.000Z'],
      ['not-an-address', 'undeliverable', null],
    ]);
    expect((await asked()).sort()).toEqual(['bob@good.test', 'carol@other.test']);
    await resetSessions();

    // The whole list again: every probed address from the cache, no session at all.
    const again = await verifier.verifyMany(
      ['bob@good.test', 'carol@other.test', 'alice@good.test'],
      probe,
      {},
    );
    expect(again.map((result) => result.cached_at)).toEqual([
      '2026-11-23T10:00:01.000Z',
      '2026-11-23T10:00:01.000Z',
      '2026-11-23T10:00:00.000Z',
    ]);
    expect(await asked()).toEqual([]);
    expect(fleet.sessions).toHaveLength(0);
  });

  it('reports progress for cached answers too, and fresh: true probes the whole list again', async () => {
    const verifier = verifierWith();
    await verifier.verifyMany(['alice@good.test', 'bob@good.test'], probe);
    await resetSessions();
    const progress: number[] = [];
    const cached = await verifier.verifyMany(['alice@good.test', 'bob@good.test'], probe, {
      onProgress: (done) => progress.push(done),
    });
    expect(progress).toEqual([1, 2]);
    expect(cached.every((result) => result.cached_at !== undefined)).toBe(true);
    const fresh = await verifier.verifyMany(['alice@good.test', 'bob@good.test'], { ...probe, fresh: true });
    expect(fresh.some((result) => 'cached_at' in result)).toBe(false);
    expect((await asked()).sort()).toEqual(['alice@good.test', 'bob@good.test']);
  });

  it("stamps every result with the call's requestId, cached, probed, duplicate or invalid", async () => {
    const verifier = verifierWith();
    await verifier.verify('alice@good.test', probe, { requestId: 'req_earlier' });
    const results = await verifier.verifyMany(
      ['alice@good.test', 'bob@good.test', 'BOB@good.test', 'not-an-address'],
      probe,
      { requestId: 'req_bulk' },
    );
    expect(results.map((result) => result.request_id)).toEqual([
      'req_bulk',
      'req_bulk',
      'req_bulk',
      'req_bulk',
    ]);
    expect(results[0]?.cached_at).toBeDefined();
    // Without one, each result has an id of its own.
    const own = await verifier.verifyMany(['bob@good.test', 'carol@other.test'], probe);
    expect(new Set(own.map((result) => result.request_id)).size).toBe(2);
  });

  it('uses the namespace of the call', async () => {
    const verifier = verifierWith();
    await verifier.verifyMany(['alice@good.test'], probe, { cacheNamespace: 'acct_a' });
    const other = await verifier.verifyMany(['alice@good.test'], probe, { cacheNamespace: 'acct_b' });
    expect(other[0]).not.toHaveProperty('cached_at');
    expect(await asked()).toEqual(['alice@good.test', 'alice@good.test']);
  });
});
