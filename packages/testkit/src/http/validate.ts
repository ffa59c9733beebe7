import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { FakeHttpResponse, RecordedHttpResponse } from './types.js';

// Every mistake in options becomes a TypeError naming the offending field, so a typo in a test
// fails loudly instead of silently running the default behaviour.

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const RESPONSE_KEYS = new Set(['status', 'headers', 'body', 'delayMs']);

/** Throws a TypeError prefixed with the caller and the field, e.g. `startStaticSite: options.host ...`. */
export function fail(where: string, message: string): never {
  throw new TypeError(`${where} ${message}`);
}

/** Renders a bad value for an error message. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** Rejects keys outside `known`, so `failfirst` is not silently ignored. */
export function checkKeys(where: string, value: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) fail(where, `has an unknown field '${key}' (known: ${[...known].join(', ')})`);
  }
}

/** A dotted IPv4 address inside 127.0.0.0/8: the fakes must never be reachable from outside. */
export function checkLoopbackHost(where: string, value: unknown): string {
  const parts = typeof value === 'string' ? value.split('.') : [];
  const octets = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : Number.NaN));
  if (parts.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255)) || octets[0] !== 127) {
    fail(where, `must be a 127.x.y.z loopback address, got ${show(value)}`);
  }
  return value as string;
}

/** A TCP port; 0 asks for an ephemeral one. */
export function checkPort(where: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    fail(where, `must be an integer 0..65535, got ${show(value)}`);
  }
  return value;
}

/** An integer count >= 0. */
export function checkCount(where: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    fail(where, `must be an integer >= 0, got ${show(value)}`);
  }
  return value;
}

export function checkDelay(where: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(where, `must be a finite number of milliseconds >= 0, got ${show(value)}`);
  }
  return value;
}

/** A final status code; 1xx cannot end an exchange. */
export function checkStatus(where: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 200 || value > 599) {
    fail(where, `must be an integer status code 200..599, got ${show(value)}`);
  }
  return value;
}

export function checkBody(where: string, value: unknown): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return fail(where, `must be a string or a Buffer/Uint8Array, got ${show(value)}`);
}

/** Checks names and values with node:http's own rules, so a bad header fails here, not mid-response. */
export function checkHeaders(where: string, value: unknown): Record<string, string | string[]> {
  if (!isRecord(value)) fail(where, `must be an object of header name → value, got ${show(value)}`);
  const out: Record<string, string | string[]> = {};
  for (const [name, raw] of Object.entries(value)) {
    const at = `${where}[${JSON.stringify(name)}]`;
    const lower = name.toLowerCase();
    if (lower in out) fail(at, 'is given twice (header names are case-insensitive)');
    const values = Array.isArray(raw) ? raw : [raw];
    const strings = values.map((v: unknown) => {
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (typeof v !== 'string')
        fail(at, `must be a string, a number or an array of strings, got ${show(v)}`);
      return v;
    });
    try {
      validateHeaderName(name);
      for (const v of strings) validateHeaderValue(name, v);
    } catch (error) {
      fail(at, `is not a valid header: ${(error as Error).message}`);
    }
    out[lower] = Array.isArray(raw) ? strings : (strings[0] as string);
  }
  return out;
}

/** Validates a {@link FakeHttpResponse} and fills its defaults; `defaults` supplies status and body. */
export function checkResponse(
  where: string,
  value: unknown,
  defaults: { status: number; body: Buffer; contentType: (body: Buffer) => string },
): RecordedHttpResponse {
  if (!isRecord(value))
    fail(where, `must be an object { status?, headers?, body?, delayMs? }, got ${show(value)}`);
  checkKeys(where, value, RESPONSE_KEYS);
  const r = value as FakeHttpResponse;
  const status = r.status === undefined ? defaults.status : checkStatus(`${where}.status`, r.status);
  const headers = r.headers === undefined ? {} : checkHeaders(`${where}.headers`, r.headers);
  const body = r.body === undefined ? defaults.body : checkBody(`${where}.body`, r.body);
  const delayMs = r.delayMs === undefined ? 0 : checkDelay(`${where}.delayMs`, r.delayMs);
  if (REDIRECTS.has(status) && headers.location === undefined) {
    fail(where, `has the redirect status ${status} but no 'location' header`);
  }
  // 204 and 304 carry no body, so they get no body headers either.
  if (status !== 204 && status !== 304) {
    headers['content-type'] ??= defaults.contentType(body);
    headers['content-length'] ??= String(body.byteLength);
  }
  return { status, headers, body, delayMs };
}
