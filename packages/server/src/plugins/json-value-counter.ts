const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * Counts the values of JSON text as its bytes arrive, without parsing or decoding it: one, plus
 * one per `{`, `[` and `,` outside strings (objects and arrays, and the members and items between
 * their commas). Strings are jumped over with `indexOf` for their closing quote; a string, or an
 * escape, may end in a later chunk. UTF-8 needs no decoding for this: every byte of a multi-byte
 * character is 0x80 or above, never one of the bytes looked for. Malformed text may be
 * miscounted; its parse fails anyway.
 *
 * The json-body plugin feeds it each chunk of a request body as it is received, so a body with
 * more values than its endpoint accepts is refused at the chunk that crosses the limit, before the
 * rest is read, decoded or parsed.
 */
export class JsonValueCounter {
  /** Values seen so far. */
  count = 1;
  #inString = false;
  /** Inside a string, the previous chunk ended in an odd run of backslashes: this chunk's first byte is escaped. */
  #escaped = false;

  constructor(readonly max: number) {}

  /** Counts the values in `chunk`; true once more than `max` have been seen (the rest of the chunk is not looked at). */
  write(chunk: Uint8Array): boolean {
    const length = chunk.length;
    let i = 0;
    while (i < length) {
      if (this.#inString) {
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          continue;
        }
        const quote = chunk.indexOf(QUOTE, i);
        if (quote === -1) {
          this.#escaped = oddBackslashesBefore(chunk, length, i);
          return false;
        }
        // A quote after an odd run of backslashes is part of the string.
        if (!oddBackslashesBefore(chunk, quote, i)) this.#inString = false;
        i = quote + 1;
        continue;
      }
      const byte = chunk[i++];
      if (byte === QUOTE) this.#inString = true;
      else if ((byte === COMMA || byte === OPEN_BRACE || byte === OPEN_BRACKET) && ++this.count > this.max)
        return true;
    }
    return false;
  }
}

/** Whether the bytes from `start` up to `end` end in an odd number of backslashes. */
function oddBackslashesBefore(chunk: Uint8Array, end: number, start: number): boolean {
  let at = end - 1;
  while (at >= start && chunk[at] === BACKSLASH) at--;
  return (end - 1 - at) % 2 === 1;
}
