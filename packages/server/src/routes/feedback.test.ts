import { createHmac, createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createBatchRunner, createMemoryStore, createVerifyEmailProcessor } from '@svc/batch-runner';
import { createVerifier } from '@svc/email-verifier';
import { createDeliveryHistory, createMemoryFeedbackStore } from '@svc/feedback';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { historyForBatch, type ServerFeedback, sweepFeedbackRetention } from '../feedback/serve-feedback.js';
import { fleetVerifierOptions, mailLabPerFile } from '../testing/fleet-verifier.js';
import { createTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer | undefined;

const snsKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const confirmed: string[] = [];

function memoryFeedback(): ServerFeedback {
  const store = createMemoryFeedbackStore();
  return {
    store,
    history: createDeliveryHistory({ store }),
    // Stand-ins for Amazon: the certificate the test signs with, and a confirmation that is noted.
    fetchCertificate: async () => snsKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    confirmSubscription: async (url) => {
      confirmed.push(url);
    },
    retentionDays: 730,
  };
}

const liveVerifier = () =>
  createVerifier(fleetVerifierOptions(lab.dns, lab.fleet, { resolverHealth: false }));

const lab = mailLabPerFile({
  zones: {
    'catchall.test': { MX: [{ priority: 10, exchange: 'mx.catchall.test' }] },
    'mx.catchall.test': { A: ['127.0.0.2'] },
  },
  // A catch-all domain: every recipient is accepted, so the probe alone says `risky`.
  fleet: { hosts: ['127.0.0.2'], script: { domains: { 'catchall.test': 'accept' } } },
});
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

async function start(feedback: ServerFeedback | null = memoryFeedback()) {
  server = await createTestServer({ verifier: liveVerifier(), feedback });
  return server;
}

const call = async (options: InjectOptions) => (server as TestServer).app.inject(options);

function mailgunBody(key: string, recipient: string, event: 'delivered' | 'failed', id: string, now: number) {
  const timestamp = String(Math.floor(now / 1000));
  const token = randomBytes(25).toString('hex');
  return {
    signature: {
      timestamp,
      token,
      signature: createHmac('sha256', key)
        .update(timestamp + token)
        .digest('hex'),
    },
    'event-data': {
      event,
      id,
      timestamp: now / 1000,
      recipient,
      ...(event === 'failed' && {
        severity: 'permanent',
        'delivery-status': {
          code: 550,
          message: '5.1.1 The email account that you tried to reach does not exist',
        },
      }),
    },
  };
}

describe('delivery feedback over HTTP', () => {
  it('configure Mailgun, receive its signed events, and live verifications follow them', async () => {
    const s = await start();
    const a = await s.account();
    const key = 'mailgun-signing-key-0123456789';
    const configured = await s.call('PUT', '/v2/feedback/providers/mailgun', a.liveKey.secret, {
      secret: key,
    });
    expect(configured.statusCode).toBe(200);
    const { webhook_path } = configured.json();
    expect(webhook_path).toBe(`/v2/feedback/mailgun?account=${a.account.id}`);
    // The credentials are never shown again.
    const listed = await s.call('GET', '/v2/feedback/providers', a.liveKey.secret);
    expect(JSON.stringify(listed.json())).not.toContain(key);

    const now = s.clock.now;
    const post = (payload: object) => call({ method: 'POST', url: webhook_path, payload });
    const delivered = await post(mailgunBody(key, 'Jane.Doe@catchall.test', 'delivered', 'ev-1', now));
    expect(delivered.json()).toEqual({ object: 'feedback_receipt', received: 1, stored: 1, duplicates: 0 });
    // A provider retry of the same event is recorded once.
    expect(
      (await post(mailgunBody(key, 'jane.doe@catchall.test', 'delivered', 'ev-1', now))).json(),
    ).toMatchObject({
      stored: 0,
      duplicates: 1,
    });
    await post(mailgunBody(key, 'gone@catchall.test', 'failed', 'ev-2', now));

    const verify = async (email: string, secret = a.liveKey.secret) =>
      (await s.call('POST', '/v2/verify/email', secret, { email, options: { probe_mailbox: true } })).json();
    expect(await verify('jane.doe@catchall.test')).toMatchObject({
      state: 'deliverable',
      reasons: ['previously_delivered', 'catch_all'],
      is_catch_all: true,
      history: { events: 1, scope: 'account', last_delivered_at: new Date(now).toISOString() },
    });
    expect(await verify('gone@catchall.test')).toMatchObject({
      state: 'undeliverable',
      reasons: ['previously_bounced', 'catch_all'],
      history: { last_hard_bounce: { reason: 'mailbox_not_found', counts_against_address: true } },
    });
    // Nothing recorded for the address: the probe's verdict, with the domain's evidence for its
    // pattern (one address of this shape bounced: far too little to decide anything).
    expect(await verify('someone@catchall.test')).toMatchObject({
      state: 'risky',
      reasons: ['catch_all'],
      history: { events: 0, pattern: { pattern: 'word', delivered: 0, bounced: 1 } },
    });
    // Another account's verification does not see these sends: no history at all.
    const b = await s.account();
    const other = await verify('jane.doe@catchall.test', b.liveKey.secret);
    expect(other.state).toBe('risky');
    expect(other).not.toHaveProperty('history');

    const stats = await s.call('GET', '/v2/feedback/stats', a.liveKey.secret);
    expect(stats.json()).toMatchObject({
      object: 'feedback_stats',
      events: 2,
      providers: [{ provider: 'mailgun', counts: { delivered: 1, hard_bounce: 1 } }],
      domains: [{ domain: 'catchall.test', delivered: 1, bounced: 1, bounce_rate: 0.5 }],
      verdicts: { upgraded: 1, downgraded: 1 },
    });
  });

  it('refuses unsigned, tampered, replayed, unconfigured, unknown-provider, oversized and malformed input, storing nothing', async () => {
    const feedback = memoryFeedback();
    const s = await start(feedback);
    const a = await s.account();
    const key = 'mailgun-signing-key-0123456789';
    await s.call('PUT', '/v2/feedback/providers/mailgun', a.liveKey.secret, { secret: key });
    const url = `/v2/feedback/mailgun?account=${a.account.id}`;
    const good = mailgunBody(key, 'x@catchall.test', 'delivered', 'ev-9', s.clock.now);
    const cases: [string, InjectOptions, number, string][] = [
      [
        'unsigned',
        { method: 'POST', url, payload: { 'event-data': good['event-data'] } },
        401,
        'invalid_api_key',
      ],
      [
        'replayed an hour later',
        {
          method: 'POST',
          url,
          payload: mailgunBody(key, 'x@catchall.test', 'delivered', 'ev-8', s.clock.now - 3_600_000),
        },
        401,
        'invalid_api_key',
      ],
      [
        'another account',
        { method: 'POST', url: '/v2/feedback/mailgun?account=acct_nobody', payload: good },
        401,
        'invalid_api_key',
      ],
      [
        'unknown provider',
        { method: 'POST', url: `/v2/feedback/nosuch?account=${a.account.id}`, payload: good },
        400,
        'invalid_request',
      ],
      ['no account', { method: 'POST', url: '/v2/feedback/mailgun', payload: good }, 400, 'invalid_request'],
      [
        'not JSON',
        { method: 'POST', url, payload: '{"signature":', headers: { 'content-type': 'application/json' } },
        400,
        'invalid_request',
      ],
      [
        'larger than Mailgun sends',
        { method: 'POST', url, payload: { ...good, padding: 'x'.repeat(300 * 1024) } },
        400,
        'invalid_request',
      ],
      [
        'oversized',
        {
          method: 'POST',
          url,
          payload: 'x'.repeat(4 * 1024 * 1024 + 1),
          headers: { 'content-type': 'text/plain' },
        },
        400,
        'invalid_request',
      ],
    ];
    for (const [name, request, status, code] of cases) {
      const response = await call(request);
      expect(response.statusCode, name).toBe(status);
      if (code) expect(response.json().error?.code ?? response.json().code, name).toBe(code);
    }
    expect((await feedback.store.stats(a.account.id, '2000-01-01T00:00:00.000Z')).events).toBe(0);
  });

  it('SES through SNS: verifies the message signature, confirms the subscription, records the bounce', async () => {
    const s = await start();
    const a = await s.account();
    const topic = 'arn:aws:sns:eu-west-1:123456789012:ses-bounces';
    await s.call('PUT', '/v2/feedback/providers/ses', a.liveKey.secret, { topic_arns: [topic] });
    const sign = (fields: Record<string, string>, order: string[]) => {
      const signer = createSign('RSA-SHA256');
      signer.update(
        order
          .filter((f) => fields[f] !== undefined)
          .map((f) => `${f}\n${fields[f]}\n`)
          .join(''),
      );
      return { ...fields, SignatureVersion: '2', Signature: signer.sign(snsKeys.privateKey, 'base64') };
    };
    const base = {
      MessageId: 'm-1',
      TopicArn: topic,
      Timestamp: new Date(s.clock.now).toISOString(),
      SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc.pem',
    };
    const confirmation = sign(
      {
        ...base,
        Type: 'SubscriptionConfirmation',
        Message: 'confirm',
        Token: 't',
        SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t',
      },
      ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
    );
    const url = `/v2/feedback/ses?account=${a.account.id}`;
    // SNS posts JSON as text/plain.
    const headers = { 'content-type': 'text/plain; charset=UTF-8' };
    const confirmedNow = await call({ method: 'POST', url, headers, payload: JSON.stringify(confirmation) });
    expect(confirmedNow.json()).toMatchObject({ subscription_confirmed: true, stored: 0 });
    expect(confirmed).toContain('https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t');
    // Amazon unreachable while confirming: a retryable 503 in the spec's body (SNS sends it again).
    const failing = s.app.svc.feedback as ServerFeedback;
    const confirm = failing.confirmSubscription;
    failing.confirmSubscription = async () => {
      throw new Error('connect ETIMEDOUT');
    };
    const refused = await call({ method: 'POST', url, headers, payload: JSON.stringify(confirmation) });
    failing.confirmSubscription = confirm;
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error).toMatchObject({
      code: 'upstream_timeout',
      message: expect.stringMatching(/ETIMEDOUT/),
    });
    const bounce = {
      notificationType: 'Bounce',
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        feedbackId: 'fb-1',
        timestamp: new Date(s.clock.now).toISOString(),
        bouncedRecipients: [
          { emailAddress: 'left@catchall.test', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
        ],
      },
      mail: { messageId: 'mail-1' },
    };
    const notification = sign(
      { ...base, MessageId: 'm-2', Type: 'Notification', Message: JSON.stringify(bounce) },
      ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
    );
    const received = await call({ method: 'POST', url, headers, payload: JSON.stringify(notification) });
    expect(received.json()).toEqual({ object: 'feedback_receipt', received: 1, stored: 1, duplicates: 0 });
  });

  it('a provider needs its own credentials; test keys cannot configure; off without a store', async () => {
    const s = await start();
    const a = await s.account();
    const put = (provider: string, payload: object, key = a.liveKey.secret) =>
      call({
        method: 'PUT',
        url: `/v2/feedback/providers/${provider}`,
        headers: { 'x-api-key': key },
        payload,
      });
    const missing = await put('sendgrid', { secret: 'x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toMatch(/public_key/);
    expect((await put('mailgun', { secret: 'k' }, a.testKey.secret)).statusCode).toBe(401);
    expect((await put('mailgun', { secret: 'k', extra: 1 })).statusCode).toBe(400);
    await s.app.close();
    const off = await start(null);
    const b = await off.account();
    const response = await call({
      method: 'GET',
      url: '/v2/feedback/stats',
      headers: { 'x-api-key': b.liveKey.secret },
    });
    expect(response.statusCode).toBe(404);
  });

  it("a batch verify job's results carry the account's history", async () => {
    const feedback = memoryFeedback();
    await feedback.store.record('acc_batch', [
      {
        provider: 'generic',
        eventId: 'e1',
        address: 'jane.doe@catchall.test',
        kind: 'delivered',
        at: new Date().toISOString(),
        bounceType: null,
        diagnostic: null,
        reading: null,
      },
    ]);
    const verifier = liveVerifier();
    const store = createMemoryStore();
    const runner = createBatchRunner({
      store,
      processors: [
        createVerifyEmailProcessor(verifier, { probe_mailbox: true, refine: historyForBatch(feedback) }),
      ],
    });
    const job = await runner.submit({
      type: 'verify_email',
      records: ['jane.doe@catchall.test', 'other@catchall.test'],
      account_id: 'acc_batch',
    });
    runner.start();
    try {
      await expect
        .poll(async () => (await store.getJob(job.id))?.status, { timeout: 15_000 })
        .toBe('completed');
      const results = await store.results(job.id, { limit: 10 });
      expect(results.data.map((r) => (r.result as { state: string }).state)).toEqual([
        'deliverable',
        'risky',
      ]);
    } finally {
      await runner.close();
    }
  });

  it('the retention sweep deletes events older than the retention, at once and then daily', async () => {
    const feedback = memoryFeedback();
    const now = Date.UTC(2026, 10, 27);
    const event = (id: string, at: number) => ({
      provider: 'generic',
      eventId: id,
      address: `${id}@x.example`,
      kind: 'delivered' as const,
      at: new Date(at).toISOString(),
      bounceType: null,
      diagnostic: null,
      reading: null,
    });
    await feedback.store.record('acct_r', [
      event('old', now - 800 * 86_400_000),
      event('new', now - 86_400_000),
    ]);
    const stop = sweepFeedbackRetention(
      feedback,
      () => now,
      (error) => {
        throw error;
      },
    );
    stop();
    await expect.poll(() => feedback.store.summary({ account: 'acct_r' }, 'old@x.example')).toBeNull();
    expect(await feedback.store.summary({ account: 'acct_r' }, 'new@x.example')).not.toBeNull();
  });

  it("every other provider's documented webhook, signed the provider's way, through the server", async () => {
    const s = await start();
    const a = await s.account();
    const fixture = (name: string) =>
      readFileSync(new URL(`../../../feedback/test-data/providers/${name}`, import.meta.url));
    const put = (provider: string, payload: object) =>
      call({
        method: 'PUT',
        url: `/v2/feedback/providers/${provider}`,
        headers: { 'x-api-key': a.liveKey.secret },
        payload,
      });
    const post = (provider: string, body: Buffer, headers: Record<string, string>) =>
      call({
        method: 'POST',
        url: `/v2/feedback/${provider}?account=${a.account.id}`,
        payload: body,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const nowSeconds = String(Math.floor(s.clock.now / 1000));

    // SendGrid: ECDSA P-256 over timestamp + body.
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    await put('sendgrid', {
      public_key: ec.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    });
    const events = fixture('sendgrid-events.json');
    const signer = createSign('sha256');
    signer.update(nowSeconds);
    signer.update(events);
    const sendgrid = await post('sendgrid', events, {
      'x-twilio-email-event-webhook-signature': signer.sign(ec.privateKey, 'base64'),
      'x-twilio-email-event-webhook-timestamp': nowSeconds,
    });
    expect(sendgrid.json()).toMatchObject({ received: 5, stored: 5 });

    // Postmark: basic auth from the webhook URL.
    await put('postmark', { basic_auth: { user: 'pm', password: 'pm-secret' } });
    const basic = `Basic ${Buffer.from('pm:pm-secret').toString('base64')}`;
    expect(
      (await post('postmark', fixture('postmark-bounce.json'), { authorization: basic })).json(),
    ).toMatchObject({ stored: 1 });
    expect(
      (await post('postmark', fixture('postmark-bounce.json'), { authorization: 'Basic cG06Z3Vlc3M=' }))
        .statusCode,
    ).toBe(401);

    // Resend: Svix headers.
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    await put('resend', { secret });
    const resendBody = fixture('resend-bounced.json');
    const svixId = 'msg_test_1';
    const svix = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${svixId}.${nowSeconds}.${resendBody.toString('utf8')}`)
      .digest('base64');
    const resend = await post('resend', resendBody, {
      'svix-id': svixId,
      'svix-timestamp': nowSeconds,
      'svix-signature': `v1,${svix}`,
    });
    expect(resend.json()).toMatchObject({ stored: 1 });

    // Brevo: a bearer token.
    await put('brevo', { secret: 'brevo-token-123' });
    expect(
      (
        await post('brevo', fixture('brevo-hard-bounce.json'), { authorization: 'Bearer brevo-token-123' })
      ).json(),
    ).toMatchObject({ stored: 1 });

    const stats = (
      await call({
        method: 'GET',
        url: '/v2/feedback/stats?since=2000-01-01T00:00:00Z',
        headers: { 'x-api-key': a.liveKey.secret },
      })
    ).json();
    expect(stats.providers.map((p: { provider: string }) => p.provider)).toEqual([
      'brevo',
      'postmark',
      'resend',
      'sendgrid',
    ]);
  });
});
