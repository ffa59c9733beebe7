import { describe, expect, it } from 'vitest';
import { signPayload } from './sign.js';

const NOW = 1_763_900_000;
// Known answer computed outside Node with:
//   printf '%s' '1763900000.{"id":"evt_1","note":"café"}' | openssl dgst -sha256 -hmac whsec_test
const VECTOR_BODY = '{"id":"evt_1","note":"café"}';
const VECTOR_V1 = 'f9c54a599ad58032bd27ab02ce90457d8f68218fc5f3968d3ea7c6c69c435edc';

describe('signPayload', () => {
  it('matches an independently computed HMAC-SHA256 of "<t>.<UTF-8 body>"', () => {
    expect(signPayload(VECTOR_BODY, 'whsec_test', { timestamp: NOW })).toBe(`t=${NOW},v1=${VECTOR_V1}`);
  });

  it('signs the exact bytes: a string and its UTF-8 bytes agree, other bytes do not', () => {
    const utf8 = Buffer.from(VECTOR_BODY, 'utf8');
    expect(signPayload(utf8, 'whsec_test', { timestamp: NOW })).toBe(`t=${NOW},v1=${VECTOR_V1}`);
    expect(signPayload(new Uint8Array(utf8), 'whsec_test', { timestamp: NOW })).toBe(
      `t=${NOW},v1=${VECTOR_V1}`,
    );
    const latin1 = Buffer.from(VECTOR_BODY, 'latin1');
    expect(signPayload(latin1, 'whsec_test', { timestamp: NOW })).not.toBe(`t=${NOW},v1=${VECTOR_V1}`);
  });

  it('writes one v1 per secret in the order given (newest first during a rotation)', () => {
    const header = signPayload(VECTOR_BODY, ['whsec_test', 'whsec_old'], { timestamp: NOW });
    const [t, newest, older, extra] = header.split(',');
    expect(t).toBe(`t=${NOW}`);
    expect(newest).toBe(`v1=${VECTOR_V1}`);
    expect(older).toBe(signPayload(VECTOR_BODY, 'whsec_old', { timestamp: NOW }).split(',')[1]);
    expect(older).not.toBe(newest);
    expect(extra).toBeUndefined();
  });

  it('stamps the current unix time in seconds by default', () => {
    const before = Math.floor(Date.now() / 1000);
    const header = signPayload('{}', 'whsec_test');
    const after = Math.floor(Date.now() / 1000);
    const t = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(header)?.[1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
  });

  it.each([
    ['an empty secret list', [], {}, 'at least one signing secret is needed (the list is empty)'],
    ['an empty secret', '', {}, 'signing secret [0] is an empty string'],
    ['an empty secret among others', ['whsec_test', ''], {}, 'signing secret [1] is an empty string'],
    ['a non-string secret', [42], {}, 'signing secret [0] must be a string, got number'],
    ['no secret at all', undefined, {}, 'no signing secret was given (got undefined)'],
    [
      'a fractional timestamp',
      'whsec_test',
      { timestamp: 1.5 },
      'timestamp must be whole unix seconds >= 0, got 1.5',
    ],
    [
      'a negative timestamp',
      'whsec_test',
      { timestamp: -1 },
      'timestamp must be whole unix seconds >= 0, got -1',
    ],
    [
      'a NaN timestamp',
      'whsec_test',
      { timestamp: Number.NaN },
      'timestamp must be whole unix seconds >= 0, got NaN',
    ],
    [
      'a millisecond timestamp',
      'whsec_test',
      { timestamp: NOW * 1000 },
      `timestamp must be unix seconds, got ${NOW * 1000} (milliseconds?)`,
    ],
  ])('refuses %s with a TypeError', (_name, secrets, options, message) => {
    expect(() => signPayload('{}', secrets as string[], options)).toThrow(new TypeError(message));
  });

  it('refuses a parsed object instead of the raw body', () => {
    expect(() => signPayload({ id: 'evt_1' } as unknown as string, 'whsec_test')).toThrow(
      new TypeError(
        'the body must be the exact text or bytes sent (string or Uint8Array), got object: a parsed and re-serialised body no longer matches its signature',
      ),
    );
  });
});
