import type { IncomingHttpHeaders } from 'node:http';

/** Response headers: one value, or several for a header sent more than once (e.g. `set-cookie`). */
export type FakeHttpHeaders = Record<string, string | number | readonly string[]>;

/** A response the fake servers can give. */
export interface FakeHttpResponse {
  /**
   * The status code, 200..599. A redirect (301, 302, 303, 307, 308) needs a `location` header.
   * @default 200
   */
  status?: number;
  /**
   * Response headers. `content-length` is added from the body unless given here.
   * @default {} (plus a content type, see the server's documentation)
   */
  headers?: FakeHttpHeaders;
  /**
   * The body, sent byte for byte (a string as UTF-8).
   * @default '' (empty)
   */
  body?: string | Uint8Array;
  /**
   * Milliseconds to wait before sending anything (status line included).
   * @default 0
   */
  delayMs?: number;
}

/** One request as a fake server received it. */
export interface RecordedHttpRequest {
  /** The method, e.g. `POST`. */
  readonly method: string;
  /** The request target as sent: path plus query string, e.g. `/hooks?x=1`. */
  readonly path: string;
  /** Headers with lower-cased names, as parsed by `node:http`. */
  readonly headers: IncomingHttpHeaders;
  /** Header names and values exactly as sent, alternating (`node:http` `rawHeaders`). */
  readonly rawHeaders: readonly string[];
  /** The body's exact bytes (empty when there was none). */
  readonly body: Buffer;
  /** `Date.now()` when the whole body had arrived. */
  readonly at: number;
}

/** A response exactly as a fake server sent (or is about to send) it. */
export interface RecordedHttpResponse {
  readonly status: number;
  /** Headers with lower-cased names, including the defaults the server added. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: Buffer;
  /** The delay before it was sent, in milliseconds. */
  readonly delayMs: number;
}
