import { isIPv4, isIPv6 } from 'node:net';
import { describe, normalizeDomain } from './names.js';
import type { DnsMxRecord, DnsSoaRecord, DnsSrvRecord } from './zone.js';

// Checks of single fields of zone entries. Each takes the value and where it sits (for the
// message) and returns the value in the form the server encodes, or throws a TypeError.

/** An SOA with its timers filled in; `minimum` defaults to the TTL it is served with. */
export type ServedSoa = Required<Omit<DnsSoaRecord, 'minimum'>> & { minimum: number | undefined };

/** A TTL in seconds: an integer 0..2^31-1. */
export function validateTtl(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
    throw new TypeError(
      `${where} must be an integer number of seconds 0..2147483647, got ${describe(value)}`,
    );
  }
  return value;
}

/** A delay in milliseconds: a finite number >= 0. */
export function validateDelay(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`${where} must be a number of milliseconds >= 0, got ${describe(value)}`);
  }
  return value;
}

/** An optional array, each item checked by `item`; absent means empty. */
export function list<T>(value: unknown, where: string, item: (value: unknown, where: string) => T): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${where} must be an array, got ${describe(value)}`);
  return value.map((v, i) => item(v, `${where}[${i}]`));
}

/** An IPv4 address in dotted-decimal form. */
export function ipv4(value: unknown, where: string): string {
  if (typeof value !== 'string' || !isIPv4(value)) {
    throw new TypeError(`${where} must be an IPv4 address like '127.0.0.2', got ${describe(value)}`);
  }
  return value;
}

/** An IPv6 address, returned in canonical compressed form. */
export function ipv6(value: unknown, where: string): string {
  if (typeof value !== 'string' || !isIPv6(value) || value.includes('%')) {
    throw new TypeError(`${where} must be an IPv6 address like '::1', got ${describe(value)}`);
  }
  // The WHATWG URL parser gives the canonical compressed form, with any embedded IPv4 tail in
  // hex, which is the only form dns2's encoder understands.
  return new URL(`http://[${value}]/`).hostname.slice(1, -1);
}

function uint16(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff) {
    throw new TypeError(`${where} must be an integer 0..65535, got ${describe(value)}`);
  }
  return value;
}

function uint32(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new TypeError(`${where} must be an integer 0..4294967295, got ${describe(value)}`);
  }
  return value;
}

/** A plain object. */
export function object(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** An MX record; an exchange of `'.'` (null MX) becomes the empty (root) name. */
export function mx(value: unknown, where: string): DnsMxRecord {
  const record = object(value, where);
  const priority = uint16(record.priority, `${where}.priority`);
  // '.' is the root: an RFC 7505 null MX, encoded as the empty name.
  if (typeof record.exchange !== 'string') {
    throw new TypeError(`${where}.exchange must be a host name or '.', got ${describe(record.exchange)}`);
  }
  const exchange = record.exchange === '.' ? '' : normalizeDomain(record.exchange, `${where}.exchange`);
  return { priority, exchange };
}

/** An SRV record. */
export function srv(value: unknown, where: string): DnsSrvRecord {
  const record = object(value, where);
  return {
    priority: uint16(record.priority, `${where}.priority`),
    weight: uint16(record.weight, `${where}.weight`),
    port: uint16(record.port, `${where}.port`),
    target: record.target === '.' ? '' : normalizeDomain(record.target, `${where}.target`),
  };
}

/** A TXT record as its character-strings. */
export function txt(value: unknown, where: string): string[] {
  if (typeof value === 'string') return splitCharacterStrings(value);
  if (!Array.isArray(value) || value.length === 0) {
    throw new TypeError(`${where} must be a string or a non-empty array of strings, got ${describe(value)}`);
  }
  return value.map((part, i) => {
    if (typeof part !== 'string' || Buffer.byteLength(part) > 255) {
      throw new TypeError(`${where}[${i}] must be a string of at most 255 bytes, got ${describe(part)}`);
    }
    return part;
  });
}

/** Splits text into character-strings of at most 255 UTF-8 bytes, never inside a code point. */
function splitCharacterStrings(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > 255) {
      parts.push(current);
      current = '';
      bytes = 0;
    }
    current += char;
    bytes += size;
  }
  parts.push(current);
  return parts;
}

/** An optional SOA record with its timers defaulted. */
export function soa(value: unknown, where: string): ServedSoa | undefined {
  if (value === undefined) return undefined;
  const record = object(value, where);
  const optional = (field: string, fallback: number) =>
    record[field] === undefined ? fallback : uint32(record[field], `${where}.${field}`);
  return {
    primary: normalizeDomain(record.primary, `${where}.primary`),
    admin: normalizeDomain(record.admin, `${where}.admin`),
    serial: optional('serial', 1),
    refresh: optional('refresh', 3600),
    retry: optional('retry', 600),
    expiration: optional('expiration', 86400),
    minimum: record.minimum === undefined ? undefined : validateTtl(record.minimum, `${where}.minimum`),
  };
}
