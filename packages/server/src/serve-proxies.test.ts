import { type Socks5Proxy, startSocks5Proxy } from '@svc/testkit';
import { tempDirPerTest } from '@svc/testkit/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from './serve.js';
import { mailLabPerFile } from './testing/fleet-verifier.js';
import { printedLiveKey, serveForTest } from './testing/serve-for-test.js';

// svc serve with smtp.proxies: probes through a pool of testkit SOCKS5 proxies, one failing,
// the pool's changes on stderr without credentials.

const PASSWORD = 'serve-proxy-secret';
const dir = tempDirPerTest('svc-serve-proxies-');
const lab = mailLabPerFile({
  zones: {
    'canary.test': { A: ['192.0.2.1'] },
    'good.test': { MX: [{ priority: 10, exchange: 'mx.good.test' }] },
    'mx.good.test': { A: ['127.0.0.2'] },
  },
  fleet: {
    hosts: ['127.0.0.2'],
    script: { mailboxes: { 'alice@good.test': 'accept' } },
  },
});
let good: Socks5Proxy;
let broken: Socks5Proxy;
let server: RunningServer | undefined;

beforeAll(async () => {
  good = await startSocks5Proxy({ auth: { username: 'probe', password: PASSWORD } });
  broken = await startSocks5Proxy({
    auth: { username: 'probe', password: PASSWORD },
    failure: 'not_allowed',
  });
});
afterAll(async () => {
  await Promise.all([good?.close(), broken?.close()]);
});
// Before the test's directory is removed.
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('svc serve with smtp.proxies', () => {
  it('probes through the pool past a failing proxy, names the proxy in the result and logs the outage without the password', async () => {
    const started = await serveForTest(dir(), {
      dns: lab.dns.address,
      dnsCanaries: ['canary.test'],
      smtp: {
        port: lab.fleet.port,
        allowPrivateMx: true,
        heloName: 'serve.test',
        proxies: [
          { url: `socks5://probe:${PASSWORD}@127.0.0.1:${broken.port}`, label: 'broken-1' },
          { url: `socks5://probe:${PASSWORD}@127.0.0.1:${good.port}` },
        ],
        proxySelection: 'round-robin',
      },
      verifyCache: { store: 'off' },
    });
    server = started.server;
    const { out, err } = started;
    const live = printedLiveKey(err()) as string;
    const response = await fetch(`${server.url}/v2/verify/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': live },
      body: JSON.stringify({ email: 'alice@good.test', options: { probe_mailbox: true } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { state: string; smtp: { proxy: string; host: string } };
    expect(body).toMatchObject({
      state: 'deliverable',
      smtp: { host: 'mx.good.test', proxy: `127.0.0.1:${good.port}` },
    });
    expect(broken.connections).toHaveLength(1);
    expect(err()).toMatch(
      /svc serve: SOCKS5 proxy broken-1 is out until \S+ \(1 failure\(s\) in a row\): SOCKS5 proxy 127\.0\.0\.1:\d+: connection not allowed by ruleset \(reply 2\)/,
    );
    expect(JSON.stringify(body) + err() + out()).not.toContain(PASSWORD);
  });
});
