import { connect as netConnect } from 'node:net';
import { describe, expect, test } from 'vitest';
import { startSmtpFleet, startSmtpServer } from './fleet.js';
import { openTransaction, SmtpTestClient } from './testing-client.js';
import { closedAfterEach } from './testing-fleets.js';

const fleetOf = closedAfterEach(startSmtpFleet);

describe('fleet', () => {
  test('two hosts share one port with different behaviour', async () => {
    const fleet = await fleetOf({
      hosts: ['127.0.0.2', { host: '127.0.0.3', script: { hostname: 'mx2.test', greeting: 'busy' } }],
      script: { hostname: 'mx1.test', mailboxes: { 'a@x.test': 'accept' } },
    });
    expect(fleet.port).toBeGreaterThan(0);
    expect(fleet.hosts).toEqual([
      { host: '127.0.0.2', port: fleet.port, hostname: 'mx1.test' },
      { host: '127.0.0.3', port: fleet.port, hostname: 'mx2.test' },
    ]);
    const first = await openTransaction(fleet.port, '127.0.0.2');
    expect((await first.command('RCPT TO:<a@x.test>')).code).toBe(250);
    first.destroy();
    const second = await SmtpTestClient.connect(fleet.port, '127.0.0.3');
    const greeting = await second.read();
    expect(greeting.code).toBe(421);
    expect(greeting.lines[0]).toContain('mx2.test');
    await second.waitClosed();
    await fleet.waitForIdle();
    expect(fleet.sessionsFor('127.0.0.2')).toHaveLength(1);
    expect(fleet.sessionsFor('127.0.0.3')).toHaveLength(1);
  });

  test('a host script merges its mailbox table over the fleet one', async () => {
    const fleet = await fleetOf({
      hosts: ['127.0.0.4', { host: '127.0.0.5', script: { mailboxes: { 'b@x.test': 'full' } } }],
      script: { mailboxes: { 'a@x.test': 'accept', 'b@x.test': 'accept' } },
    });
    const codes = async (host: string) => {
      const client = await openTransaction(fleet.port, host);
      const out = [
        (await client.command('RCPT TO:<a@x.test>')).code,
        (await client.command('RCPT TO:<b@x.test>')).code,
      ];
      client.destroy();
      return out;
    };
    expect(await codes('127.0.0.4')).toEqual([250, 250]);
    expect(await codes('127.0.0.5')).toEqual([250, 552]);
  });

  test('an explicit port is used by every host', async () => {
    const probe = await startSmtpServer({ host: '127.0.0.6' });
    const port = probe.port;
    await probe.close();
    const fleet = await fleetOf({ hosts: ['127.0.0.6', '127.0.0.7'], port });
    expect(fleet.port).toBe(port);
    const client = await SmtpTestClient.connect(port, '127.0.0.7');
    expect((await client.read()).code).toBe(220);
    client.destroy();
  });

  test('every session is recorded: addresses, times, commands and replies in order', async () => {
    const fleet = await fleetOf({ hosts: ['127.0.0.2'], script: { mailboxes: { 'a@x.test': 'accept' } } });
    const before = Date.now();
    const client = await SmtpTestClient.connect(fleet.port, '127.0.0.2', '127.0.0.9');
    await client.read();
    await client.command('EHLO client.test');
    await client.command('MAIL FROM:<probe@verifier.test>');
    await client.command('RCPT TO:<a@x.test>');
    await client.command('RCPT TO:<b@x.test>');
    await client.command('RSET');
    await client.command('QUIT');
    await client.waitClosed();
    await fleet.waitForIdle();
    expect(fleet.sessions).toHaveLength(1);
    const s = fleet.sessions[0]!;
    expect(s).toMatchObject({
      id: 1,
      host: '127.0.0.2',
      port: fleet.port,
      clientAddress: '127.0.0.9',
      tls: false,
    });
    expect(s.clientPort).toBeGreaterThan(0);
    expect(s.startedAt).toBeGreaterThanOrEqual(before);
    expect(s.endedAt).toBeGreaterThanOrEqual(s.startedAt);
    expect(s.end).toBe('quit');
    expect(s.dataAttempted).toBe(false);
    expect(s.commands).toEqual([
      'EHLO client.test',
      'MAIL FROM:<probe@verifier.test>',
      'RCPT TO:<a@x.test>',
      'RCPT TO:<b@x.test>',
      'RSET',
      'QUIT',
    ]);
    expect(s.replies.map((r) => r.code)).toEqual([220, 250, 250, 250, 550, 250, 221]);
    expect(s.rcpts).toEqual([
      { address: 'a@x.test', code: 250 },
      { address: 'b@x.test', code: 550 },
    ]);
    // The transcript interleaves them: greeting, then each command followed by its reply.
    const kinds = s.transcript.map((e) =>
      e.type === 'command' ? e.line.split(' ')[0] : e.type === 'reply' ? e.code : 'tls',
    );
    expect(kinds).toEqual([
      220,
      'EHLO',
      250,
      'MAIL',
      250,
      'RCPT',
      250,
      'RCPT',
      550,
      'RSET',
      250,
      'QUIT',
      221,
    ]);
    const times = s.transcript.map((e) => e.at);
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    fleet.resetRecords();
    expect(fleet.sessions).toHaveLength(0);
  });

  test('peak concurrent connections per host', async () => {
    const fleet = await fleetOf({ hosts: ['127.0.0.2', '127.0.0.3'] });
    const clients = await Promise.all(
      Array.from({ length: 5 }, () => SmtpTestClient.connect(fleet.port, '127.0.0.2')),
    );
    await Promise.all(clients.map((c) => c.read()));
    expect(fleet.currentConnections('127.0.0.2')).toBe(5);
    expect(fleet.peakConnections('127.0.0.2')).toBe(5);
    expect(fleet.peakConnections('127.0.0.3')).toBe(0);
    for (const c of clients) c.destroy();
    await fleet.waitForIdle();
    expect(fleet.currentConnections('127.0.0.2')).toBe(0);
    expect(fleet.peakConnections('127.0.0.2')).toBe(5);
    expect(fleet.peakConnections()).toBe(5);
    expect(fleet.sessions.every((s) => s.end === 'closed-by-client')).toBe(true);

    // One at a time after a reset peaks at 1.
    fleet.resetRecords();
    for (let i = 0; i < 3; i++) {
      const c = await SmtpTestClient.connect(fleet.port, '127.0.0.2');
      await c.read();
      c.destroy();
      await fleet.waitForIdle();
    }
    expect(fleet.peakConnections('127.0.0.2')).toBe(1);
    expect(fleet.sessions).toHaveLength(3);
  });

  test('close() destroys open connections, stops listening and is idempotent', async () => {
    // EHLO is answered after a minute, past the test's timeout: close() returning shows it did
    // not wait for the reply (not timed).
    const fleet = await fleetOf({ hosts: ['127.0.0.2'], script: { replyDelayMs: { ehlo: 60_000 } } });
    const client = await SmtpTestClient.connect(fleet.port, '127.0.0.2');
    await client.read();
    client.send('EHLO client.test');
    await Promise.all([fleet.close(), fleet.close()]);
    await fleet.close();
    await client.waitClosed();
    expect(fleet.sessions[0]?.end).toBe('fleet-closed');
    expect(fleet.currentConnections()).toBe(0);
    const refused = await new Promise<string>((resolve) => {
      const socket = netConnect(fleet.port, '127.0.0.2');
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  test('an unknown host in a query is a TypeError', async () => {
    const fleet = await fleetOf({ hosts: ['127.0.0.2'] });
    expect(() => fleet.peakConnections('127.0.0.99')).toThrow(TypeError);
    expect(() => fleet.sessionsFor('10.0.0.1')).toThrow(/no host "10\.0\.0\.1"/);
  });
});
