import { STATUS_CODES } from 'node:http';
import type {
  FakeHttpHeaders,
  FakeHttpResponse,
  RecordedHttpRequest,
  RecordedHttpResponse,
} from './types.js';
import {
  checkBody,
  checkCount,
  checkDelay,
  checkHeaders,
  checkKeys,
  checkResponse,
  checkStatus,
  fail,
  isRecord,
  show,
} from './validate.js';

/** A request as the webhook receiver got it, numbered in arrival order. */
export interface WebhookRequest extends RecordedHttpRequest {
  /** 0-based arrival order over the receiver's lifetime. */
  readonly index: number;
}

/** Decides one response; `'hang'` never answers (until `close()`). */
export type WebhookResponder = (request: WebhookRequest, index: number) => FakeHttpResponse | 'hang';

/** How the webhook receiver answers. Counting starts again whenever a behaviour is set. */
export interface WebhookBehaviour {
  /**
   * Answer this many requests (from when the behaviour was set) with `failStatus` first.
   * @default 0
   */
  failFirst?: number;
  /**
   * The status of those failures.
   * @default 500
   */
  failStatus?: number;
  /**
   * The status of every other answer, e.g. 410 for a receiver that is gone, 503 for one that is down.
   * @default 200
   */
  status?: number;
  /**
   * Extra headers on every answer.
   * @default {}
   */
  headers?: FakeHttpHeaders;
  /**
   * The body of non-failure answers.
   * @default '{"received":true}' for 2xx, else '{"error":"<reason phrase>"}'
   */
  body?: string | Uint8Array;
  /**
   * Instead of `body`, a body of exactly this many bytes (`x` repeated), e.g. to check that a
   * sender caps what it reads. At most 512 MiB.
   * @default undefined (use `body`)
   */
  bodyBytes?: number;
  /**
   * A `Retry-After` header (seconds, or an HTTP date) on every non-2xx answer.
   * @default undefined (no header)
   */
  retryAfter?: number | string;
  /**
   * Milliseconds to wait before answering anything.
   * @default 0
   */
  delayMs?: number;
  /**
   * Never answer: the request stays open until the client gives up or `close()` is called.
   * @default false
   */
  hang?: boolean;
  /**
   * Decide each answer yourself from the request and its 0-based index since the behaviour was
   * set; cannot be combined with the other fields. If it throws or returns an invalid
   * response, the receiver answers 500 with the error message as a text body.
   * @default undefined
   */
  respond?: WebhookResponder;
}

/** A validated behaviour with its answers built once. */
export interface ResolvedBehaviour {
  readonly failFirst: number;
  readonly failure: RecordedHttpResponse;
  readonly normal: RecordedHttpResponse;
  readonly hang: boolean;
  readonly respond: WebhookResponder | undefined;
}

export const BEHAVIOUR_KEYS: readonly (keyof WebhookBehaviour)[] = [
  'failFirst',
  'failStatus',
  'status',
  'headers',
  'body',
  'bodyBytes',
  'retryAfter',
  'delayMs',
  'hang',
  'respond',
];
const MAX_BODY_BYTES = 512 * 1024 * 1024;

/** Our default bodies are JSON; a given string is text and given bytes are opaque. */
function typeOf(body: unknown): () => string {
  if (body === undefined) return () => 'application/json';
  return typeof body === 'string' ? () => 'text/plain; charset=utf-8' : () => 'application/octet-stream';
}

function defaultBody(status: number): Buffer {
  if (status >= 200 && status < 300) return Buffer.from('{"received":true}');
  return Buffer.from(JSON.stringify({ error: STATUS_CODES[status] ?? 'error' }));
}

function answer(
  where: string,
  status: number,
  given: { body: Buffer | undefined; raw: unknown },
  shared: { headers: FakeHttpHeaders; retryAfter: string | undefined; delayMs: number },
): RecordedHttpResponse {
  const ok = status >= 200 && status < 300;
  const headers = { ...shared.headers };
  if (!ok && shared.retryAfter !== undefined) headers['retry-after'] ??= shared.retryAfter;
  const fallback = defaultBody(status);
  return checkResponse(
    where,
    { status, headers, body: given.body ?? fallback, delayMs: shared.delayMs },
    { status, body: fallback, contentType: typeOf(given.raw) },
  );
}

function checkRetryAfter(where: string, value: unknown): string {
  if (typeof value === 'number') return String(checkCount(where, value));
  if (typeof value !== 'string' || value.trim() === '') {
    fail(where, `must be a number of seconds or an HTTP date string, got ${show(value)}`);
  }
  return value;
}

/** Validates a behaviour (`where` names it in errors) and builds its answers. */
export function resolveBehaviour(
  where: string,
  value: unknown,
  extraKeys: readonly string[] = [],
): ResolvedBehaviour {
  if (!isRecord(value)) fail(where, `must be an object, got ${show(value)}`);
  checkKeys(where, value, new Set<string>([...BEHAVIOUR_KEYS, ...extraKeys]));
  const b = value as WebhookBehaviour;
  if (b.respond !== undefined) {
    if (typeof b.respond !== 'function')
      fail(`${where}.respond`, `must be a function, got ${show(b.respond)}`);
    const others = BEHAVIOUR_KEYS.filter((k) => k !== 'respond' && b[k] !== undefined);
    if (others.length > 0)
      fail(`${where}.respond`, `decides every answer; do not combine it with ${others.join(', ')}`);
  }
  if (b.hang !== undefined && typeof b.hang !== 'boolean')
    fail(`${where}.hang`, `must be a boolean, got ${show(b.hang)}`);
  if (b.body !== undefined && b.bodyBytes !== undefined) fail(where, 'cannot have both body and bodyBytes');
  let body = b.body === undefined ? undefined : checkBody(`${where}.body`, b.body);
  if (b.bodyBytes !== undefined) {
    const size = checkCount(`${where}.bodyBytes`, b.bodyBytes);
    if (size > MAX_BODY_BYTES) fail(`${where}.bodyBytes`, `must be at most ${MAX_BODY_BYTES}, got ${size}`);
    body = Buffer.alloc(size, 'x');
  }
  const shared = {
    headers: b.headers === undefined ? {} : checkHeaders(`${where}.headers`, b.headers),
    retryAfter: b.retryAfter === undefined ? undefined : checkRetryAfter(`${where}.retryAfter`, b.retryAfter),
    delayMs: b.delayMs === undefined ? 0 : checkDelay(`${where}.delayMs`, b.delayMs),
  };
  const failStatus = b.failStatus === undefined ? 500 : checkStatus(`${where}.failStatus`, b.failStatus);
  const status = b.status === undefined ? 200 : checkStatus(`${where}.status`, b.status);
  return {
    failFirst: b.failFirst === undefined ? 0 : checkCount(`${where}.failFirst`, b.failFirst),
    failure: answer(where, failStatus, { body: undefined, raw: undefined }, shared),
    normal: answer(where, status, { body, raw: b.bodyBytes === undefined ? b.body : body }, shared),
    hang: b.hang ?? false,
    respond: b.respond,
  };
}

/** The answer to the `n`th request (0-based) since `behaviour` was set. */
export function decide(
  behaviour: ResolvedBehaviour,
  request: WebhookRequest,
  n: number,
): RecordedHttpResponse | 'hang' {
  if (behaviour.hang) return 'hang';
  if (behaviour.respond === undefined) return n < behaviour.failFirst ? behaviour.failure : behaviour.normal;
  try {
    const result = behaviour.respond(request, n);
    if (result === 'hang') return 'hang';
    const status = isRecord(result) && typeof result.status === 'number' ? result.status : 200;
    return checkResponse(`WebhookBehaviour.respond(request ${request.index}) result`, result, {
      status: 200,
      body: defaultBody(status),
      contentType: typeOf(isRecord(result) ? result.body : undefined),
    });
  } catch (error) {
    const body = Buffer.from(error instanceof Error ? error.message : String(error));
    const headers = {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(body.byteLength),
    };
    return { status: 500, headers, body, delayMs: 0 };
  }
}
