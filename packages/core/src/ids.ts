import { randomFillSync } from 'node:crypto';

/**
 * The id kinds of the API and their prefixes: requests, batch jobs, webhook events, tokens, and
 * the server's accounts, API keys and webhook signing secrets (ids to manage them by, never the
 * secrets themselves).
 */
export const ID_PREFIXES = ['req', 'batch', 'evt', 'tok', 'acct', 'key', 'wsec'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

// Crockford base32, lowercase: URL-safe, unambiguous, and ASCII-ascending so ids sort by time.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const TIME_CHARS = 10; // 50 bits: milliseconds until the year 37,000
const RANDOM_CHARS = 26; // 130 random bits
const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');
const BODY = new RegExp(`^[${ALPHABET}]{${TIME_CHARS + RANDOM_CHARS}}$`);

// Random bytes are drawn from a pool refilled 16 KiB at a time, in place: one CSPRNG call per
// ~960 ids instead of one per id (a per-request cost on the server). Same CSPRNG, and every byte
// is handed out once, so ids stay as unpredictable as before.
const ID_RANDOM_BYTES = 17; // 26 chars * 5 bits = 130 bits; 17 bytes give 136, of which we use 130
const pool = Buffer.alloc(16 * 1024);
let poolOffset = pool.length;

/** Where the next `ID_RANDOM_BYTES` unused random bytes of the pool start (read them before the next call). */
function takeRandomBytes(): number {
  if (poolOffset + ID_RANDOM_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += ID_RANDOM_BYTES;
  return start;
}

// Each prefix with its `_`, as character codes.
const PREFIX_CODES = new Map<string, Buffer>(
  ID_PREFIXES.map((prefix) => [prefix, Buffer.from(`${prefix}_`, 'latin1')]),
);
const LONGEST_PREFIX = Math.max(...[...PREFIX_CODES.values()].map((codes) => codes.length));

// The id's characters are written here and become one string: joining the prefix, the time and
// the random part as strings made a string of three pieces, copied again wherever it was used
// (a header, a log line).
const idChars = Buffer.alloc(LONGEST_PREFIX + TIME_CHARS + RANDOM_CHARS);

/**
 * A new id such as `req_01jd8x…`: 10 characters of millisecond time (so ids sort by creation)
 * followed by 130 random bits, all lowercase Crockford base32.
 */
export function createId(prefix: IdPrefix, now: number = Date.now()): string {
  const prefixCodes = PREFIX_CODES.get(prefix);
  if (!prefixCodes) throw new TypeError(`Unknown id prefix: ${JSON.stringify(prefix)}`);
  if (!Number.isSafeInteger(now) || now < 0) throw new TypeError(`Invalid id time: ${now}`);
  // Byte by byte: Buffer#copy makes a view of its source on every call.
  let at = 0;
  for (let index = 0; index < prefixCodes.length; index++) idChars[at++] = prefixCodes[index] as number;
  const time = timeCodes(now);
  for (let index = 0; index < TIME_CHARS; index++) idChars[at++] = time[index] as number;
  const start = takeRandomBytes();
  let buffer = 0;
  let bits = 0;
  const end = at + RANDOM_CHARS;
  for (let index = start; index < start + ID_RANDOM_BYTES; index++) {
    buffer = (buffer << 8) | (pool[index] as number);
    bits += 8;
    while (bits >= 5 && at < end) {
      bits -= 5;
      idChars[at++] = ALPHABET_CODES[(buffer >> bits) & 31] as number;
    }
    buffer &= (1 << bits) - 1;
  }
  return idChars.toString('latin1', 0, end);
}

// The time part of the last millisecond asked about: a busy server makes many ids in each one.
let lastTime = Number.NaN;
const lastTimeCodes = Buffer.alloc(TIME_CHARS);

/** `now` as TIME_CHARS character codes of base32, most significant first. */
function timeCodes(now: number): Buffer {
  if (now !== lastTime) {
    let rest = now;
    for (let index = TIME_CHARS - 1; index >= 0; index--) {
      lastTimeCodes[index] = ALPHABET_CODES[rest % 32] as number;
      rest = Math.floor(rest / 32);
    }
    lastTime = now;
  }
  return lastTimeCodes;
}

/** True when `value` is a well-formed id with the given prefix. */
export function isId(prefix: IdPrefix, value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith(`${prefix}_`)) return false;
  return BODY.test(value.slice(prefix.length + 1));
}

/** The creation time (ms since epoch) encoded in an id, or throws TypeError for a malformed id. */
export function idTimestamp(id: string): number {
  const separator = id.indexOf('_');
  const prefix = id.slice(0, separator) as IdPrefix;
  if (separator < 0 || !isId(prefix, id)) throw new TypeError(`Not an id: ${JSON.stringify(id)}`);
  let time = 0;
  for (const char of id.slice(separator + 1, separator + 1 + TIME_CHARS))
    time = time * 32 + ALPHABET.indexOf(char);
  return time;
}
