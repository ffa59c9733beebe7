import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { signPayload } from './sign.js';
import { refusal } from './testing/refusal.js';
import { verifyPayload } from './verify.js';

// Stripe's SDK (v18) as an independent implementation of the same scheme. constructEvent is
// (payload, header, secret, tolerance, cryptoProvider, receivedAt) and receivedAt is in
// MILLISECONDS (it does Math.floor(receivedAt / 1000)); tolerance is passed explicitly because
// the SDK turns a falsy one into its default of 300.
const { webhooks } = Stripe;
const NOW = 1_763_900_000;
const SECRET = 'whsec_new';
const OLD_SECRET = 'whsec_old';
const body = JSON.stringify({
  id: 'evt_1',
  object: 'event',
  type: 'batch.completed',
  created: NOW,
  data: { object: { id: 'batch_1', note: 'café ✓' } },
});
const receivedAt = (seconds: number) => seconds * 1000 + 999;
const stripeVerdict = (payload: string | Buffer, header: string, secret: string, atSeconds = NOW) => {
  try {
    return webhooks.constructEvent(payload, header, secret, 300, undefined, receivedAt(atSeconds)).id;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
};

describe("Stripe's SDK verifies what we sign", () => {
  it('accepts our header and returns the event, for a string or a Buffer body', () => {
    const header = signPayload(body, SECRET, { timestamp: NOW });
    expect(stripeVerdict(body, header, SECRET)).toBe('evt_1');
    expect(stripeVerdict(Buffer.from(body), header, SECRET)).toBe('evt_1');
  });

  it('accepts a rotation header with either secret', () => {
    const header = signPayload(body, [SECRET, OLD_SECRET], { timestamp: NOW });
    expect(stripeVerdict(body, header, SECRET)).toBe('evt_1');
    expect(stripeVerdict(body, header, OLD_SECRET)).toBe('evt_1');
    expect(stripeVerdict(body, header, 'whsec_other')).toBe(
      'No signatures found matching the expected signature for payload. Are you passing the raw request body you received from Stripe? ',
    );
  });

  it('applies the pinned receive time: 300 s later accepted, 301 s later refused', () => {
    const header = signPayload(body, SECRET, { timestamp: NOW });
    expect(stripeVerdict(body, header, SECRET, NOW + 300)).toBe('evt_1');
    expect(stripeVerdict(body, header, SECRET, NOW + 301)).toBe('Timestamp outside the tolerance zone');
  });
});

describe("we verify what Stripe's SDK signs", () => {
  it('accepts generateTestHeaderString', () => {
    const header = webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: NOW });
    expect(header).toMatch(/^t=1763900000,v1=[0-9a-f]{64}$/);
    expect(verifyPayload(body, header, SECRET, { now: NOW }).id).toBe('evt_1');
    expect(verifyPayload(Buffer.from(body), header, [OLD_SECRET, SECRET], { now: NOW }).id).toBe('evt_1');
  });

  it('produces the same header as signPayload byte for byte', () => {
    expect(webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: NOW })).toBe(
      signPayload(body, SECRET, { timestamp: NOW }),
    );
  });

  it('refuses a Stripe header made with another secret', () => {
    const header = webhooks.generateTestHeaderString({
      payload: body,
      secret: 'whsec_other',
      timestamp: NOW,
    });
    expect(refusal(() => verifyPayload(body, header, SECRET, { now: NOW }))).toMatchObject({
      reason: 'no_matching_signature',
    });
  });
});

// Where our strict grammar and Stripe's lenient parser meet; these pin the facts the README states.
describe('edge cases compared with Stripe', () => {
  const header = signPayload(body, SECRET, { timestamp: NOW });
  const [t, v1] = header.split(',') as [string, string];

  it('a space after the comma: Stripe reads " v1" as an unknown key and finds no signature; we say malformed', () => {
    expect(stripeVerdict(body, `${t}, ${v1}`, SECRET)).toBe('No signatures found with expected scheme');
    expect(refusal(() => verifyPayload(body, `${t}, ${v1}`, SECRET, { now: NOW }))).toMatchObject({
      reason: 'malformed_header',
    });
  });

  it('a space before the comma: Stripe parseInt()s "t=… " and accepts; we say malformed', () => {
    expect(stripeVerdict(body, `${t} ,${v1}`, SECRET)).toBe('evt_1');
    expect(refusal(() => verifyPayload(body, `${t} ,${v1}`, SECRET, { now: NOW }))).toMatchObject({
      reason: 'malformed_header',
    });
  });

  it('tolerance 0: Stripe falls back to 300 s; ours means exactly now', () => {
    const at = (seconds: number) => () =>
      webhooks.constructEvent(body, header, SECRET, 0, undefined, receivedAt(seconds)).id;
    expect(at(NOW + 200)()).toBe('evt_1');
    expect(refusal(() => verifyPayload(body, header, SECRET, { now: NOW + 1, toleranceSeconds: 0 }))).toEqual(
      {
        reason: 'timestamp_too_old',
        message: 'the signature is 1 s old, more than the tolerance of 0 s',
      },
    );
  });

  it('a millisecond t=: Stripe checks only the past and lets it through; we refuse it as malformed', () => {
    const ms = webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: NOW * 1000 });
    expect(stripeVerdict(body, ms, SECRET)).toBe('evt_1');
    expect(refusal(() => verifyPayload(body, ms, SECRET, { now: NOW }))).toMatchObject({
      reason: 'malformed_header',
    });
  });

  it('a v0 element: both skip it', () => {
    const withV0 = `${header},v0=${'0'.repeat(64)}`;
    expect(stripeVerdict(body, withV0, SECRET)).toBe('evt_1');
    expect(verifyPayload(body, withV0, SECRET, { now: NOW }).id).toBe('evt_1');
  });
});
