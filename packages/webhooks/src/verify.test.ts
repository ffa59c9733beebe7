import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPayload } from './sign.js';
import { refusal } from './testing/refusal.js';
import { verifyPayload } from './verify.js';

const NOW = 1_763_900_000;
const SECRET = 'whsec_new';
const OLD_SECRET = 'whsec_old';
const event = {
  id: 'evt_1',
  object: 'event',
  type: 'batch.completed',
  created: NOW,
  data: { object: { id: 'batch_1', object: 'batch_job' } },
};
const body = JSON.stringify(event);
const header = signPayload(body, SECRET, { timestamp: NOW });
const v1 = header.split(',')[1] as string;
const hex = v1.slice('v1='.length);
const EXPECTED = 'expected t=<unix seconds>,v1=<64 lowercase hex>';
const malformed = (detail: string) => ({
  reason: 'malformed_header',
  message: `the X-Service-Signature header is malformed: ${detail}; ${EXPECTED}`,
});
const NO_MATCH = {
  reason: 'no_matching_signature',
  message:
    'no v1 signature matches the body with any of the secrets: wrong secret, or the body was changed or re-serialised (verify the raw bytes received)',
};
const verifyAtNow = (
  payload: string | Uint8Array,
  value: string | null | undefined,
  secrets: string | string[] = SECRET,
) => refusal(() => verifyPayload(payload, value, secrets, { now: NOW }));

describe('verifyPayload accepts', () => {
  it('what signPayload signed, returning the parsed event', () => {
    expect(verifyPayload(body, header, SECRET, { now: NOW })).toEqual(event);
    expect(verifyPayload<{ id: string }>(body, header, SECRET, { now: NOW }).data.object.id).toBe('batch_1');
  });

  it('the body as bytes, including a view into a larger buffer', () => {
    const pool = Buffer.from(`xxxx${body}yyyy`);
    const view = pool.subarray(4, 4 + Buffer.byteLength(body));
    expect(verifyPayload(view, header, SECRET, { now: NOW })).toEqual(event);
    expect(verifyPayload(new TextEncoder().encode(body), header, SECRET, { now: NOW })).toEqual(event);
  });

  it('a rotation header (new, old) with only the old, only the new, or both secrets in either order', () => {
    const rotating = signPayload(body, [SECRET, OLD_SECRET], { timestamp: NOW });
    for (const held of [[OLD_SECRET], [SECRET], [SECRET, OLD_SECRET], [OLD_SECRET, SECRET]]) {
      expect(verifyAtNow(body, rotating, held)).toBe('accepted');
    }
    expect(verifyAtNow(body, rotating, ['whsec_other'])).toEqual(NO_MATCH);
    expect(verifyAtNow(body, rotating, ['whsec_other', 'whsec_another'])).toEqual(NO_MATCH);
  });

  it('a header whose v1 order differs from ours, or that repeats a v1', () => {
    const oldV1 = signPayload(body, OLD_SECRET, { timestamp: NOW }).split(',')[1];
    expect(verifyAtNow(body, `t=${NOW},${oldV1},${v1}`, SECRET)).toBe('accepted');
    expect(verifyAtNow(body, `${v1},t=${NOW}`, SECRET)).toBe('accepted');
    expect(verifyAtNow(body, `t=${NOW},${v1},${v1}`, SECRET)).toBe('accepted');
  });

  it('other schemes next to v1, which it skips like Stripe', () => {
    expect(verifyAtNow(body, `${header},v0=${'0'.repeat(64)}`)).toBe('accepted');
    expect(verifyAtNow(body, `t=${NOW},v0=anything,${v1},v2=future`)).toBe('accepted');
  });

  it('t= exactly 300 s away in either direction, and a custom tolerance', () => {
    const at = (offset: number) => signPayload(body, SECRET, { timestamp: NOW + offset });
    expect(verifyAtNow(body, at(-300))).toBe('accepted');
    expect(verifyAtNow(body, at(300))).toBe('accepted');
    expect(refusal(() => verifyPayload(body, at(-10), SECRET, { now: NOW, toleranceSeconds: 10 }))).toBe(
      'accepted',
    );
    expect(refusal(() => verifyPayload(body, header, SECRET, { now: NOW, toleranceSeconds: 0 }))).toBe(
      'accepted',
    );
  });

  it('a null resource in data.object (the job was deleted before delivery)', () => {
    const deleted = JSON.stringify({ ...event, data: { object: null } });
    expect(
      verifyPayload(deleted, signPayload(deleted, SECRET, { timestamp: NOW }), SECRET, { now: NOW }),
    ).toMatchObject({
      data: { object: null },
    });
  });
});

describe('verifyPayload refuses, with a reason and a message', () => {
  it.each([
    ['a missing header', undefined],
    ['a null header', null],
    ['an empty header', ''],
  ])('%s → missing_header', (_name, value) => {
    expect(verifyAtNow(body, value)).toEqual({
      reason: 'missing_header',
      message: 'the X-Service-Signature header is missing or empty',
    });
  });

  const WHITESPACE = 'it contains whitespace (two headers joined with ", " by a proxy look like this)';
  it.each([
    ['a space after the comma', `t=${NOW}, ${v1}`, WHITESPACE],
    ['a space before the comma', `t=${NOW} ,${v1}`, WHITESPACE],
    ['a leading space', ` ${header}`, WHITESPACE],
    ['a trailing newline', `${header}\n`, WHITESPACE],
    ['a space around =', `t = ${NOW},${v1}`, WHITESPACE],
    ['only spaces', '   ', WHITESPACE],
    [
      'uppercase hex',
      `t=${NOW},v1=${hex.toUpperCase()}`,
      `v1= must be 64 lowercase hex digits, got "${hex.toUpperCase().slice(0, 24)}…"`,
    ],
    [
      'a short v1',
      `t=${NOW},v1=${hex.slice(0, 63)}`,
      `v1= must be 64 lowercase hex digits, got "${hex.slice(0, 24)}…"`,
    ],
    ['an empty v1', `t=${NOW},v1=`, 'v1= must be 64 lowercase hex digits, got ""'],
    ['an uppercase key', `T=${NOW},${v1}`, 'unknown element "T="'],
    ['an unknown element', `${header},kid=1`, 'unknown element "kid="'],
    ['an element without =', `${header},v1`, 'element "v1" is not key=value'],
    ['a trailing comma', `${header},`, 'element "" is not key=value'],
    ['no t=', v1, 'no t= timestamp'],
    ['t= twice', `t=${NOW},t=${NOW},${v1}`, 't= appears more than once'],
    ['a negative t=', `t=-${NOW},${v1}`, `t= must be unix seconds in digits, got "-${NOW}"`],
    ['a fractional t=', `t=${NOW}.5,${v1}`, `t= must be unix seconds in digits, got "${NOW}.5"`],
    ['an empty t=', `t=,${v1}`, 't= must be unix seconds in digits, got ""'],
    ['no v1= at all', `t=${NOW}`, 'no v1= signature'],
    ['only another scheme', `t=${NOW},v0=${hex}`, 'no v1= signature'],
  ])('%s → malformed_header', (_name, value, detail) => {
    expect(verifyAtNow(body, value)).toEqual(malformed(detail));
  });

  it('a millisecond timestamp → malformed_header (a unit mistake, not a clock in the future)', () => {
    const ms = NOW * 1000;
    // Correctly signed over the 13-digit value, so only the unit is wrong.
    const signature = createHmac('sha256', SECRET).update(`${ms}.${body}`).digest('hex');
    expect(verifyAtNow(body, `t=${ms},v1=${signature}`)).toEqual(
      malformed('t= has 13 digits, too many for unix seconds (milliseconds?)'),
    );
    expect(
      refusal(() => verifyPayload(body, `t=${ms},v1=${signature}`, SECRET, { now: ms / 1000 })),
    ).not.toBe('accepted');
  });

  it('a 12-digit t= far ahead → timestamp_in_future (the grammar allows it, the clock does not)', () => {
    const far = 999_999_999_999;
    expect(verifyAtNow(body, signPayload(body, SECRET, { timestamp: far }))).toEqual({
      reason: 'timestamp_in_future',
      message: `the signature is dated ${far - NOW} s in the future, more than the tolerance of 300 s`,
    });
  });

  it('301 s old → timestamp_too_old; 301 s ahead → timestamp_in_future', () => {
    expect(verifyAtNow(body, signPayload(body, SECRET, { timestamp: NOW - 301 }))).toEqual({
      reason: 'timestamp_too_old',
      message: 'the signature is 301 s old, more than the tolerance of 300 s',
    });
    expect(verifyAtNow(body, signPayload(body, SECRET, { timestamp: NOW + 301 }))).toEqual({
      reason: 'timestamp_in_future',
      message: 'the signature is dated 301 s in the future, more than the tolerance of 300 s',
    });
    expect(
      refusal(() =>
        verifyPayload(body, signPayload(body, SECRET, { timestamp: NOW - 11 }), SECRET, {
          now: NOW,
          toleranceSeconds: 10,
        }),
      ),
    ).toEqual({
      reason: 'timestamp_too_old',
      message: 'the signature is 11 s old, more than the tolerance of 10 s',
    });
  });

  it.each([
    ['a re-serialised body (same JSON, other whitespace)', JSON.stringify(JSON.parse(body), null, 2), SECRET],
    ['a body with a trailing newline', `${body}\n`, SECRET],
    ['a body with one value changed', body.replace('batch_1', 'batch_2'), SECRET],
    ['the wrong secret', body, 'whsec_other'],
    ['the right secret with different case', body, SECRET.toUpperCase()],
  ])('%s → no_matching_signature', (_name, payload, secret) => {
    expect(verifyAtNow(payload, header, secret)).toEqual(NO_MATCH);
  });

  it('a v1 differing in its last hex digit → no_matching_signature', () => {
    const last = hex.at(-1) === '0' ? '1' : '0';
    expect(verifyAtNow(body, `t=${NOW},v1=${hex.slice(0, 63)}${last}`)).toEqual(NO_MATCH);
  });

  it('a signature for another timestamp → no_matching_signature', () => {
    expect(verifyAtNow(body, `t=${NOW + 1},${v1}`)).toEqual(NO_MATCH);
  });

  it('hints at whitespace around a secret (a newline read from a secrets file)', () => {
    expect(verifyAtNow(body, header, `${SECRET}\n`)).toEqual({
      reason: 'no_matching_signature',
      message: `${NO_MATCH.message}; note: a secret starts or ends with whitespace`,
    });
  });

  it.each([
    ['an empty secret list', [], 'at least one signing secret is needed (the list is empty)'],
    ['an empty-string secret', '', 'signing secret [0] is an empty string'],
    ['an empty secret among good ones', [SECRET, ''], 'signing secret [1] is an empty string'],
    [
      'an unset secret (undefined from the environment)',
      undefined,
      'no signing secret was given (got undefined)',
    ],
  ])('%s → no_secrets, before the header is even read', (_name, secrets, message) => {
    const held = secrets as string[];
    expect(refusal(() => verifyPayload(body, header, held, { now: NOW }))).toEqual({
      reason: 'no_secrets',
      message,
    });
    expect(refusal(() => verifyPayload(body, undefined, held, { now: NOW }))).toEqual({
      reason: 'no_secrets',
      message,
    });
  });

  const signedAtNow = (text: string) => signPayload(text, SECRET, { timestamp: NOW });
  it.each([
    ['not JSON', 'not json', 'the signed body is not JSON'],
    ['empty', '', 'the signed body is not JSON'],
    ['a JSON array', '[]', 'the signed body is not a JSON object'],
    ['JSON null', 'null', 'the signed body is not a JSON object'],
    ['missing id', JSON.stringify({ ...event, id: undefined }), 'id is not a non-empty string'],
    ['another object kind', JSON.stringify({ ...event, object: 'batch_job' }), 'object is not "event"'],
    ['a numeric type', JSON.stringify({ ...event, type: 1 }), 'type is not a non-empty string'],
    [
      'created in milliseconds as a string',
      JSON.stringify({ ...event, created: '1763900000000' }),
      'created is not unix seconds',
    ],
    ['no data', JSON.stringify({ ...event, data: undefined }), 'data.object is missing'],
    ['data without object', JSON.stringify({ ...event, data: {} }), 'data.object is missing'],
  ])('a correctly signed body that is %s → invalid_body', (_name, text, detail) => {
    const message = detail.startsWith('the signed body')
      ? detail
      : `the signed body is not a webhook event: ${detail}`;
    expect(verifyAtNow(text, signedAtNow(text))).toEqual({ reason: 'invalid_body', message });
  });

  it('checks the signature before the body: an unsigned non-JSON body is no_matching_signature', () => {
    expect(verifyAtNow('not json', header)).toEqual(NO_MATCH);
  });
});

describe('verifyPayload argument errors (programming mistakes, TypeError)', () => {
  it.each([
    [{ toleranceSeconds: Number.NaN }, 'toleranceSeconds must be a finite number >= 0, got NaN'],
    [{ toleranceSeconds: -1 }, 'toleranceSeconds must be a finite number >= 0, got -1'],
    [
      { toleranceSeconds: Number.POSITIVE_INFINITY },
      'toleranceSeconds must be a finite number >= 0, got Infinity',
    ],
    [{ now: Number.NaN }, 'now must be unix seconds, got NaN'],
    [{ now: NOW * 1000 }, `now must be unix seconds, got ${NOW * 1000} (milliseconds?)`],
  ])('%j', (options, message) => {
    // NaN would otherwise make both clock comparisons false and accept any timestamp.
    expect(() => verifyPayload(body, signPayload(body, SECRET, { timestamp: 1 }), SECRET, options)).toThrow(
      new TypeError(message),
    );
  });

  it('a parsed object instead of the raw body', () => {
    expect(() => verifyPayload(event as unknown as string, header, SECRET, { now: NOW })).toThrow(
      new TypeError(
        'the body must be the exact text or bytes sent (string or Uint8Array), got object: a parsed and re-serialised body no longer matches its signature',
      ),
    );
  });
});
