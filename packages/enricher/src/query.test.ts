import { ServiceError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import {
  normaliseCompanyQuery,
  normalisePersonQuery,
  normaliseProfileUrl,
  registrableDomain,
} from './query.js';

function rejects(fn: () => unknown, field: string) {
  try {
    fn();
  } catch (error) {
    expect(ServiceError.is(error)).toBe(true);
    expect((error as ServiceError).code).toBe('invalid_request');
    expect((error as ServiceError).message).toContain(field);
    return;
  }
  throw new Error('expected invalid_request');
}

describe('query normalisation', () => {
  it('lower-cases an email and derives its registrable domain', () => {
    expect(normalisePersonQuery({ email: '  Jane.Doe@Mail.Acme.CO.UK ' })).toEqual({
      by: 'email',
      email: 'jane.doe@mail.acme.co.uk',
      domain: 'acme.co.uk',
    });
  });

  it('turns any URL or host into the registrable domain', () => {
    expect(registrableDomain('https://www.Acme.com/about?x=1')).toBe('acme.com');
    expect(registrableDomain('shop.example.co.uk')).toBe('example.co.uk');
    expect(normaliseCompanyQuery({ domain: 'http://blog.acme.io' })).toEqual({
      by: 'domain',
      domain: 'acme.io',
    });
    expect(normalisePersonQuery({ domain: 'WWW.acme.com', full_name: '  Jane   van\tDoe ' })).toEqual({
      by: 'domain_name',
      domain: 'acme.com',
      full_name: 'Jane van Doe',
    });
  });

  it('puts LinkedIn-style profile URLs in one canonical form', () => {
    const canonical = 'https://www.linkedin.com/in/jane-doe';
    for (const url of [
      'linkedin.com/in/Jane-Doe',
      'http://de.linkedin.com/in/jane-doe/',
      'https://www.linkedin.com/in/jane-doe?trk=x#top',
    ]) {
      expect(normaliseProfileUrl(url)).toBe(canonical);
    }
    expect(normaliseProfileUrl('https://www.github.com/JaneDoe/')).toBe('https://github.com/JaneDoe');
    expect(normalisePersonQuery({ profile_url: 'linkedin.com/in/x' })).toEqual({
      by: 'profile_url',
      profile_url: 'https://www.linkedin.com/in/x',
    });
  });

  it('refuses bad input with invalid_request naming the field', () => {
    rejects(() => normalisePersonQuery({ email: 'not-an-email' }), 'email');
    rejects(() => normalisePersonQuery({ email: 'a@localhost' }), 'email');
    rejects(() => normalisePersonQuery({ email: 42 }), 'email');
    rejects(() => normalisePersonQuery({ domain: 'acme.com' }), 'full_name');
    rejects(() => normalisePersonQuery({ full_name: 'Jane' }), 'domain');
    rejects(() => normalisePersonQuery({ domain: 'acme.com', full_name: '1234' }), 'full_name');
    rejects(() => normalisePersonQuery({ profile_url: 'https://linkedin.com/company/acme' }), 'profile_url');
    rejects(() => normalisePersonQuery({ profile_url: 'ftp://x.com/in/a' }), 'profile_url');
    rejects(
      () => normalisePersonQuery({ email: 'a@b.com', profile_url: 'linkedin.com/in/a' }),
      'exactly one',
    );
    rejects(() => normalisePersonQuery({}), 'email');
    rejects(() => normaliseCompanyQuery({ domain: '10.0.0.1' }), 'domain');
    rejects(() => normaliseCompanyQuery({ domain: 'co.uk' }), 'domain');
    rejects(() => normaliseCompanyQuery({}), 'domain');
  });
});
