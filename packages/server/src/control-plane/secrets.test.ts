import { createHmac, randomBytes } from 'node:crypto';
import { ServiceError } from '@svc/core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  CURSOR_TTL_MS,
  createServerSecrets,
  generateApiKey,
  generateTokenSecret,
  generateWebhookSecret,
  hashSecret,
  isWebhookSecret,
  last4,
  parseSecret,
  webhookSecretPrefix,
} from './secrets.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');

describe('secrets: keys and tokens', () => {
  it('makes sk_live_/sk_test_ keys and tok_ secrets of 200 random bits that parse back by shape', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    const token = generateTokenSecret();
    expect(live).toMatch(/^sk_live_[0-9a-hjkmnp-tv-z]{40}$/);
    expect(test).toMatch(/^sk_test_[0-9a-hjkmnp-tv-z]{40}$/);
    expect(token).toMatch(/^tok_[0-9a-hjkmnp-tv-z]{40}$/);
    expect(parseSecret(live)).toEqual({ kind: 'key', environment: 'live' });
    expect(parseSecret(test)).toEqual({ kind: 'key', environment: 'test' });
    expect(parseSecret(token)).toEqual({ kind: 'token' });
    const many = new Set(Array.from({ length: 2_000 }, () => generateApiKey('live').slice(8)));
    expect(many.size).toBe(2_000);
    // Every character of the alphabet turns up: no bias toward part of it.
    expect(new Set([...many].join('')).size).toBe(32);
  });

  it.each([
    ['nothing', undefined],
    ['a number', 42],
    ['an empty string', ''],
    ['a truncated key', generateApiKey('live').slice(0, -1)],
    ['a key with a character outside the alphabet', `${generateApiKey('live').slice(0, -1)}u`],
    ['an unknown environment', `sk_prod_${'a'.repeat(40)}`],
    ['a token id (not a token secret)', 'tok_01jd8x0000aaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['a key with trailing space', `${generateApiKey('test')} `],
    ['a webhook secret', generateWebhookSecret()],
  ])('parseSecret refuses %s', (_, value) => {
    expect(parseSecret(value)).toBeNull();
  });

  it('hashes with SHA-256 (hex)', () => {
    // printf '%s' sk_test_abc | sha256sum
    expect(hashSecret('sk_test_abc')).toBe(
      '4b4090ccee1e713c3d411b96a4226b90bd0f0deb34e02d19475a951316fd04ee',
    );
    const hash = hashSecret(generateApiKey('live'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('shows the last four characters of a key and the prefix of a webhook secret', () => {
    expect(last4('sk_live_abcdefgh')).toBe('efgh');
    expect(webhookSecretPrefix('whsec_ABCDEFGH')).toBe('whsec_ABCD');
  });
});

describe('secrets: webhook secrets', () => {
  it('makes whsec_ + base64 secrets that Standard Webhooks accepts and X-Service-Signature can key with', () => {
    const secret = generateWebhookSecret();
    expect(isWebhookSecret(secret)).toBe(true);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    const payload = '{"type":"batch.completed"}';
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    };
    const signed = new Webhook(secret).sign('evt_1', new Date(), payload);
    expect(new Webhook(secret).verify(payload, { ...headers, 'webhook-signature': signed })).toEqual(
      JSON.parse(payload),
    );
    expect(createHmac('sha256', secret).update('1.x').digest('hex')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('secrets: sealing', () => {
  const secrets = createServerSecrets(randomBytes(32));

  it('seals and unseals; the sealed form is neither the plaintext nor the same twice', () => {
    const plaintext = generateWebhookSecret();
    const sealed = secrets.seal(plaintext, 'acct_a');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(plaintext.slice(6));
    expect(secrets.seal(plaintext, 'acct_a')).not.toBe(sealed);
    expect(secrets.unseal(sealed, 'acct_a')).toBe(plaintext);
  });

  it('refuses another account’s context, another server key and altered data', () => {
    const sealed = secrets.seal('whsec_x', 'acct_a');
    expect(() => secrets.unseal(sealed, 'acct_b')).toThrow(/cannot unseal/);
    expect(() => createServerSecrets(randomBytes(32)).unseal(sealed, 'acct_a')).toThrow(/key changed/);
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[20] = (bytes[20] as number) ^ 1;
    expect(() => secrets.unseal(`v1.${bytes.toString('base64url')}`, 'acct_a')).toThrow(/altered/);
    expect(() => secrets.unseal('v2.abc', 'acct_a')).toThrow(/not a sealed secret/);
    expect(() => secrets.unseal('whsec_plain', 'acct_a')).toThrow(/not a sealed secret/);
  });

  it('needs a 32-byte server key', () => {
    expect(() => createServerSecrets(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('secrets: cursors', () => {
  const secrets = createServerSecrets(randomBytes(32));
  const invalid = (fn: () => unknown): ServiceError => {
    try {
      fn();
    } catch (error) {
      if (ServiceError.is(error)) return error;
      throw error;
    }
    throw new Error('expected a ServiceError');
  };

  it('round-trips a payload within 24 hours, in the same scope', () => {
    const cursor = secrets.signCursor({ after: 'batch_x', offset: 50 }, { now: NOW, scope: 'acct_a' });
    expect(encodeURIComponent(cursor)).toBe(cursor);
    expect(secrets.readCursor(cursor, { now: NOW + CURSOR_TTL_MS - 1, scope: 'acct_a' })).toEqual({
      after: 'batch_x',
      offset: 50,
    });
  });

  it('refuses an expired, tampered, foreign-scope or malformed cursor with 400 invalid_request', () => {
    const cursor = secrets.signCursor({ offset: 50 }, { now: NOW, scope: 'acct_a' });
    const expired = invalid(() => secrets.readCursor(cursor, { now: NOW + CURSOR_TTL_MS, scope: 'acct_a' }));
    expect([expired.code, expired.status]).toEqual(['invalid_request', 400]);
    expect(expired.message).toMatch(/expired/);

    const [data, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ p: { offset: 0 }, e: NOW + CURSOR_TTL_MS }), 'utf8').toString(
      'base64url',
    );
    expect(
      invalid(() => secrets.readCursor(`${forged}.${mac}`, { now: NOW, scope: 'acct_a' })).message,
    ).toMatch(/altered/);
    expect(invalid(() => secrets.readCursor(cursor, { now: NOW, scope: 'acct_b' })).code).toBe(
      'invalid_request',
    );
    expect(invalid(() => secrets.readCursor(`${data}`, { now: NOW })).message).toMatch(/malformed/);
    expect(invalid(() => secrets.readCursor('', { now: NOW })).code).toBe('invalid_request');
    // A cursor signed under another server key (a restart with a new key) is refused, not trusted.
    const other = createServerSecrets(randomBytes(32)).signCursor(
      { offset: 1 },
      { now: NOW, scope: 'acct_a' },
    );
    expect(invalid(() => secrets.readCursor(other, { now: NOW, scope: 'acct_a' })).code).toBe(
      'invalid_request',
    );
  });
});
