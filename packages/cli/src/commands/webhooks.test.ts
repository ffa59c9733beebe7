import { signPayload } from '@svc/webhooks';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { main } from '../main.js';
import { captureIo } from '../testing/capture-io.js';

const body = '{"id":"evt_1","object":"event","type":"batch.completed","created":1,"data":{"object":{}}}';

describe('svc webhooks verify', () => {
  it('accepts a valid signature read against stdin', async () => {
    const io = captureIo(body);
    const header = signPayload(body, 'whsec_x');
    expect(await main(['webhooks', 'verify', '--secret', 'whsec_x', '--header', header], io)).toBe(EXIT.ok);
    expect(io.out()).toBe('valid: batch.completed evt_1\n');
  });

  it('explains a failure and exits 1, also as JSON', async () => {
    const header = signPayload(body, 'whsec_other');
    const io = captureIo(body);
    expect(await main(['webhooks', 'verify', '--secret', 'whsec_x', '--header', header], io)).toBe(
      EXIT.failure,
    );
    expect(io.err()).toMatch(/^svc: invalid signature \(no_matching_signature\): no v1 signature matches/);
    expect(io.out()).toBe('');
    // The README's convention: a check that says no is the command's failure, on stderr.
    const json = captureIo(`${body}\n`);
    expect(
      await main(
        ['webhooks', 'verify', '--json', '--secret', 'whsec_x', '--header', signPayload(body, 'whsec_x')],
        json,
      ),
    ).toBe(EXIT.failure);
    expect(json.out()).toBe('');
    expect(JSON.parse(json.err())).toEqual({
      error: {
        code: 'invalid_request',
        message: expect.stringMatching(/^invalid signature \(no_matching_signature\): /),
      },
    });
  });

  it.each([
    [['webhooks'], 'the only subcommand is: verify'],
    [['webhooks', 'verify', '--header', 't=1,v1=00'], 'give the signing secret with --secret'],
    [['webhooks', 'verify', '--secret', 's'], 'give the X-Service-Signature value with --header'],
    [
      ['webhooks', 'verify', '--secret', 's', '--header', 'h', '--tolerance', 'soon'],
      '--tolerance must be whole seconds',
    ],
  ])('bad usage %j exits 2', async (argv, message) => {
    const io = captureIo('');
    expect(await main(argv, io)).toBe(EXIT.usage);
    expect(io.err()).toContain(message);
  });
});
