import { describe, expect, test } from 'vitest';
import { type SmtpFleet, startSmtpServer } from './fleet.js';
import { openTransaction, SmtpTestClient } from './testing-client.js';
import { closedAfterEach } from './testing-fleets.js';

const server = closedAfterEach(startSmtpServer);

async function connect(fleet: SmtpFleet): Promise<SmtpTestClient> {
  return SmtpTestClient.connect(fleet.port, '127.0.0.1');
}

describe('greeting', () => {
  test('421 busy at the greeting, then the server closes', async () => {
    const fleet = await server({ script: { greeting: 'busy' } });
    const client = await connect(fleet);
    const greeting = await client.read();
    expect(greeting.code).toBe(421);
    expect(greeting.lines[0]).toMatch(/^4\.3\.2 mx\.test /);
    await client.waitClosed();
    await fleet.waitForIdle();
    expect(fleet.sessions[0]?.end).toBe('closed-by-server');
  });

  test('554 5.7.1 at the greeting keeps the line open, answering 503 until QUIT', async () => {
    const fleet = await server({ script: { greeting: 'blocked' } });
    const client = await connect(fleet);
    expect((await client.read()).code).toBe(554);
    expect(await client.command('EHLO client.test')).toEqual({
      code: 503,
      lines: ['5.5.1 Error: bad sequence of commands'],
    });
    expect((await client.command('QUIT')).code).toBe(221);
    await client.waitClosed();
  });

  test('multi-line banner and multi-line EHLO reply', async () => {
    const fleet = await server({
      script: { hostname: 'mx1.example.test', banner: ['mx1.example.test ESMTP', 'No UCE', 'Be nice'] },
    });
    const client = await connect(fleet);
    expect(await client.read()).toEqual({
      code: 220,
      lines: ['mx1.example.test ESMTP', 'No UCE', 'Be nice'],
    });
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.code).toBe(250);
    expect(ehlo.lines).toEqual([
      'mx1.example.test',
      'STARTTLS',
      'PIPELINING',
      'SIZE 10240000',
      'ENHANCEDSTATUSCODES',
      '8BITMIME',
      'SMTPUTF8',
    ]);
    client.destroy();
  });

  test('the banner and EHLO go out as 220-/250- continuation lines on the wire', async () => {
    const fleet = await server({
      script: { banner: ['one', 'two'], extensions: ['PIPELINING'], tls: 'none' },
    });
    const { connect: rawConnect } = await import('node:net');
    const socket = rawConnect(fleet.port, '127.0.0.1');
    let wire = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      wire += d;
      if (wire === '220-one\r\n220 two\r\n') socket.write('EHLO c.test\r\n');
    });
    await expect.poll(() => wire).toBe('220-one\r\n220 two\r\n250-mx.test\r\n250 PIPELINING\r\n');
    socket.destroy();
  });

  test('EHLO rejected with 5xx while HELO is accepted', async () => {
    const fleet = await server({ script: { ehlo: 'reject', mailboxes: { 'a@x.test': 'accept' } } });
    const client = await connect(fleet);
    await client.read();
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.code).toBe(502);
    expect(await client.command('HELO client.test')).toEqual({ code: 250, lines: ['mx.test'] });
    expect((await client.command('MAIL FROM:<>')).code).toBe(250);
    expect((await client.command('RCPT TO:<a@x.test>')).code).toBe(250);
    client.destroy();
  });

  test('MAIL FROM blocked by policy is 554 5.7.1', async () => {
    const fleet = await server({ script: { mailFrom: 'blocked' } });
    const client = await connect(fleet);
    await client.read();
    await client.command('EHLO client.test');
    expect(await client.command('MAIL FROM:<probe@verifier.test>')).toEqual({
      code: 554,
      lines: ['5.7.1 <probe@verifier.test>: Sender address rejected: Access denied'],
    });
    expect((await client.command('RCPT TO:<a@x.test>')).code).toBe(503);
    client.destroy();
  });
});

describe('slow replies', () => {
  test('every reply waits the configured delay', async () => {
    const fleet = await server({ script: { replyDelayMs: 80, defaultRcpt: 'accept' } });
    let t = Date.now();
    const client = await connect(fleet);
    await client.read();
    expect(Date.now() - t).toBeGreaterThanOrEqual(75);
    t = Date.now();
    await client.command('EHLO client.test');
    expect(Date.now() - t).toBeGreaterThanOrEqual(75);
    client.destroy();
  });

  test('a per-stage delay longer than a client timeout makes the client time out', async () => {
    const fleet = await server({ script: { replyDelayMs: { rcpt: 400 }, defaultRcpt: 'accept' } });
    const t = Date.now();
    const client = await openTransaction(fleet.port);
    expect(Date.now() - t).toBeLessThan(200);
    await expect(client.command('RCPT TO:<a@x.test>', 150)).rejects.toThrow(/no reply within 150 ms/);
    // The reply does come, late.
    expect((await client.read(1000)).code).toBe(250);
    expect(Date.now() - t).toBeGreaterThanOrEqual(395);
    client.destroy();
  });
});

describe('pipelined commands and the delay model', () => {
  const pipelineRcpts = async (fleet: SmtpFleet) => {
    const client = await openTransaction(fleet.port);
    const started = Date.now();
    for (let index = 0; index < 5; index++) client.send(`RCPT TO:<user${index}@x.test>`);
    const codes: number[] = [];
    for (let index = 0; index < 5; index++) codes.push((await client.read(2000)).code);
    const elapsed = Date.now() - started;
    client.destroy();
    return { codes, elapsed };
  };

  test("'service' (default): pipelined commands are answered one delay after another", async () => {
    const fleet = await server({ script: { replyDelayMs: { rcpt: 60 }, defaultRcpt: 'accept' } });
    const { codes, elapsed } = await pipelineRcpts(fleet);
    expect(codes).toEqual([250, 250, 250, 250, 250]);
    expect(elapsed).toBeGreaterThanOrEqual(5 * 60 - 5);
  });

  test("'latency': each reply leaves one delay after its command arrived, so pipelining overlaps", async () => {
    const fleet = await server({
      script: { replyDelayMs: { rcpt: 60 }, replyDelayModel: 'latency', defaultRcpt: 'accept' },
    });
    const { codes, elapsed } = await pipelineRcpts(fleet);
    expect(codes).toEqual([250, 250, 250, 250, 250]);
    expect(elapsed).toBeGreaterThanOrEqual(55);
    // Well under the 5 × 60 ms the service model takes, with room for a busy test machine.
    expect(elapsed).toBeLessThan(4 * 60);
    // Without pipelining both models are the same: each command waits for its own reply.
    const client = await openTransaction(fleet.port);
    const started = Date.now();
    await client.command('RCPT TO:<a@x.test>');
    await client.command('RCPT TO:<b@x.test>');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 60 - 5);
    client.destroy();
  });
});

describe('dropped connections', () => {
  test('dropped at RCPT: no reply, the socket closes', async () => {
    const fleet = await server({ script: { drop: { at: 'rcpt' }, defaultRcpt: 'accept' } });
    const client = await openTransaction(fleet.port);
    await expect(client.command('RCPT TO:<a@x.test>')).rejects.toThrow(/connection closed/);
    expect(client.closed).toBe(true);
    await fleet.waitForIdle();
    const session = fleet.sessions[0];
    expect(session?.end).toBe('dropped');
    expect(session?.commands.at(-1)).toBe('RCPT TO:<a@x.test>');
    expect(session?.replies.at(-1)?.code).toBe(250);
    expect(session?.rcpts).toEqual([]);
  });

  test('dropped after replying to MAIL FROM', async () => {
    const fleet = await server({ script: { drop: { at: 'mail', afterReply: true } } });
    const client = await connect(fleet);
    await client.read();
    await client.command('EHLO client.test');
    expect((await client.command('MAIL FROM:<>')).code).toBe(250);
    await client.waitClosed();
  });

  test('dropped at the second RCPT only', async () => {
    const fleet = await server({ script: { drop: { at: 'rcpt', nth: 2 }, defaultRcpt: 'accept' } });
    const client = await openTransaction(fleet.port);
    expect((await client.command('RCPT TO:<a@x.test>')).code).toBe(250);
    await expect(client.command('RCPT TO:<b@x.test>')).rejects.toThrow(/connection closed/);
  });

  test('a mailbox scripted to drop closes the connection at its RCPT', async () => {
    const fleet = await server({ script: { mailboxes: { 'trap@x.test': 'drop' } } });
    const client = await openTransaction(fleet.port);
    expect((await client.command('RCPT TO:<other@x.test>')).code).toBe(550);
    await expect(client.command('RCPT TO:<trap@x.test>')).rejects.toThrow(/connection closed/);
  });
});

describe('STARTTLS', () => {
  test('upgrade, EHLO again over TLS, RCPT works, session recorded as TLS', async () => {
    const fleet = await server({ script: { mailboxes: { 'a@x.test': 'accept' } } });
    const client = await connect(fleet);
    await client.read();
    expect((await client.command('EHLO client.test')).lines).toContain('STARTTLS');
    expect(await client.startTls()).toEqual({ code: 220, lines: ['2.0.0 Ready to start TLS'] });
    expect(client.tlsSocket?.encrypted).toBe(true);
    expect(client.tlsSocket?.getPeerCertificate().subject?.CN).toBe('mx.test');
    // The dialogue restarts: MAIL before EHLO is a sequence error.
    expect((await client.command('MAIL FROM:<>')).code).toBe(503);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.code).toBe(250);
    expect(ehlo.lines).not.toContain('STARTTLS');
    expect((await client.command('MAIL FROM:<>')).code).toBe(250);
    expect((await client.command('RCPT TO:<a@x.test>')).code).toBe(250);
    expect((await client.command('STARTTLS')).code).toBe(554);
    await client.command('QUIT');
    await client.waitClosed();
    await fleet.waitForIdle();
    const session = fleet.sessions[0];
    expect(session?.tls).toBe(true);
    expect(session?.transcript.filter((e) => e.type === 'tls')).toHaveLength(1);
    expect(session?.end).toBe('quit');
  });

  test('commands pipelined after STARTTLS in plaintext are discarded', async () => {
    const fleet = await server({ script: { defaultRcpt: 'accept' } });
    const client = await connect(fleet);
    await client.read();
    await client.command('EHLO client.test');
    client.send('STARTTLS\r\nMAIL FROM:<injected@evil.test>');
    expect((await client.read()).code).toBe(220);
    await fleet.close();
    expect(fleet.sessions[0]?.commands).toEqual(['EHLO client.test', 'STARTTLS']);
  });

  test('required TLS: MAIL before STARTTLS gets 530 5.7.0', async () => {
    const fleet = await server({ script: { tls: 'require', defaultRcpt: 'accept' } });
    const client = await connect(fleet);
    await client.read();
    await client.command('EHLO client.test');
    expect(await client.command('MAIL FROM:<>')).toEqual({
      code: 530,
      lines: ['5.7.0 Must issue a STARTTLS command first'],
    });
    await client.startTls();
    await client.command('EHLO client.test');
    expect((await client.command('MAIL FROM:<>')).code).toBe(250);
    client.destroy();
  });

  test('TLS not offered: not advertised and the command is unknown', async () => {
    const fleet = await server({ script: { tls: 'none' } });
    const client = await connect(fleet);
    await client.read();
    expect((await client.command('EHLO client.test')).lines).not.toContain('STARTTLS');
    expect((await client.command('STARTTLS')).code).toBe(502);
    client.destroy();
  });

  test('broken TLS: advertised but answered 454 4.7.0', async () => {
    const fleet = await server({ script: { tls: 'broken' } });
    const client = await connect(fleet);
    await client.read();
    expect((await client.command('EHLO client.test')).lines).toContain('STARTTLS');
    expect((await client.startTls()).code).toBe(454);
    expect(fleet.sessions[0]?.tls).toBe(false);
    client.destroy();
  });
});
