import { randomBytes } from 'node:crypto';

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

// Random bytes are drawn from a pool refilled 4 KiB at a time: one randomBytes call per ~240
// ids instead of one per id (a per-request cost on the server). Same CSPRNG, and every byte is
// handed out once, so ids stay as unpredictable as before.
const ID_RANDOM_BYTES = 17; // 26 chars * 5 bits = 130 bits; 17 bytes give 136, of which we use 130
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** The next `ID_RANDOM_BYTES` unused random bytes of the pool (a view: read them before the next call). */
function randomSlice(): Buffer {
  if (poolOffset + ID_RANDOM_BYTES > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + ID_RANDOM_BYTES);
  poolOffset += ID_RANDOM_BYTES;
  return slice;
}

// The random part's characters, written here before they become a string.
const randomChars = Buffer.alloc(RANDOM_CHARS);

/**
 * A new id such as `req_01jd8x…`: 10 characters of millisecond time (so ids sort by creation)
 * followed by 130 random bits, all lowercase Crockford base32.
 */
export function createId(prefix: IdPrefix, now: number = Date.now()): string {
  if (!ID_PREFIXES.includes(prefix)) throw new TypeError(`Unknown id prefix: ${JSON.stringify(prefix)}`);
  if (!Number.isSafeInteger(now) || now < 0) throw new TypeError(`Invalid id time: ${now}`);
  const bytes = randomSlice();
  let buffer = 0;
  let bits = 0;
  let chars = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && chars < RANDOM_CHARS) {
      bits -= 5;
      randomChars[chars++] = ALPHABET_CODES[(buffer >> bits) & 31] as number;
    }
    buffer &= (1 << bits) - 1;
  }
  // One string from the character codes: appending 26 one-character strings cost twice as much.
  const random = randomChars.toString('latin1', 0, RANDOM_CHARS);
  return `${prefix}_${timeChars(now)}${random}`;
}

// The time part of the last millisecond asked about: a busy server makes many ids in each one.
let lastTime = Number.NaN;
let lastTimeChars = '';

/** `now` as TIME_CHARS characters of base32, most significant first. */
function timeChars(now: number): string {
  if (now !== lastTime) {
    let time = '';
    let rest = now;
    for (let i = 0; i < TIME_CHARS; i++) {
      time = ALPHABET[rest % 32] + time;
      rest = Math.floor(rest / 32);
    }
    lastTime = now;
    lastTimeChars = time;
  }
  return lastTimeChars;
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
