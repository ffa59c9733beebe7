import { createHmac, createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readBounce } from '../read-bounce.js';
import type { FeedbackRequest, ProviderCredentials } from './provider.js';
import { FEEDBACK_PROVIDER_IDS, feedbackProvider } from './registry.js';
import { snsStringToSign, snsSubscribeUrl } from './ses.js';

const fixture = (name: string): Buffer =>
  readFileSync(new URL(`../../test-data/providers/${name}`, import.meta.url));

async function receive(
  provider: string,
  request: FeedbackRequest,
  credentials: ProviderCredentials,
  now: Date,
) {
  const p = feedbackProvider(provider);
  if (!p) throw new Error(`no provider ${provider}`);
  await p.verify(request, credentials, {
    now,
    fetchCertificate: async () => snsKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  });
  return p.parse(JSON.parse(request.rawBody.toString('utf8')), request);
}

const snsKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ses-events';

function snsEnvelope(message: Buffer, version: '1' | '2', extra: Record<string, string> = {}): Buffer {
  const envelope: Record<string, string> = {
    Type: 'Notification',
    MessageId: `msg-${randomBytes(4).toString('hex')}`,
    TopicArn: TOPIC,
    Message: message.toString('utf8'),
    Timestamp: '2016-01-27T14:59:38.237Z',
    SignatureVersion: version,
    SigningCertURL:
      'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
    ...extra,
  };
  const signer = createSign(version === '2' ? 'RSA-SHA256' : 'RSA-SHA1');
  signer.update(snsStringToSign(envelope));
  envelope.Signature = signer.sign(snsKeys.privateKey, 'base64');
  return Buffer.from(JSON.stringify(envelope));
}

describe('feedback providers: documented shapes, signed with test keys', () => {
  it('the registry knows every provider the issue names, plus the generic form', () => {
    expect(FEEDBACK_PROVIDER_IDS).toEqual([
      'ses',
      'sendgrid',
      'mailgun',
      'postmark',
      'resend',
      'brevo',
      'generic',
    ]);
    expect(feedbackProvider('constructor')).toBeUndefined();
  });

  it('SES through SNS: verifies both signature versions and reads bounce, complaint and delivery', async () => {
    const now = new Date('2016-01-27T15:00:00Z');
    const credentials = { topicArns: [TOPIC] };
    const bounce = await receive(
      'ses',
      { headers: {}, rawBody: snsEnvelope(fixture('ses-bounce.json'), '1') },
      credentials,
      now,
    );
    expect(bounce).toEqual([
      {
        provider: 'ses',
        eventId: '00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa068a-000000:jane@example.com',
        address: 'jane@example.com',
        kind: 'hard_bounce',
        at: '2016-01-27T14:59:38.237Z',
        bounceType: 'Permanent/General',
        diagnostic: 'smtp; 550 5.1.1 <jane@example.com>... User unknown',
      },
    ]);
    expect(readBounce(bounce[0] as (typeof bounce)[0])).toMatchObject({
      level: 'mailbox',
      reason: 'mailbox_not_found',
    });
    const complaint = await receive(
      'ses',
      { headers: {}, rawBody: snsEnvelope(fixture('ses-complaint.json'), '2') },
      credentials,
      now,
    );
    expect(complaint).toMatchObject([{ kind: 'complaint', address: 'richard@example.com' }]);
    const delivery = await receive(
      'ses',
      { headers: {}, rawBody: snsEnvelope(fixture('ses-delivery.json'), '2') },
      credentials,
      now,
    );
    expect(delivery).toMatchObject([
      { kind: 'delivered', address: 'jane@example.com', diagnostic: '250 ok:  Message 64111812 accepted' },
    ]);
  });

  it('SES: refuses a tampered message, an unknown topic, a foreign certificate URL and a missing topic setting', async () => {
    const now = new Date('2016-01-27T15:00:00Z');
    const good = JSON.parse(snsEnvelope(fixture('ses-bounce.json'), '2').toString('utf8'));
    const tampered = Buffer.from(
      JSON.stringify({ ...good, Message: good.Message.replace('jane@', 'joan@') }),
    );
    await expect(
      receive('ses', { headers: {}, rawBody: tampered }, { topicArns: [TOPIC] }, now),
    ).rejects.toMatchObject({
      code: 'invalid_api_key',
      message: expect.stringMatching(/does not verify/),
    });
    const raw = Buffer.from(JSON.stringify(good));
    await expect(
      receive('ses', { headers: {}, rawBody: raw }, { topicArns: ['arn:aws:sns:us-east-1:1:other'] }, now),
    ).rejects.toThrow(/topic this account did not configure/);
    await expect(receive('ses', { headers: {}, rawBody: raw }, {}, now)).rejects.toThrow(/no SNS topic ARN/);
    const foreign = Buffer.from(
      JSON.stringify({ ...good, SigningCertURL: 'https://attacker.example/cert.pem' }),
    );
    await expect(
      receive('ses', { headers: {}, rawBody: foreign }, { topicArns: [TOPIC] }, now),
    ).rejects.toThrow(/not an Amazon SNS certificate URL/);
  });

  it("SES: a certificate Amazon does not serve is a retryable 503, not the sender's fault", async () => {
    const rawBody = snsEnvelope(fixture('ses-bounce.json'), '2');
    const ses = feedbackProvider('ses');
    await expect(
      ses?.verify(
        { headers: {}, rawBody },
        { topicArns: [TOPIC] },
        {
          now: new Date('2016-01-27T15:00:00Z'),
          fetchCertificate: async () => {
            throw new Error('connect ETIMEDOUT');
          },
        },
      ),
    ).rejects.toMatchObject({ code: 'upstream_timeout', message: expect.stringMatching(/ETIMEDOUT/) });
  });

  it('SES: a subscription confirmation is verified and names its SubscribeURL; it carries no events', async () => {
    const body = snsEnvelope(Buffer.from('You have chosen to subscribe'), '2', {
      Type: 'SubscriptionConfirmation',
      Token: 'token-1',
      SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=token-1',
    });
    const events = await receive(
      'ses',
      { headers: {}, rawBody: body },
      { topicArns: [TOPIC] },
      new Date('2016-01-27T15:00:00Z'),
    );
    expect(events).toEqual([]);
    expect(snsSubscribeUrl(body)).toBe(
      'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=token-1',
    );
  });

  it('SendGrid: verifies the ECDSA signature over timestamp + body and maps each event', async () => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const publicKey = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const body = fixture('sendgrid-events.json');
    const timestamp = '1513299600';
    const signer = createSign('sha256');
    signer.update(timestamp);
    signer.update(body);
    const headers = {
      'x-twilio-email-event-webhook-signature': signer.sign(keys.privateKey, 'base64'),
      'x-twilio-email-event-webhook-timestamp': timestamp,
    };
    const now = new Date(1513299600_000);
    const events = await receive('sendgrid', { headers, rawBody: body }, { publicKey }, now);
    expect(events.map((e) => [e.kind, e.address])).toEqual([
      ['delivered', 'example@test.com'],
      ['hard_bounce', 'bounced@test.com'],
      ['hard_bounce', 'blocked@test.com'],
      ['soft_bounce', 'example@test.com'],
      ['complaint', 'example@test.com'],
    ]);
    // One reader: "500 unknown recipient" and a local-policy block are told apart.
    expect(readBounce(events[1] as (typeof events)[0]).level).not.toBe('policy');
    expect(readBounce(events[2] as (typeof events)[0])).toMatchObject({
      level: 'policy',
      reason: 'blocked_by_policy',
    });
    const tampered = Buffer.from(body.toString('utf8').replace('bounced@test.com', 'other@test.com'));
    await expect(receive('sendgrid', { headers, rawBody: tampered }, { publicKey }, now)).rejects.toThrow(
      /does not verify/,
    );
    // A replay ten minutes later is refused even with its genuine signature.
    await expect(
      receive('sendgrid', { headers, rawBody: body }, { publicKey }, new Date(1513299600_000 + 600_000)),
    ).rejects.toThrow(/replay/);
  });

  it('Mailgun: verifies the HMAC of timestamp + token and reads the delivery status', async () => {
    const key = 'key-test-signing-key';
    const sign = (name: string) => {
      const body = JSON.parse(fixture(name).toString('utf8'));
      body.signature.signature = createHmac('sha256', key)
        .update(body.signature.timestamp + body.signature.token)
        .digest('hex');
      return Buffer.from(JSON.stringify(body));
    };
    const now = new Date(1529006854_000);
    const failed = await receive(
      'mailgun',
      { headers: {}, rawBody: sign('mailgun-failed-permanent.json') },
      { secret: key },
      now,
    );
    expect(failed).toMatchObject([
      {
        kind: 'hard_bounce',
        address: 'alice@example.com',
        eventId: 'G9Bn5sl1TC6nu79C8C0bwg',
        diagnostic: '550 5.1.1 No Such User Here',
      },
    ]);
    expect(readBounce(failed[0] as (typeof failed)[0])).toMatchObject({
      level: 'mailbox',
      reason: 'mailbox_not_found',
    });
    const delivered = await receive(
      'mailgun',
      { headers: {}, rawBody: sign('mailgun-delivered.json') },
      { secret: key },
      now,
    );
    expect(delivered).toMatchObject([{ kind: 'delivered', address: 'alice@example.com' }]);
    await expect(
      receive(
        'mailgun',
        { headers: {}, rawBody: sign('mailgun-delivered.json') },
        { secret: 'another-key' },
        now,
      ),
    ).rejects.toThrow(/does not verify/);
  });

  it('Postmark: checks basic auth and maps bounce, delivery and spam complaint', async () => {
    const basicAuth = { user: 'postmark', password: 'hook-pass' };
    const authorization = `Basic ${Buffer.from('postmark:hook-pass').toString('base64')}`;
    const now = new Date();
    const bounce = await receive(
      'postmark',
      { headers: { authorization }, rawBody: fixture('postmark-bounce.json') },
      { basicAuth },
      now,
    );
    expect(bounce).toMatchObject([
      {
        kind: 'hard_bounce',
        address: 'john@example.com',
        eventId: '4323372036854775807',
        bounceType: 'HardBounce',
      },
    ]);
    expect(readBounce(bounce[0] as (typeof bounce)[0]).level).toBe('mailbox');
    const delivery = await receive(
      'postmark',
      { headers: { authorization }, rawBody: fixture('postmark-delivery.json') },
      { basicAuth },
      now,
    );
    expect(delivery).toMatchObject([{ kind: 'delivered', at: '2019-11-05T16:33:54.907Z' }]);
    const spam = await receive(
      'postmark',
      { headers: { authorization }, rawBody: fixture('postmark-spam.json') },
      { basicAuth },
      now,
    );
    expect(spam).toMatchObject([{ kind: 'complaint', eventId: '42' }]);
    const wrong = `Basic ${Buffer.from('postmark:guess').toString('base64')}`;
    await expect(
      receive(
        'postmark',
        { headers: { authorization: wrong }, rawBody: fixture('postmark-spam.json') },
        { basicAuth },
        now,
      ),
    ).rejects.toThrow(/wrong/);
  });

  it('Resend: verifies the Svix signature; a suppression bounce does not count against the address', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = fixture('resend-bounced.json');
    const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
    const timestamp = '1732318872';
    const signature = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${id}.${timestamp}.${body.toString('utf8')}`)
      .digest('base64');
    const headers = {
      'svix-id': id,
      'svix-timestamp': timestamp,
      'svix-signature': `v1,bm90LXRoaXMtb25l v1,${signature}`,
    };
    const now = new Date(1732318872_000);
    const events = await receive('resend', { headers, rawBody: body }, { secret }, now);
    expect(events).toMatchObject([
      { kind: 'hard_bounce', address: 'delivered@resend.dev', bounceType: 'Permanent/Suppressed' },
    ]);
    expect(readBounce(events[0] as (typeof events)[0]).level).toBe('unclear');
    await expect(
      receive('resend', { headers: { ...headers, 'svix-id': 'msg_other' }, rawBody: body }, { secret }, now),
    ).rejects.toThrow(/no signature verifies/);
  });

  it('Brevo: checks the bearer token and reads the hard bounce reason', async () => {
    const events = await receive(
      'brevo',
      { headers: { authorization: 'Bearer brevo-token' }, rawBody: fixture('brevo-hard-bounce.json') },
      { secret: 'brevo-token' },
      new Date(),
    );
    expect(events).toMatchObject([
      { kind: 'hard_bounce', address: 'example@example.com', at: '2020-08-21T18:28:29.000Z' },
    ]);
    expect(readBounce(events[0] as (typeof events)[0])).toMatchObject({
      level: 'mailbox',
      reason: 'mailbox_not_found',
    });
    await expect(
      receive(
        'brevo',
        { headers: {}, rawBody: fixture('brevo-hard-bounce.json') },
        { secret: 'brevo-token' },
        new Date(),
      ),
    ).rejects.toThrow(/no matching credentials/);
  });

  it('generic JSON: bearer secret, every field checked, bad input refused and nothing half-read', async () => {
    const body = Buffer.from(
      JSON.stringify({
        events: [
          { id: 'e1', address: 'Ann@Example.com', event: 'delivered', at: '2026-11-01T10:00:00Z' },
          {
            id: 'e2',
            address: 'bo@example.com',
            event: 'hard_bounce',
            at: 1_793_000_000,
            diagnostic: '550 5.1.1 no such user',
          },
        ],
      }),
    );
    const headers = { authorization: 'Bearer s3cret' };
    const events = await receive('generic', { headers, rawBody: body }, { secret: 's3cret' }, new Date());
    expect(events.map((e) => [e.address, e.kind, e.at])).toEqual([
      ['ann@example.com', 'delivered', '2026-11-01T10:00:00.000Z'],
      ['bo@example.com', 'hard_bounce', '2026-10-26T07:33:20.000Z'],
    ]);
    const bad = (events: unknown[]) =>
      receive(
        'generic',
        { headers, rawBody: Buffer.from(JSON.stringify({ events })) },
        { secret: 's3cret' },
        new Date(),
      );
    await expect(
      bad([{ id: 'x', address: 'not-an-address', event: 'delivered', at: '2026-11-01' }]),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(
      bad([{ id: 'x', address: 'a@b.example', event: 'opened', at: '2026-11-01' }]),
    ).rejects.toThrow(/must be one of/);
    await expect(
      bad([{ id: 'x', address: 'a@b.example', event: 'delivered', at: 'yesterday' }]),
    ).rejects.toThrow(/not a time/);
    await expect(bad(new Array(5_001).fill({}))).rejects.toThrow(/more than 5000/);
  });
});
