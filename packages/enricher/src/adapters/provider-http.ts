/**
 * What the three paid-provider adapters (People Data Labs, Hunter, Apollo) share: their options,
 * one JSON request through the context's guarded fetch with a time and size cap, and the
 * translation of an HTTP failure into the contract's typed error. Each provider decides itself
 * what its statuses mean (Hunter's 403 is a rate limit, PDL's 402 is a used-up quota); this file
 * only carries the mechanics.
 */
import type { AdapterContext, AdapterError } from '../adapter.js';
import { normaliseProfileUrl, registrableDomain } from '../query.js';

/** Options every paid provider takes. */
export interface ProviderOptions {
  /** The provider's API key (required; sent in a header, never in the URL). */
  apiKey: string;
  /** Where the provider's API lives; tests point it at a loopback server. */
  baseUrl?: string;
  /** Give up on one request after this many ms. @default 10000 */
  timeoutMs?: number;
  /** Most lookups in flight at once, per adapter. @default 4 */
  concurrency?: number;
  /** Credits one matched lookup costs. @default 1 */
  cost?: number;
  /** Cache TTLs in seconds. @default { hitSeconds: 30 days, missSeconds: 7 days } */
  ttl?: { hitSeconds: number; missSeconds: number };
}

export interface ResolvedProviderOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  concurrency: number;
  cost: number;
  ttl: { hitSeconds: number; missSeconds: number };
}

const DAY = 86_400;
/** A provider's answer larger than this is not a profile; we stop reading. */
export const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/** Validates options once, at construction, so a bad key fails at start-up and not per lookup. */
export function resolveProviderOptions(
  provider: string,
  options: ProviderOptions,
  defaultBaseUrl: string,
): ResolvedProviderOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${provider}: options must be an object with an apiKey`);
  }
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError(`${provider}: apiKey must be a non-empty string`);
  }
  const baseUrl = options.baseUrl ?? defaultBaseUrl;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `${provider}: baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`,
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TypeError(
      `${provider}: baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`,
    );
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`${provider}: timeoutMs must be a positive integer`);
  }
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency <= 0) {
    throw new TypeError(`${provider}: concurrency must be a positive integer`);
  }
  const cost = options.cost ?? 1;
  if (!Number.isFinite(cost) || cost < 0) throw new TypeError(`${provider}: cost must be a number ≥ 0`);
  const ttl = options.ttl ?? { hitSeconds: 30 * DAY, missSeconds: 7 * DAY };
  if (
    !Number.isInteger(ttl.hitSeconds) ||
    !Number.isInteger(ttl.missSeconds) ||
    ttl.hitSeconds < 0 ||
    ttl.missSeconds < 0
  ) {
    throw new TypeError(`${provider}: ttl.hitSeconds and ttl.missSeconds must be integers ≥ 0`);
  }
  return { apiKey: options.apiKey, baseUrl: baseUrl.replace(/\/+$/, ''), timeoutMs, concurrency, cost, ttl };
}

/** A provider's HTTP answer with its body parsed (null when empty or not JSON). */
export interface ProviderResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A request's outcome: the provider's answer, or why no usable answer came. */
export type ProviderResult = { response: ProviderResponse } | { error: AdapterError };

/**
 * One request. Resolves with the response, or with an AdapterError when no usable response came
 * (network failure, timeout, caller abort, oversized body): adapters never throw for upstream trouble.
 */
export async function providerRequest(
  provider: string,
  context: AdapterContext,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<ProviderResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  try {
    const response = await context.fetch(url, {
      method: init.method,
      headers: { accept: 'application/json', ...init.headers },
      body: init.body,
      signal,
      redirect: 'error', // an API answering with a redirect is misconfigured; never follow it with the key
    });
    const text = await readCapped(response, MAX_RESPONSE_BYTES, signal);
    if (text === null) {
      const message = `${provider}: response larger than ${MAX_RESPONSE_BYTES} bytes`;
      return { error: { kind: 'upstream', message, status: response.status } };
    }
    return { response: { status: response.status, headers: response.headers, body: parseJson(text) } };
  } catch (error) {
    if (signal.aborted) {
      const why = context.signal.aborted ? 'the lookup was aborted' : `no answer within ${timeoutMs} ms`;
      return { error: { kind: 'timeout', message: `${provider}: ${why}` } };
    }
    return { error: { kind: 'upstream', message: `${provider}: request failed: ${describe(error)}` } };
  }
}

/** Reads the body as text, or null once it passes `maxBytes` (the rest is cancelled). */
async function readCapped(response: Response, maxBytes: number, signal: AbortSignal): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    if (signal.aborted) {
      await reader.cancel().catch(() => {});
      throw signal.reason;
    }
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

/**
 * Seconds to wait from a `Retry-After` header (seconds or an HTTP date), else from a reset
 * header holding epoch seconds or an ISO date (PDL sends `x-ratelimit-reset`); null when neither says.
 */
export function retryAfterSeconds(headers: Headers, now: number, resetHeader?: string): number | null {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - now) / 1000));
  }
  const reset = resetHeader ? headers.get(resetHeader)?.trim() : undefined;
  if (reset) {
    // A reset of epoch seconds is a large number; a small one is a delay in seconds.
    if (/^\d+$/.test(reset)) {
      const value = Number(reset);
      return value > 1_000_000_000 ? Math.max(0, value - Math.floor(now / 1000)) : value;
    }
    const at = Date.parse(reset);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - now) / 1000));
  }
  return null;
}

/** The provider's own error message, from the shapes the three providers document. */
export function providerMessage(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const error = body.error;
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (Array.isArray(body.errors)) {
    const first: unknown = body.errors[0];
    if (isRecord(first) && typeof first.details === 'string') return first.details;
  }
  if (typeof body.message === 'string') return body.message;
  return null;
}

/** Which statuses mean what, per provider (each documents its own). */
export interface StatusMeaning {
  auth: readonly number[];
  quota: readonly number[];
  rateLimited: readonly number[];
  /** A status that is a used-up quota when the provider's message matches (Apollo's 422 about credits). */
  quotaWhen?: { status: number; message: RegExp };
  /** A header holding when a rate-limit window resets, read when there is no Retry-After. */
  resetHeader?: string;
}

/** The typed error for a status that is neither a hit nor a miss; anything undocumented is `upstream`. */
export function failure(
  provider: string,
  response: ProviderResponse,
  meaning: StatusMeaning,
  now: number,
): AdapterError {
  const { status } = response;
  const detail = providerMessage(response.body);
  const message = `${provider}: HTTP ${status}${detail ? `: ${detail}` : ''}`;
  if (meaning.auth.includes(status)) return { kind: 'auth', message };
  const quotaWhen = meaning.quotaWhen;
  if (
    meaning.quota.includes(status) ||
    (quotaWhen?.status === status && detail !== null && quotaWhen.message.test(detail))
  ) {
    return { kind: 'quota', message };
  }
  if (meaning.rateLimited.includes(status)) {
    return {
      kind: 'rate_limited',
      message,
      retryAfterSeconds: retryAfterSeconds(response.headers, now, meaning.resetHeader),
    };
  }
  return { kind: 'upstream', message, status };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object under `key` of a parsed answer (`{ person: {…} }`, `{ data: {…} }`), else null. */
export function recordAt(body: unknown, key: string): Record<string, unknown> | null {
  const value = isRecord(body) ? body[key] : undefined;
  return isRecord(value) ? value : null;
}

/** A non-empty trimmed string, else undefined (providers send null, '' and `true` for unknowns). */
export function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A non-negative integer, else undefined (also from a numeric string). */
export function count(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** A plausible founding year (1600..next year), else undefined. */
export function year(value: unknown, now: number): number | undefined {
  const number = count(value);
  const max = new Date(now).getUTCFullYear() + 1;
  return number !== undefined && number >= 1600 && number <= max ? number : undefined;
}

/** An email address only when it looks like one (some plans answer `true` in place of the value). */
export function email(value: unknown): string | undefined {
  const candidate = text(value)?.toLowerCase();
  return candidate && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(candidate) ? candidate : undefined;
}

/** An absolute https URL from a provider's scheme-less or http link (`linkedin.com/in/x`). */
export function httpsUrl(value: unknown): string | undefined {
  const raw = text(value);
  if (!raw) return undefined;
  try {
    const url = new URL(/^https?:\/\//i.test(raw) ? raw : `https://${raw}`);
    url.protocol = 'https:';
    return url.toString().replace(/\/$/, '');
  } catch {
    return undefined;
  }
}

/**
 * A profile URL in the canonical form queries use (query.ts: `https://www.linkedin.com/in/slug`
 * for LinkedIn), from a URL in any common spelling, a scheme-less one, or a bare LinkedIn handle;
 * undefined when it is none of these. The identity gate compares it with the query's.
 */
export function linkedinProfile(value: unknown): string | undefined {
  const raw = text(value);
  if (!raw) return undefined;
  const url = /^https?:\/\//i.test(raw)
    ? raw
    : /^[A-Za-z0-9][A-Za-z0-9_%-]*$/.test(raw)
      ? `https://www.linkedin.com/in/${raw}`
      : `https://${raw}`;
  try {
    return normaliseProfileUrl(url);
  } catch {
    return undefined;
  }
}

/** The handle of a canonical LinkedIn profile URL (`https://www.linkedin.com/in/slug` → `slug`). */
export function linkedinSlug(profileUrl: string): string | undefined {
  const slug = /^https:\/\/www\.linkedin\.com\/in\/([^/?#]+)$/.exec(profileUrl)?.[1];
  return slug ? decodeURIComponent(slug) : undefined;
}

/**
 * The registrable domain (Public Suffix List, query.ts's rules) of a provider's website, domain
 * or URL value; undefined when it has none, so it never disagrees with a query's domain.
 */
export function domainOf(value: unknown): string | undefined {
  const raw = text(value);
  if (!raw) return undefined;
  try {
    return registrableDomain(raw);
  } catch {
    return undefined;
  }
}

/** Drops undefined values so a candidate lists only the fields it really has. */
export function compact<T extends object>(fields: { [K in keyof T]?: T[K] | undefined }): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) {
    const value = fields[key];
    if (value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (isRecord(value) && Object.keys(value).length === 0) continue;
    out[key] = value as T[keyof T];
  }
  return out;
}
