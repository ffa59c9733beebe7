import { addressToBigInt, parseIp } from '@svc/ip-address';
import { isCountryCode, isSubdivisionCode } from './iso-codes.js';

/** One valid row of a geofeed (RFC 8805): a prefix and where its operator says it is. */
export interface GeofeedEntry {
  /** The prefix as written, canonical (`192.0.2.0/24`, `2001:db8::/32`). */
  network: string;
  family: 4 | 6;
  /** The prefix's first address as a number (IPv4 in the 32-bit space). */
  start: bigint;
  prefixLength: number;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** ISO 3166-2 (`US-CA`), upper case; null when the row has none or an invalid one. */
  region_code: string | null;
  city: string | null;
  postal_code: string | null;
  /** The row's line number in its file (1-based). */
  line: number;
}

/** A row the parser dropped or changed, or an overlap it noticed: never fatal. */
export interface GeofeedProblem {
  line: number;
  message: string;
  /** `dropped`: the row is not used; `field-dropped`: a field was left out; `overlap`: used, but overlaps another row. */
  kind: 'dropped' | 'field-dropped' | 'overlap';
}

/** What parseGeofeed read from one file. */
export interface ParsedGeofeed {
  entries: GeofeedEntry[];
  problems: GeofeedProblem[];
  /** Rows read (comments and blank lines not counted). */
  rows: number;
}

/** Limits of parseGeofeed. */
export interface GeofeedLimits {
  /** Rows past this many are not read (reported once). @default 1_000_000 */
  maxRows?: number;
  /** Problems past this many are counted, not listed. @default 1000 */
  maxProblems?: number;
}

/** Thrown for a file that is not a geofeed at all (over a limit, binary, no valid row). */
export class GeofeedError extends Error {
  override name = 'GeofeedError';
}

/**
 * Reads a geofeed CSV (RFC 8805: `prefix,country,region,city,postal`, `#` comments) and checks
 * every row: the prefix's syntax and that no host bits are set; the country against ISO 3166-1 and
 * the region against ISO 3166-2 (CLDR's lists, shipped in `data/iso-3166/`), the region within its
 * country. A bad prefix or country drops the row, a bad region drops the region; each is reported
 * with its line number. The same prefix twice keeps the first row; a prefix inside another is kept
 * (the longer prefix wins at lookup) and reported as an overlap.
 */
export function parseGeofeed(text: string, limits: GeofeedLimits = {}): ParsedGeofeed {
  const maxRows = limits.maxRows ?? 1_000_000;
  const maxProblems = limits.maxProblems ?? 1000;
  if (text.includes('\u0000')) throw new GeofeedError('not a geofeed: the file is binary');
  const entries: GeofeedEntry[] = [];
  const problems: GeofeedProblem[] = [];
  let problemCount = 0;
  const report = (line: number, kind: GeofeedProblem['kind'], message: string) => {
    problemCount++;
    if (problems.length < maxProblems) problems.push({ line, kind, message });
  };
  const seen = new Map<string, number>();
  let rows = 0;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const raw = (lines[index] as string).trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const lineNumber = index + 1;
    if (++rows > maxRows) {
      report(lineNumber, 'dropped', `more than ${maxRows} rows: the rest of the file is not read`);
      rows--;
      break;
    }
    const fields = splitCsvLine(raw);
    if (fields === null) {
      report(lineNumber, 'dropped', 'unbalanced quotes');
      continue;
    }
    const [prefixText = '', countryText = '', regionText = '', cityText = '', postalText = ''] = fields;
    const prefix = parsePrefix(prefixText);
    if (typeof prefix === 'string') {
      report(lineNumber, 'dropped', prefix);
      continue;
    }
    const country = countryText.toUpperCase();
    if (country === '') {
      report(lineNumber, 'dropped', `${prefix.network}: no country`);
      continue;
    }
    if (!/^[A-Z]{2}$/.test(country) || !isCountryCode(country)) {
      report(
        lineNumber,
        'dropped',
        `${prefix.network}: ${JSON.stringify(countryText)} is not an ISO 3166-1 alpha-2 country code`,
      );
      continue;
    }
    let region: string | null = regionText === '' ? null : regionText.toUpperCase();
    if (region !== null) {
      if (!/^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(region) || !isSubdivisionCode(region)) {
        report(
          lineNumber,
          'field-dropped',
          `${prefix.network}: region ${JSON.stringify(regionText)} is not an ISO 3166-2 code; region left out`,
        );
        region = null;
      } else if (!region.startsWith(`${country}-`)) {
        report(
          lineNumber,
          'field-dropped',
          `${prefix.network}: region ${region} is not in country ${country}; region left out`,
        );
        region = null;
      }
    }
    const earlier = seen.get(prefix.network);
    if (earlier !== undefined) {
      report(
        lineNumber,
        'dropped',
        `${prefix.network} is listed again (first on line ${earlier}); the first row is used`,
      );
      continue;
    }
    seen.set(prefix.network, lineNumber);
    entries.push({
      ...prefix,
      country,
      region_code: region,
      city: cityText === '' ? null : cityText,
      postal_code: postalText === '' ? null : postalText,
      line: lineNumber,
    });
  }
  for (const overlap of findOverlaps(entries)) report(overlap.line, 'overlap', overlap.message);
  if (problemCount > problems.length)
    problems.push({
      line: 0,
      kind: 'dropped',
      message: `${problemCount - problems.length} more problems not listed`,
    });
  return { entries, problems, rows };
}

interface ParsedPrefix {
  network: string;
  family: 4 | 6;
  start: bigint;
  prefixLength: number;
}

/** A prefix (`192.0.2.0/24`; a bare address is its own /32 or /128), or why it is not one. */
function parsePrefix(text: string): ParsedPrefix | string {
  if (text === '') return 'no prefix';
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const lengthText = slash < 0 ? null : text.slice(slash + 1);
  let address: ReturnType<typeof parseIp>;
  try {
    address = parseIp(addressText);
  } catch {
    return `${JSON.stringify(text)} is not an IP prefix`;
  }
  const family: 4 | 6 = addressText.includes(':') ? 6 : 4;
  if (address.family !== family) return `${JSON.stringify(text)}: an IPv4-mapped prefix; write it as IPv4`;
  const bits = family === 4 ? 32 : 128;
  if (lengthText !== null && !/^\d{1,3}$/.test(lengthText))
    return `${JSON.stringify(text)}: bad prefix length`;
  const prefixLength = lengthText === null ? bits : Number(lengthText);
  if (prefixLength > bits) return `${JSON.stringify(text)}: prefix length over ${bits}`;
  const value = addressToBigInt(address);
  const hostBits = BigInt(bits - prefixLength);
  if ((value & ((1n << hostBits) - 1n)) !== 0n) return `${text}: host bits are set (not a network address)`;
  return { network: `${address.canonical}/${prefixLength}`, family, start: value, prefixLength };
}

/** The fields of one CSV line (RFC 4180 quotes), or null when its quotes do not balance. */
function splitCsvLine(line: string): string[] | null {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (char === ',') {
      fields.push(field.trim());
      field = '';
    } else field += char;
  }
  if (quoted) return null;
  fields.push(field.trim());
  return fields;
}

/** Each row whose prefix lies inside an earlier-sorted wider prefix of the same family. */
function findOverlaps(entries: readonly GeofeedEntry[]): Array<{ line: number; message: string }> {
  const sorted = [...entries].sort((a, b) =>
    a.family !== b.family
      ? a.family - b.family
      : a.start !== b.start
        ? a.start < b.start
          ? -1
          : 1
        : a.prefixLength - b.prefixLength,
  );
  const overlaps: Array<{ line: number; message: string }> = [];
  // The enclosing prefixes still open at this point of the sorted walk.
  const open: GeofeedEntry[] = [];
  for (const entry of sorted) {
    while (open.length > 0) {
      const top = open[open.length - 1] as GeofeedEntry;
      if (top.family === entry.family && entry.start <= endOf(top)) break;
      open.pop();
    }
    const outer = open[open.length - 1];
    if (outer !== undefined)
      overlaps.push({
        line: entry.line,
        message: `${entry.network} lies inside ${outer.network} (line ${outer.line}); the longer prefix wins`,
      });
    open.push(entry);
  }
  return overlaps.sort((a, b) => a.line - b.line);
}

function endOf(entry: GeofeedEntry): bigint {
  const bits = entry.family === 4 ? 32 : 128;
  return entry.start + (1n << BigInt(bits - entry.prefixLength)) - 1n;
}
