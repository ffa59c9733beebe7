import { describe, expect, test } from 'vitest';
import { type SmtpFleetOptions, startSmtpFleet, startSmtpServer } from './fleet.js';
import type { SmtpScript } from './script.js';

// Deliberately malformed input, typed loosely as a caller without TypeScript would pass it.
const bad = (script: Record<string, unknown>) => script as SmtpScript;

async function rejection(options: SmtpFleetOptions): Promise<Error> {
  const result = await startSmtpFleet(options).then(
    async (fleet) => {
      await fleet.close();
      return undefined;
    },
    (error: Error) => error,
  );
  if (!result) throw new Error('expected startSmtpFleet to reject');
  return result;
}

describe('invalid options are a clear TypeError', () => {
  test.each([
    ['10.0.0.1', /options\.hosts\[0\]: host must be a 127\.x\.y\.z loopback address, got "10\.0\.0\.1"/],
    ['localhost', /127\.x\.y\.z/],
    ['127.0.0.256', /127\.x\.y\.z/],
    ['127.0.0.01', /127\.x\.y\.z/],
    ['::1', /127\.x\.y\.z/],
  ])('host %s', async (host, message) => {
    const error = await rejection({ hosts: [host] });
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(message);
  });

  test('no hosts, duplicate hosts, bad port', async () => {
    expect(await rejection({ hosts: [] })).toBeInstanceOf(TypeError);
    expect((await rejection({ hosts: ['127.0.0.2', '127.0.0.2'] })).message).toMatch(
      /duplicate host 127\.0\.0\.2/,
    );
    expect((await rejection({ hosts: ['127.0.0.2'], port: 70000 })).message).toMatch(
      /port must be an integer 0\.\.65535/,
    );
    await expect(startSmtpServer({ host: '192.168.1.1' })).rejects.toThrow(TypeError);
  });

  test.each([
    [
      { mailboxes: { 'a@x.test': { code: 600, text: 'x' } } },
      /mailboxes\["a@x\.test"\]\.code: must be an integer reply code 200\.\.599, got 600/,
    ],
    [{ mailboxes: { 'a@x.test': { code: 199, text: 'x' } } }, /200\.\.599/],
    [{ mailboxes: { 'a@x.test': { code: 250.5, text: 'x' } } }, /200\.\.599/],
    [{ greeting: { code: 220, text: 'a\r\n250 forged' } }, /greeting\.text: must not contain CR or LF/],
    [{ mailboxes: { 'a@x.test': 'acept' } }, /must be one of 'accept', 'unknown'.*got "acept"/],
    [{ mailboxes: { 'no-at-sign': 'accept' } }, /a mailbox key must be a full address/],
    [{ domains: { 'a@x.test': 'accept' } }, /a domain key must be a bare domain/],
    [
      { defaultRcpt: { greylist: { delayMs: -1 } } },
      /defaultRcpt\.greylist\.delayMs: must be a finite number/,
    ],
    [
      { defaultRcpt: { greylist: { afterwards: { greylist: {} } } } },
      /greylist\.afterwards: a greylist cannot be nested/,
    ],
    [{ maxRcptsPerSession: 0 }, /maxRcptsPerSession: must be an integer >= 1/],
    [{ replyDelayMs: Number.NaN }, /replyDelayMs: must be a finite number/],
    [{ replyDelayMs: { rcpt: 10, bogus: 5 } }, /replyDelayMs key: must be one of/],
    [{ replyDelayModel: 'network' }, /replyDelayModel: must be one of/],
    [{ drop: { at: 'somewhere' } }, /drop\.at: must be one of/],
    [{ drop: { at: 'rcpt', nth: 0 } }, /drop\.nth: must be an integer >= 1/],
    [{ tls: 'maybe' }, /tls: must be one of 'offer', 'require', 'none', 'broken'/],
    [{ hostname: 'has space' }, /hostname: must be a non-empty name without spaces/],
    [{ banner: [] }, /banner: must be a string or a non-empty array/],
    [{ behaviours: {} }, /unknown field 'behaviours'/],
  ])('script %j', async (script, message) => {
    const error = await rejection({ hosts: ['127.0.0.2'], script: bad(script) });
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(message);
  });

  test('a bad host script names the host entry', async () => {
    const error = await rejection({
      hosts: ['127.0.0.2', { host: '127.0.0.3', script: bad({ ehlo: 'no' }) }],
    });
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/options\.hosts\[1\]\.script\.ehlo/);
  });
});
