import { afterEach, describe, expect, test } from 'vitest';
import { type SmtpFleet, startSmtpServer } from './fleet.js';
import { SmtpTestClient } from './testing-client.js';

const running: SmtpFleet[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((f) => f.close()));
});

describe('ehloGreeting', () => {
  test('echoes the client address and HELO name in the first EHLO line, as Exim does', async () => {
    const fleet = await startSmtpServer({ script: { ehloGreeting: 'mx.test Hello {helo} [{client}]' } });
    running.push(fleet);
    const client = await SmtpTestClient.connect(fleet.port, '127.0.0.1');
    await client.read();
    const ehlo = await client.command('EHLO probe.example');
    expect(ehlo.code).toBe(250);
    expect(ehlo.lines[0]).toBe('mx.test Hello probe.example [127.0.0.1]');
    expect(ehlo.lines).toContain('PIPELINING');
    expect((await client.command('HELO probe.example')).lines).toEqual([
      'mx.test Hello probe.example [127.0.0.1]',
    ]);
    await client.command('QUIT');
  });

  test('a CR or LF in it is refused', async () => {
    await expect(startSmtpServer({ script: { ehloGreeting: 'a\r\nb' } })).rejects.toThrow(
      /script\.ehloGreeting: must not contain CR or LF/,
    );
  });
});
