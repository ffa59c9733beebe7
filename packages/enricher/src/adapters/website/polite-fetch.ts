import { decodeHtml } from './charset.js';
import { HostLimiter } from './host-limiter.js';
import { ALLOW_ALL, parseRobots, type RobotsRules } from './robots.js';

/** Limits of the polite fetcher (resolved defaults: see `WebsiteAdapterOptions`). */
export interface PoliteFetchLimits {
  productToken: string;
  perHostConcurrency: number;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  robotsTtlMs: number;
}

/** One HTML page fetched. */
export interface FetchedPage {
  type: 'page';
  url: string;
  status: number;
  headers: Headers;
  cookies: string[];
  html: string;
  /** The body was longer than `maxBytes`; `html` is its beginning. */
  truncated: boolean;
}

/** Why no page came back. */
export type PageFailure =
  | { type: 'disallowed'; url: string }
  | { type: 'not_html'; url: string; contentType: string }
  | { type: 'status'; url: string; status: number; retryAfter: string | null }
  | { type: 'too_many_redirects'; url: string }
  | { type: 'timeout'; url: string }
  | { type: 'too_large'; url: string }
  | { type: 'unreachable'; url: string; message: string };

const MAX_ROBOTS_BYTES = 500 * 1024; // RFC 9309 §2.5: parse at least 500 KiB
const ROBOTS_CACHE_ENTRIES = 1000;

function isHtml(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  // No content type at all: browsers sniff; we accept it as HTML and let the parser cope.
  return type === '' || type === 'text/html' || type === 'application/xhtml+xml';
}

/** Reads at most `maxBytes` of a body, then cancels the rest (a huge page costs only the cap). */
async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength >= room) {
      chunks.push(value.subarray(0, room));
      size += room;
      truncated = value.byteLength > room;
      if (!truncated) {
        // Exactly at the cap: the body may still be longer, one more read tells.
        const next = await reader.read();
        truncated = !next.done;
      }
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { bytes: Buffer.concat(chunks), truncated };
}

function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

/**
 * Fetches pages the way a well-behaved crawler does: robots.txt first (cached per origin), a
 * bounded number of requests per host, a time and size cap per page, redirects followed by hand
 * (each hop checked against robots.txt and sent through the guarded `fetch` again).
 */
export class PoliteFetcher {
  readonly #limits: PoliteFetchLimits;
  readonly #hosts: HostLimiter;
  readonly #robots = new Map<string, { expires: number; rules: Promise<RobotsRules | PageFailure> }>();

  constructor(limits: PoliteFetchLimits) {
    this.#limits = limits;
    this.#hosts = new HostLimiter(limits.perHostConcurrency);
  }

  /** Requests in flight to `host` (tests assert the per-host cap with it). */
  activeRequests(host: string): number {
    return this.#hosts.active(host);
  }

  /** Fetches one HTML page; never throws for the site's failures, only when `signal` is aborted. */
  async page(
    url: string,
    fetchFn: typeof fetch,
    signal: AbortSignal,
    now: () => number,
  ): Promise<FetchedPage | PageFailure> {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      const rules = await this.#robotsFor(current.origin, fetchFn, signal, now);
      // robots.txt unavailable (5xx, 429, timeout, no server): RFC 9309 says fetch nothing; the
      // lookup reports why, as it would for the page itself.
      if ('type' in rules) return rules;
      if (!rules.isAllowed(current.pathname + current.search))
        return { type: 'disallowed', url: current.href };
      const result = await this.#get(current, fetchFn, signal, 'html');
      if (result.type !== 'redirect') return result;
      if (hop >= this.#limits.maxRedirects) return { type: 'too_many_redirects', url: current.href };
      current = result.location;
    }
  }

  async #robotsFor(
    origin: string,
    fetchFn: typeof fetch,
    signal: AbortSignal,
    now: () => number,
  ): Promise<RobotsRules | PageFailure> {
    const cached = this.#robots.get(origin);
    if (cached && cached.expires > now()) return cached.rules;
    // Stored as a promise so concurrent lookups on one site fetch robots.txt once.
    const rules = this.#fetchRobots(origin, fetchFn, signal);
    if (this.#robots.size >= ROBOTS_CACHE_ENTRIES) this.#robots.delete(this.#robots.keys().next().value!);
    this.#robots.set(origin, { expires: now() + this.#limits.robotsTtlMs, rules });
    try {
      const answer = await rules;
      // Only real rules are kept; an unavailable robots.txt is asked again by the next lookup.
      if ('type' in answer) this.#robots.delete(origin);
      return answer;
    } catch (error) {
      // Only an abort of this caller rejects; do not keep that for the next caller.
      this.#robots.delete(origin);
      throw error;
    }
  }

  async #fetchRobots(
    origin: string,
    fetchFn: typeof fetch,
    signal: AbortSignal,
  ): Promise<RobotsRules | PageFailure> {
    let current = new URL('/robots.txt', origin);
    for (let hop = 0; hop <= this.#limits.maxRedirects; hop++) {
      const result = await this.#get(current, fetchFn, signal, 'robots');
      if (result.type === 'redirect') {
        current = result.location;
        continue;
      }
      if (result.type === 'page') return parseRobots(result.html, this.#limits.productToken);
      // RFC 9309 §2.3.1: 4xx means no restrictions; 5xx (and 429) or no answer means complete disallow.
      if (result.type === 'status' && result.status >= 400 && result.status < 500 && result.status !== 429)
        return ALLOW_ALL;
      return result;
    }
    return ALLOW_ALL; // a robots.txt redirect loop: RFC 9309 §2.3.1.2 treats it as unavailable (4xx)
  }

  async #get(
    url: URL,
    fetchFn: typeof fetch,
    signal: AbortSignal,
    kind: 'html' | 'robots',
  ): Promise<FetchedPage | PageFailure | { type: 'redirect'; location: URL }> {
    if (signal.aborted) throw signal.reason;
    return this.#hosts.run(url.host, signal, async () => {
      // The deadline starts with the request, not in the host's queue: waiting our turn is politeness, not the site's slowness.
      const timeout = AbortSignal.timeout(this.#limits.timeoutMs);
      const both = AbortSignal.any([signal, timeout]);
      try {
        const response = await fetchFn(url, {
          redirect: 'manual',
          signal: both,
          headers: {
            accept: kind === 'robots' ? 'text/plain, */*;q=0.5' : 'text/html, application/xhtml+xml;q=0.9',
          },
        });
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          discard(response);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            return {
              type: 'unreachable',
              url: url.href,
              message: `bad redirect location ${JSON.stringify(location)}`,
            };
          }
          if (next.protocol !== 'http:' && next.protocol !== 'https:') {
            return { type: 'unreachable', url: url.href, message: `redirect to ${next.protocol} refused` };
          }
          return { type: 'redirect', location: next };
        }
        if (response.status < 200 || response.status >= 300) {
          discard(response);
          return {
            type: 'status',
            url: url.href,
            status: response.status,
            retryAfter: response.headers.get('retry-after'),
          };
        }
        const contentType = response.headers.get('content-type') ?? '';
        if (kind === 'html' && !isHtml(contentType)) {
          discard(response);
          return { type: 'not_html', url: url.href, contentType };
        }
        const { bytes, truncated } = await readCapped(
          response,
          kind === 'robots' ? MAX_ROBOTS_BYTES : this.#limits.maxBytes,
        );
        return {
          type: 'page',
          url: url.href,
          status: response.status,
          headers: response.headers,
          cookies: response.headers.getSetCookie().map((c) => c.split('=', 1)[0]!.trim()),
          html: kind === 'robots' ? new TextDecoder().decode(bytes) : decodeHtml(bytes, contentType),
          truncated,
        };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const failure = error as {
          code?: string;
          message?: string;
          cause?: { code?: string; message?: string };
        };
        const code = failure.code ?? failure.cause?.code;
        // The guarded fetch buffers bodies under its own cap and deadline and says which one tripped.
        if (timeout.aborted || code === 'ETIMEDOUT') return { type: 'timeout', url: url.href };
        if (code === 'ETOOLARGE') return { type: 'too_large', url: url.href };
        const message = [code, failure.cause?.message ?? failure.message].filter(Boolean).join(': ');
        return { type: 'unreachable', url: url.href, message: message || 'request failed' };
      }
    });
  }
}
