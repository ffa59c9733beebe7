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
const BODY = new RegExp(`^[${ALPHABET}]{${TIME_CHARS + RANDOM_CHARS}}$`);

// Random bytes come from a pool refilled 4 KiB at a time: one CSPRNG call per ~150 ids instead of
// one per id (the server makes an id per request). Every byte is used once, for one character
// (its low 5 bits: 256 is a multiple of 32, so every character is equally likely).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/**
 * A new id such as `req_01jd8x…`: 10 characters of millisecond time (so ids sort by creation)
 * followed by 130 random bits, all lowercase Crockford base32.
 */
export function createId(prefix: IdPrefix, now: number = Date.now()): string {
  if (!ID_PREFIXES.includes(prefix)) throw new TypeError(`Unknown id prefix: ${JSON.stringify(prefix)}`);
  if (!Number.isSafeInteger(now) || now < 0) throw new TypeError(`Invalid id time: ${now}`);
  let time = '';
  for (let rest = now, index = 0; index < TIME_CHARS; index++, rest = Math.floor(rest / 32)) {
    time = ALPHABET[rest % 32] + time;
  }
  if (poolOffset + RANDOM_CHARS > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let random = '';
  for (let index = 0; index < RANDOM_CHARS; index++) random += ALPHABET[(pool[poolOffset++] as number) & 31];
  return `${prefix}_${time}${random}`;
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
