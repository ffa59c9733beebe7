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

// The random part is taken from a pool of ready-made characters: 16 KiB of CSPRNG bytes, each
// turned into the alphabet character of its low 5 bits when the pool is refilled (256 is a
// multiple of 32, so every character is equally likely). One CSPRNG call per ~630 ids, and an
// id copies its 26 characters instead of cutting 5-bit groups out of bytes one by one (a simpler
// loop; under callgrind the id's own cost moved little, so this is not where a server's time
// went). Every byte is used once, so ids are as unpredictable as before: 26 characters of 5
// random bits each, 130 bits.
const randomChars = Buffer.alloc(16 * 1024);
let randomOffset = randomChars.length;

/** Where the next RANDOM_CHARS unused random characters of the pool start (read them before the next call). */
function takeRandomChars(): number {
  if (randomOffset + RANDOM_CHARS > randomChars.length) {
    randomFillSync(randomChars);
    for (let index = 0; index < randomChars.length; index++) {
      randomChars[index] = ALPHABET_CODES[(randomChars[index] as number) & 31] as number;
    }
    randomOffset = 0;
  }
  const start = randomOffset;
  randomOffset += RANDOM_CHARS;
  return start;
}

/**
 * Per prefix, the character codes of its ids: the prefix and `_` written once, the time and
 * random characters written into the rest for each id. `String.fromCharCode` makes them one flat
 * string: joining the prefix, the time and the random part as strings made a string of three
 * pieces, copied again wherever it was used (a header, a log line), and `Buffer#toString` (in a
 * microbenchmark) cost more in its argument handling than in making the string.
 */
const ID_CODES = new Map<string, number[]>(
  ID_PREFIXES.map((prefix) => [
    prefix,
    [...`${prefix}_`].map((char) => char.charCodeAt(0)).concat(new Array(TIME_CHARS + RANDOM_CHARS).fill(0)),
  ]),
);

/**
 * A new id such as `req_01jd8x…`: 10 characters of millisecond time (so ids sort by creation)
 * followed by 130 random bits, all lowercase Crockford base32.
 */
export function createId(prefix: IdPrefix, now: number = Date.now()): string {
  const codes = ID_CODES.get(prefix);
  if (!codes) throw new TypeError(`Unknown id prefix: ${JSON.stringify(prefix)}`);
  if (!Number.isSafeInteger(now) || now < 0) throw new TypeError(`Invalid id time: ${now}`);
  let at = codes.length - TIME_CHARS - RANDOM_CHARS;
  const time = timeCodes(now);
  for (let index = 0; index < TIME_CHARS; index++) codes[at++] = time[index] as number;
  const start = takeRandomChars();
  for (let index = start; at < codes.length; index++) codes[at++] = randomChars[index] as number;
  return String.fromCharCode.apply(null, codes);
}

// The time part of the last millisecond asked about: a busy server makes many ids in each one.
let lastTime = Number.NaN;
const lastTimeCodes = Buffer.alloc(TIME_CHARS);

/** Half of the time part: 5 characters, 25 bits. */
const HALF_BITS = 25;

/** `now` as TIME_CHARS character codes of base32, most significant first. */
function timeCodes(now: number): Buffer {
  if (now !== lastTime) {
    // In two halves of 25 bits, so the arithmetic is on small integers: `%` and division on a
    // number of 41 bits and more is floating point, several times the cost.
    let high = Math.floor(now / 2 ** HALF_BITS);
    let low = now - high * 2 ** HALF_BITS;
    for (let index = TIME_CHARS - 1; index >= 0; index--) {
      const upper = index < TIME_CHARS / 2;
      lastTimeCodes[index] = ALPHABET_CODES[(upper ? high : low) & 31] as number;
      if (upper) high >>>= 5;
      else low >>>= 5;
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
