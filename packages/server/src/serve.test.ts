import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { commandOnPath, skipWithout, startDnsServer } from '@svc/testkit';
import { tempDirPerTest } from '@svc/testkit/vitest';
import BetterSqlite3 from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticate } from './control-plane/accounts.js';
import { BATCH_DB_FILE, type RunningServer, type ServeOptions, serve } from './serve.js';
import { printedLiveKey, printedTestKey, serveForTest } from './testing/serve-for-test.js';
import { GEO_FIXTURES } from './testing/test-server.js';

const dir = tempDirPerTest('svc-serve-');
const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

/** serveForTest() in this test's directory, closed after the test. */
async function start(options: Record<string, unknown> = {}, extra: Pick<ServeOptions, 'now'> = {}) {
  const started = await serveForTest(dir(), options, { batchStopTimeoutMs: 200, ...extra });
  running.push(started.server);
  return started;
}

describe('serve', () => {
  it('first start: data dir 0700, an owner account whose keys are printed once, on stderr, and work', async () => {
    const first = await start({ logLevel: 'info' });
    const printed = first.err();
    expect(printed).toMatch(/first start: created the account acct_\w+ \("owner", plan self_hosted\)/);
    const live = printedLiveKey(printed);
    const test = printedTestKey(printed);
    expect(live).toBeDefined();
    expect(test).toBeDefined();
    expect(printed).toMatch(/webhook signing secret: +whsec_[A-Za-z0-9+/]{32}\n/);
    // stdout (the start line and the JSON request log, what a log shipper collects) holds no secret.
    await fetch(`${first.server.url}/v2/account`, { headers: { 'x-api-key': live as string } });
    expect(first.out()).toContain(
      `svc serve: listening on ${first.server.url} (data in ${join(dir(), 'data')})`,
    );
    expect(first.out()).toMatch(
      /first start: created the owner account acct_\w+; its keys .* printed once on stderr/,
    );
    await expect.poll(() => first.out()).toMatch(/"path":"\/v2\/account"/);
    for (const secret of [live, test, /whsec_\S+/.exec(printed)?.[0]]) {
      expect(secret).toBeDefined();
      expect(first.out()).not.toContain(secret);
    }
    expect(first.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(statSync(join(dir(), 'data')).mode & 0o777).toBe(0o700);
    // The printed keys authenticate as the owner account.
    const deps = { controlPlane: (first.server.app as FastifyInstance).svc.controlPlane, now: Date.now };
    for (const secret of [live, test])
      expect((await authenticate(deps, secret))?.account.id).toBe(first.server.createdOwner?.accountId);
    const health = (await (await fetch(`${first.server.url}/v2/health`)).json()) as {
      geo: { databases: { type: string; source: string }[] };
    };
    expect(health.geo.databases).toMatchObject([
      // A key-less caller sees the file name, not where it lives.
      { type: 'GeoIP2-City', source: 'GeoIP2-City-Test.mmdb' },
    ]);
    await first.server.close();
    running.pop();
    // Stored as hashes only: the database files never hold the key.
    for (const file of readdirSync(join(dir(), 'data')).filter((name) => name.startsWith('control-plane.db')))
      expect(readFileSync(join(dir(), 'data', file)).includes(live as string)).toBe(false);

    // A restart on the same data dir finds the owner and prints no keys.
    const second = await start();
    expect(second.server.createdOwner).toBeNull();
    expect(second.out()).not.toContain('sk_live_');
    expect(second.out()).toContain('listening on');
  });

  it('creates the owner on the configured plan', async () => {
    const { server, err } = await start({ ownerPlan: 'pro' });
    expect(err()).toContain('plan pro)');
    expect(server.createdOwner).not.toBeNull();
  });

  it('refuses a TLS file it cannot read before opening anything', async () => {
    await expect(
      start({ tls: { certFile: join(dir(), 'missing.pem'), keyFile: join(dir(), 'missing-key.pem') } }),
    ).rejects.toThrow(`cannot use tls.certFile ${join(dir(), 'missing.pem')}: no such file`);
  });

  it('results_url is absolute on one address, the path alone when bound to every interface', async () => {
    for (const [host, expected] of [
      ['127.0.0.1', /^http:\/\/127\.0\.0\.1:\d+\/v2\/batch\/batch_\w+\/results$/],
      ['0.0.0.0', /^\/v2\/batch\/batch_\w+\/results$/],
    ] as const) {
      const { server, err } = await start({ host, dataDir: join(dir(), host) });
      const live = printedLiveKey(err()) as string;
      const url = `http://127.0.0.1:${new URL(server.url).port}`;
      const submitted = await fetch(`${url}/v2/batch`, {
        method: 'POST',
        headers: { 'x-api-key': live, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'geo_ip', records: ['81.2.69.142'] }),
      });
      const { id } = (await submitted.json()) as { id: string };
      let job = { status: '', results_url: '' };
      for (let i = 0; i < 100 && job.status !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        job = (await (
          await fetch(`${url}/v2/batch/${id}`, { headers: { 'x-api-key': live } })
        ).json()) as typeof job;
      }
      expect(job.results_url).toMatch(expected);
    }
  });

  it('close() stops listening and can be called twice', async () => {
    const { server } = await start();
    const url = server.url;
    await Promise.all([server.close(), server.close()]);
    running.pop();
    await expect(fetch(`${url}/v2/health`)).rejects.toThrow();
  });
});

describe('serve with no dataDir configured', () => {
  /** serve() with no dataDir, HOME under the test's dir, from `cwd`; its stderr collected. */
  async function startDefault(cwd: string) {
    let err = '';
    const server = await serve({
      options: { port: 0, logLevel: 'silent', geo: { databases: [`${GEO_FIXTURES}GeoIP2-City-Test.mmdb`] } },
      env: { HOME: join(dir(), 'home') },
      cwd,
      stdout: { write: () => true },
      stderr: { write: (text: string) => (err += text) },
      handleSignals: false,
    });
    running.push(server);
    return { server, err: () => err };
  }

  it("uses the user's data dir, or an earlier ./svc-data holding the key, with a notice", async () => {
    // A fresh working directory: the user's data dir, no notice.
    mkdirSync(join(dir(), 'elsewhere'));
    const fresh = await startDefault(join(dir(), 'elsewhere'));
    const userDir = join(dir(), 'home', '.local', 'share', 'svc');
    expect(fresh.server.options.dataDir).toBe(userDir);
    expect(existsSync(join(userDir, 'secret.key'))).toBe(true);
    expect(fresh.err()).not.toContain('notice');
    await fresh.server.close();

    // An earlier version's ./svc-data with its key and accounts, and a user data dir without them
    // (only geo data there): the earlier one keeps serving its accounts, and the start says so.
    const earlier = join(dir(), 'project', 'svc-data');
    const first = await start({ dataDir: earlier });
    const owner = first.server.createdOwner?.accountId;
    await first.server.close();
    rmSync(join(userDir, 'secret.key'));
    rmSync(join(userDir, 'control-plane.db'));
    const upgraded = await startDefault(join(dir(), 'project'));
    expect(upgraded.server.options.dataDir).toBe(earlier);
    expect(upgraded.server.createdOwner).toBeNull();
    expect(await upgraded.server.app?.svc.controlPlane.getAccount(owner as string)).not.toBeNull();
    expect(upgraded.err()).toContain(
      `svc serve: notice: using the data in ${earlier}, where earlier versions kept it; the default data dir is now ${userDir}.`,
    );
    expect(upgraded.err()).toContain(`set SVC_DATA_DIR=${earlier}`);
  });
});

describe('serve with its clock moved by the test', () => {
  it('a token minted with the minimum TTL (60 s) serves until then and is refused from then on', async () => {
    const clock = { now: Date.UTC(2026, 10, 23, 12) };
    const { server, err } = await start({}, { now: () => clock.now });
    const live = printedLiveKey(err()) as string;
    const minted = await fetch(`${server.url}/v2/tokens`, {
      method: 'POST',
      headers: { 'x-api-key': live, 'content-type': 'application/json' },
      body: JSON.stringify({ ttl_seconds: 60 }),
    });
    expect(minted.status).toBe(201);
    const token = (await minted.json()) as { token: string; expires_at: string };
    expect(token.expires_at).toBe('2026-11-23T12:01:00.000Z');
    const geo = (key: string) => fetch(`${server.url}/v2/geo/81.2.69.142`, { headers: { 'x-api-key': key } });
    expect((await geo(token.token)).status).toBe(200);
    clock.now += 59_999;
    expect((await geo(token.token)).status).toBe(200);
    clock.now += 1;
    const expired = await geo(token.token);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    // Only the token ended: the key that minted it still works.
    expect((await geo(live)).status).toBe(200);
  });
});

describe('serve with a DNS server that answers slowly', () => {
  it('a verification whose DNS takes longer than dnsTimeoutMs is 503 upstream_timeout, in about two tries', async () => {
    const dns = await startDnsServer({
      zones: {
        'canary.test': { A: ['192.0.2.1'] },
        'slow.test': { MX: [{ priority: 10, exchange: 'mx.slow.test' }], delayMs: 3_000 },
      },
    });
    try {
      const { server, err } = await start({
        dns: dns.address,
        dnsTimeoutMs: 200,
        dnsCanaries: ['canary.test'],
      });
      const live = printedLiveKey(err()) as string;
      const response = await fetch(`${server.url}/v2/verify/email`, {
        method: 'POST',
        headers: { 'x-api-key': live, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'someone@slow.test' }),
      });
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('upstream_timeout');
      expect(body.error.message).toMatch(/slow\.test/);
      // The DNS server answers after 3 s: with the 5 s default the verification would have had its
      // MX; upstream_timeout says dnsTimeoutMs (200 ms) ended the wait (no timing asserted).
      expect(dns.queries.filter((query) => query.name === 'slow.test').length).toBeGreaterThanOrEqual(1);
    } finally {
      await dns.close();
    }
  });
});

describe('serve with a batch job in progress', () => {
  it('a stop hands the job back: the next start on the data dir finishes it at once, not after the lease', async () => {
    // The job's one chunk waits on a slow MX answer (3 s) while the server stops.
    const dns = await startDnsServer({
      zones: {
        'canary.test': { A: ['192.0.2.1'] },
        'slow.test': { MX: [{ priority: 10, exchange: 'mx.slow.test' }], delayMs: 3_000 },
        'mx.slow.test': { A: ['127.0.0.9'] },
      },
    });
    try {
      const options = { dns: dns.address, dnsCanaries: ['canary.test'] };
      const first = await start(options);
      const live = printedLiveKey(first.err()) as string;
      const submitted = await fetch(`${first.server.url}/v2/batch`, {
        method: 'POST',
        headers: { 'x-api-key': live, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'verify_email', records: ['someone@slow.test'] }),
      });
      expect(submitted.status).toBe(202);
      const { id } = (await submitted.json()) as { id: string };
      const deadline = Date.now() + 5_000;
      while (!dns.queries.some((query) => query.name === 'slow.test') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(dns.queries.some((query) => query.name === 'slow.test')).toBe(true);
      running.pop();
      await first.server.close();
      // It did not wait for the chunk (its MX answers after 3 s, within the 10 s stop timeout, so
      // waiting would have finished the job), and no chunk is held: read from the data dir's store.
      const stored = new BetterSqlite3(join(dir(), 'data', BATCH_DB_FILE), { readonly: true });
      try {
        expect(stored.prepare('SELECT status FROM jobs WHERE id = ?').get(id)).not.toEqual({
          status: 'completed',
        });
        expect(
          stored
            .prepare(
              "SELECT count(*) AS held FROM chunks WHERE job_id = ? AND state = 'leased' AND lease_until > ?",
            )
            .get(id, Date.now()),
        ).toEqual({ held: 0 });
      } finally {
        stored.close();
      }

      const second = await start(options);
      const started = Date.now();
      let status = '';
      while (status !== 'completed' && Date.now() - started < 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const job = await fetch(`${second.server.url}/v2/batch/${id}`, { headers: { 'x-api-key': live } });
        status = ((await job.json()) as { status: string }).status;
      }
      // Inside the 30 s lease: the stopped runner had released it.
      expect(status).toBe('completed');
    } finally {
      await dns.close();
    }
  });
});

const noOpenssl = skipWithout({
  name: 'openssl',
  available: commandOnPath('openssl'),
  howToGet: 'apt-get install openssl',
  what: 'the HTTPS test of svc serve (a self-signed pair is made with it)',
});

describe.skipIf(noOpenssl)('serve with TLS', () => {
  it('serves HTTPS only, with the given certificate', async () => {
    const cert = join(dir(), 'cert.pem');
    const key = join(dir(), 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const { server } = await start({ tls: { certFile: cert, keyFile: key } });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const { status, body, peerCert } = await new Promise<{ status: number; body: string; peerCert: string }>(
      (resolve, reject) => {
        const req = httpsRequest(`${server.url}/v2/health`, { ca: readFileSync(cert) }, (res) => {
          const subject = String((res.socket as TLSSocket).getPeerCertificate().subject.CN);
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: text,
              peerCert: subject,
            }),
          );
        });
        req.on('error', reject);
        req.end();
      },
    );
    expect(status).toBe(200);
    // ok or degraded: this machine's resolver may not see the canary names; either is an answer.
    expect(JSON.parse(body).version).toBe('2.3.1');
    expect(peerCert).toBe('localhost');
    // Plain HTTP on the same port gets no API answer.
    const plain = await fetch(`${server.url.replace('https:', 'http:')}/v2/health`, {
      signal: AbortSignal.timeout(3_000),
    }).then(
      (response) => response.status,
      () => 'refused',
    );
    expect(plain).not.toBe(200);
  });
});
