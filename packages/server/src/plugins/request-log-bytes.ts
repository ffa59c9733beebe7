import type { FastifyReply, FastifyRequest } from 'fastify';
import { endpointOf } from './auth.js';

// The request line encoded straight into the log's byte buffer: no string is made for it. Built
// as a template string, the line was some twenty short-lived strings and a flattened copy, about
// 1 KB of garbage a request (a fifth of all ours allocates beyond the bare route), and it cost
// several µs natively where its instructions were a fraction of one. Only ASCII that JSON need
// not escape is encoded here; a line with anything else (a path with a quote, a backslash, a
// control or non-ASCII character, or a very long one) returns false and is written as a string.

/** Paths longer than this go the string way (a line must fit the room reserved for it). */
const MAX_PATH = 512;

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text);

/** The fixed pieces of the line, as bytes. */
const PIECES = {
  start: bytesOf('{"level":30,"time":'),
  requestId: bytesOf(',"request_id":"'),
  method: bytesOf('","method":"'),
  path: bytesOf('","path":"'),
  status: bytesOf('","status":'),
  endpoint: bytesOf(',"endpoint":'),
  account: bytesOf(',"account_id":'),
  ms: bytesOf(',"ms":'),
  end: bytesOf(',"msg":"request"}\n'),
  null: bytesOf('null'),
};

/** Copies `piece` to `at`; returns the offset after it. */
function put(buffer: Buffer, at: number, piece: Uint8Array): number {
  buffer.set(piece, at);
  return at + piece.length;
}

/**
 * Writes characters `from`…`to` of `text` when each is printable ASCII that JSON leaves as it is;
 * returns the offset after them, or -1 (with garbage written) when one is not.
 */
function ascii(buffer: Buffer, at: number, text: string, from = 0, to = text.length): number {
  let offset = at;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return -1;
    buffer[offset++] = code;
  }
  return offset;
}

/** Writes a whole number ≥ 0 in decimal; returns the offset after it. */
function digits(buffer: Buffer, at: number, value: number): number {
  let divisor = 1;
  while (divisor * 10 <= value) divisor *= 10;
  let offset = at;
  let rest = value;
  for (; divisor >= 1; divisor /= 10) {
    const digit = Math.floor(rest / divisor);
    buffer[offset++] = 0x30 + digit;
    rest -= digit * divisor;
  }
  return offset;
}

/** A quoted id of ours, or null; -1 when it is not plain ASCII. */
function idOrNull(buffer: Buffer, at: number, value: string | null): number {
  if (value === null) return put(buffer, at, PIECES.null);
  buffer[at] = 0x22;
  const end = ascii(buffer, at + 1, value);
  if (end < 0) return -1;
  buffer[end] = 0x22;
  return end + 1;
}

/** Room a line needs at most, for logger bindings of `bindingsBytes` bytes. */
export function maxLineBytes(bindingsBytes: number): number {
  // The fixed pieces, the numbers, two ids and the method, with room to spare.
  return 512 + MAX_PATH + bindingsBytes;
}

/**
 * Encodes the request's line into `buffer` from `at`, the same line as the string way writes
 * (see request-log.ts): returns the offset after it, or -1 when it must go the string way.
 */
export function encodeRequestLine(
  buffer: Buffer,
  at: number,
  bindings: Uint8Array,
  request: FastifyRequest,
  reply: FastifyReply,
): number {
  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  const pathEnd = query < 0 ? url.length : query;
  if (pathEnd > MAX_PATH) return -1;
  let offset = put(buffer, at, PIECES.start);
  offset = digits(buffer, offset, Date.now());
  offset = put(buffer, offset, bindings);
  offset = put(buffer, offset, PIECES.requestId);
  offset = ascii(buffer, offset, request.id);
  if (offset < 0) return -1;
  offset = put(buffer, offset, PIECES.method);
  offset = ascii(buffer, offset, request.method);
  if (offset < 0) return -1;
  offset = put(buffer, offset, PIECES.path);
  offset = ascii(buffer, offset, url, 0, pathEnd);
  if (offset < 0) return -1;
  offset = put(buffer, offset, PIECES.status);
  offset = digits(buffer, offset, reply.statusCode);
  offset = put(buffer, offset, PIECES.endpoint);
  offset = idOrNull(buffer, offset, endpointOf(request) ?? null);
  if (offset < 0) return -1;
  offset = put(buffer, offset, PIECES.account);
  offset = idOrNull(buffer, offset, request.auth?.account.id ?? null);
  if (offset < 0) return -1;
  offset = put(buffer, offset, PIECES.ms);
  // As `${Math.round(ms * 10) / 10}` prints it: "12" or "12.3".
  const tenths = Math.max(0, Math.round(reply.elapsedTime * 10));
  offset = digits(buffer, offset, Math.floor(tenths / 10));
  if (tenths % 10 !== 0) {
    buffer[offset++] = 0x2e;
    buffer[offset++] = 0x30 + (tenths % 10);
  }
  return put(buffer, offset, PIECES.end);
}
