import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError } from './errors.js';
import { signPayload, WEBHOOK_SIGNATURE_HEADER } from './sign.js';
import { verifyPayload, verifyRequest } from './verify.js';

const stripe = new Stripe('sk_test_unused');
const NOW = 1_763_900_000;
const body = JSON.stringify({
  id: 'evt_1',
  object: 'event',
  type: 'batch.completed',
  created: NOW,
  data: { object: { id: 'batch_1' } },
});
const secret = 'whsec_new';
const oldSecret = 'whsec_old';

const reason = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return [error.reason, error.message];
    throw error;
  }
  return ['accepted', ''];
};

describe('sign and verify', () => {
  it('round-trips and returns the parsed event', () => {
    const header = signPayload(body, secret, { timestamp: NOW });
    expect(header).toMatch(/^t=1763900000,v1=[0-9a-f]{64}$/);
    expect(verifyPayload(body, header, secret, { now: NOW }).data.object).toEqual({ id: 'batch_1' });
  });

  it('signs with every active secret during a rotation, newest first, and either verifies', () => {
    const header = signPayload(body, [secret, oldSecret], { timestamp: NOW });
    const [, newest, older] = header.split(',');
    expect(newest).toBe(signPayload(body, secret, { timestamp: NOW }).split(',')[1]);
    expect(older).toBe(signPayload(body, oldSecret, { timestamp: NOW }).split(',')[1]);
    for (const held of [[secret], [oldSecret], [secret, oldSecret], [oldSecret, secret]]) {
      expect(reason(() => verifyPayload(body, header, held, { now: NOW }))[0]).toBe('accepted');
    }
    expect(reason(() => verifyPayload(body, header, 'whsec_other', { now: NOW }))[0]).toBe(
      'no_matching_signature',
    );
  });

  it('reads the header from Node or Fetch headers in any case', () => {
    const header = signPayload(body, secret, { timestamp: NOW });
    expect(verifyRequest({ 'x-service-signature': header }, Buffer.from(body), secret, { now: NOW }).id).toBe(
      'evt_1',
    );
    expect(
      verifyRequest(new Headers({ [WEBHOOK_SIGNATURE_HEADER]: header }), body, secret, { now: NOW }).id,
    ).toBe('evt_1');
  });
});

describe("interoperability with Stripe's SDK", () => {
  it('stripe.webhooks.constructEvent accepts our header (receive time pinned)', () => {
    const header = signPayload(body, secret, { timestamp: NOW });
    const event = stripe.webhooks.constructEvent(body, header, secret, 300, undefined, NOW * 1000 + 1500);
    expect(event.id).toBe('evt_1');
  });

  it("our verifier accepts stripe's generateTestHeaderString", () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: NOW });
    expect(verifyPayload(body, header, secret, { now: NOW }).id).toBe('evt_1');
  });
});

describe('refusals, each with its reason', () => {
  const header = signPayload(body, secret, { timestamp: NOW });
  const signature = header.split(',')[1] as string;
  it.each([
    ['a missing header', undefined, body, 'missing_header'],
    ['an empty header', '', body, 'missing_header'],
    ['spaces in the header', `t=${NOW}, ${signature}`, body, 'malformed_header'],
    ['uppercase hex', `t=${NOW},${signature.toUpperCase().replace('V1=', 'v1=')}`, body, 'malformed_header'],
    ['no timestamp', signature, body, 'malformed_header'],
    ['two timestamps', `t=${NOW},t=${NOW},${signature}`, body, 'malformed_header'],
    [
      'a millisecond timestamp',
      signPayload(body, secret, { timestamp: NOW * 1000 }),
      body,
      'malformed_header',
    ],
    ['a re-serialised body', header, JSON.stringify(JSON.parse(body), null, 2), 'no_matching_signature'],
    ['a body one byte longer', header, `${body} `, 'no_matching_signature'],
  ])('%s → %s', (_name, value, payload, expected) => {
    expect(reason(() => verifyPayload(payload, value, secret, { now: NOW }))[0]).toBe(expected);
  });

  it('enforces the 300 s tolerance both ways, boundary included', () => {
    const at = (offset: number) => signPayload(body, secret, { timestamp: NOW + offset });
    expect(reason(() => verifyPayload(body, at(-300), secret, { now: NOW }))[0]).toBe('accepted');
    expect(reason(() => verifyPayload(body, at(300), secret, { now: NOW }))[0]).toBe('accepted');
    expect(reason(() => verifyPayload(body, at(-301), secret, { now: NOW }))).toEqual([
      'timestamp_too_old',
      'the signature is 301 s old (tolerance 300 s)',
    ]);
    expect(reason(() => verifyPayload(body, at(301), secret, { now: NOW }))[0]).toBe('timestamp_in_future');
  });

  it('ignores other schemes like Stripe (v0=) but needs a v1', () => {
    expect(reason(() => verifyPayload(body, `${header},v0=abc`, secret, { now: NOW }))[0]).toBe('accepted');
    expect(reason(() => verifyPayload(body, `t=${NOW},v0=abc`, secret, { now: NOW }))[0]).toBe(
      'malformed_header',
    );
  });

  it('refuses an empty secret list and empty secrets at sign and verify time', () => {
    expect(reason(() => verifyPayload(body, header, [], { now: NOW }))).toEqual([
      'no_secrets',
      'at least one signing secret is needed',
    ]);
    expect(reason(() => verifyPayload(body, header, [''], { now: NOW }))[0]).toBe('no_secrets');
    expect(() => signPayload(body, [])).toThrow('at least one signing secret is needed');
    expect(() => signPayload(body, '')).toThrow('signing secrets must be non-empty strings');
    expect(() => signPayload(body, secret, { timestamp: 1.5 })).toThrow(
      'timestamp must be whole unix seconds',
    );
  });

  it('refuses a correctly signed body that is not JSON', () => {
    const text = 'not json';
    expect(
      reason(() => verifyPayload(text, signPayload(text, secret, { timestamp: NOW }), secret, { now: NOW })),
    ).toEqual(['invalid_body', 'the signed body is not JSON']);
  });
});
