/**
 * Validates and normalises what callers ask (spec §2.4) into the queries adapters answer, so the
 * cache key, the suppression hash and every adapter see one form of the same identifier.
 */
import { ServiceError } from '@svc/core';
import { parse as parseDomain } from 'tldts';
import type { CompanyQuery, PersonQuery } from './adapter.js';

const MAX_NAME = 200;
const MAX_INPUT = 2048;

function invalid(field: string, message: string): ServiceError {
  return new ServiceError('invalid_request', `${field}: ${message}`);
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  const trimmed = value.trim();
  if (trimmed.length === 0) throw invalid(field, 'must not be empty');
  if (trimmed.length > MAX_INPUT) throw invalid(field, `must be at most ${MAX_INPUT} characters`);
  return trimmed;
}

/**
 * Any URL or host name → its registrable domain by the Public Suffix List
 * (`https://www.Acme.co.uk/about` → `acme.co.uk`). IP addresses and bare suffixes are refused.
 */
export function registrableDomain(value: unknown, field = 'domain'): string {
  const input = text(value, field).toLowerCase();
  const parsed = parseDomain(input, { allowPrivateDomains: false });
  if (parsed.isIp) throw invalid(field, 'must be a domain name, not an IP address');
  if (!parsed.domain || !parsed.isIcann) {
    throw invalid(field, `${JSON.stringify(input)} has no registrable domain (for example acme.com)`);
  }
  return parsed.domain;
}

/** Trimmed, lower-cased email with one @, a non-empty local part and a registrable domain. */
export function normaliseEmail(value: unknown, field = 'email'): { email: string; domain: string } {
  const email = text(value, field).toLowerCase();
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const host = email.slice(at + 1);
  if (at <= 0 || local.includes('@') || /\s/.test(email) || local.length > 64 || host.length === 0) {
    throw invalid(field, `${JSON.stringify(email)} is not an email address`);
  }
  if (!/^[a-z0-9.-]+$/.test(host)) throw invalid(field, `${JSON.stringify(host)} is not a domain name`);
  return { email, domain: registrableDomain(host, field) };
}

/** A person's name with whitespace collapsed; at least one letter. */
export function normaliseName(value: unknown, field = 'full_name'): string {
  const name = text(value, field).replace(/\s+/g, ' ');
  if (name.length > MAX_NAME) throw invalid(field, `must be at most ${MAX_NAME} characters`);
  if (!/\p{L}/u.test(name)) throw invalid(field, 'must contain a letter');
  return name;
}

/**
 * A profile URL in canonical form. LinkedIn-style profiles (`linkedin.com/in/<slug>` on any
 * country subdomain, with or without scheme, query or trailing slash) become
 * `https://www.linkedin.com/in/<slug>` with the slug lower-cased; other http(s) URLs become
 * `https://<host without www.><path without trailing slash>`, query and fragment dropped.
 */
export function normaliseProfileUrl(value: unknown, field = 'profile_url'): string {
  const input = text(value, field);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `https://${input}`);
  } catch {
    throw invalid(field, `${JSON.stringify(input)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(field, 'must be an http(s) URL');
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  registrableDomain(host, field);
  const segments = url.pathname.split('/').filter(Boolean);
  if (host === 'linkedin.com' || host.endsWith('.linkedin.com')) {
    const [kind, slug] = segments;
    if (kind?.toLowerCase() !== 'in' || !slug) {
      throw invalid(field, 'a LinkedIn profile URL looks like https://www.linkedin.com/in/<name>');
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(slug);
    } catch {
      throw invalid(field, 'the profile name in the URL is not valid percent-encoding');
    }
    return `https://www.linkedin.com/in/${encodeURIComponent(decoded.toLowerCase())}`;
  }
  if (segments.length === 0) throw invalid(field, 'must point at a profile, not a site root');
  return `https://${host}/${segments.join('/')}`;
}

/** The caller's person query (exactly one of the three forms) → a normalised PersonQuery. */
export function normalisePersonQuery(input: unknown): PersonQuery {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ServiceError(
      'invalid_request',
      'the query must be an object with email, domain + full_name, or profile_url',
    );
  }
  const query = input as Record<string, unknown>;
  const has = (key: string) => query[key] !== undefined && query[key] !== null;
  const forms = [has('email'), has('domain') || has('full_name'), has('profile_url')].filter(Boolean).length;
  if (forms === 0) throw invalid('email', 'give email, domain + full_name, or profile_url');
  if (forms > 1) {
    throw new ServiceError('invalid_request', 'give exactly one of: email, domain + full_name, profile_url');
  }
  if (has('email')) return { by: 'email', ...normaliseEmail(query.email) };
  if (has('profile_url')) return { by: 'profile_url', profile_url: normaliseProfileUrl(query.profile_url) };
  if (!has('domain')) throw invalid('domain', 'is required with full_name');
  if (!has('full_name')) throw invalid('full_name', 'is required with domain');
  return {
    by: 'domain_name',
    domain: registrableDomain(query.domain),
    full_name: normaliseName(query.full_name),
  };
}

/** The caller's company query (`{ domain }`, or a domain/URL string) → a normalised CompanyQuery. */
export function normaliseCompanyQuery(input: unknown): CompanyQuery {
  const value = typeof input === 'object' && input !== null ? (input as { domain?: unknown }).domain : input;
  if (value === undefined || value === null) throw invalid('domain', 'is required');
  return { by: 'domain', domain: registrableDomain(value) };
}

/** The one identifier a query is about, as hashed for suppression and used for cache keys. */
export function identifiersOf(query: PersonQuery | CompanyQuery): string[] {
  switch (query.by) {
    case 'email':
      return [`email:${query.email}`];
    case 'profile_url':
      return [`profile_url:${query.profile_url}`];
    case 'domain_name':
      return [`name:${query.domain}:${query.full_name.toLowerCase()}`];
    case 'domain':
      return [`domain:${query.domain}`];
  }
}
