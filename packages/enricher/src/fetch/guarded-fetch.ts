import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import {
  guardedLookup,
  type HostLookup,
  isPublicIp,
  type ResolvedAddress,
  systemLookup,
} from '@svc/ip-address';

export { type HostLookup, type ResolvedAddress, systemLookup };

/** The User-Agent adapters send unless the operator sets another: it names the project. */
export const DEFAULT_USER_AGENT = 'svc-enricher/0.1 (+https://github.com/svc; enrichment bot)';

export interface GuardedFetchOptions {
  /** The SSRF guard: may this address be connected to? Checked for IP literals and every DNS answer. @default isPublicIp */
  isAllowedAddress?: (ip: string) => boolean;
  /** Resolves host names at connect time. @default systemLookup */
  lookup?: HostLookup;
  /** Sent on every request unless the caller sets its own. @default DEFAULT_USER_AGENT */
  userAgent?: string;
  /** Most response body bytes; a larger body fails the fetch. @default 2 MiB */
  maxBytes?: number;
  /** Deadline for each request (connect, headers and body). @default 10000 */
  timeoutMs?: number;
  /** Most redirects followed, each re-checked by the guard. @default 3 */
  maxRedirects?: number;
}

/** An error the guarded fetch rejects with; `code` says why (ESSRF, ETOOLARGE, ETIMEDOUT, EREDIRECTS, …). */
export class GuardedFetchError extends TypeError {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'GuardedFetchError';
    this.code = code;
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface OneResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: Buffer;
}

function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/**
 * A `fetch` for adapters: only http(s), the SSRF guard on IP literals and on every DNS answer at
 * connect time (a name cannot rebind to an internal address after a check), a User-Agent naming
 * the project, a size cap and a deadline per request, and at most `maxRedirects` redirects, each
 * target re-checked. Bodies are buffered (they are capped), so the Response is complete.
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): typeof fetch {
  const isAllowed = options.isAllowedAddress ?? isPublicIp;
  const lookup = guardedLookup(
    options.lookup ?? systemLookup,
    isAllowed,
  ) as unknown as http.RequestOptions['lookup'];
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 3;

  function once(
    target: URL,
    method: string,
    headers: Headers,
    body: Buffer | undefined,
    signal: AbortSignal | undefined,
  ) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.reject(
        new GuardedFetchError(`only http and https URLs are fetched, not ${target.protocol}`, 'EPROTOCOL'),
      );
    }
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !isAllowed(literal)) {
      return Promise.reject(new GuardedFetchError(`${literal} is a private or reserved address`, 'ESSRF'));
    }
    if (signal?.aborted) return Promise.reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    return new Promise<OneResponse>((resolve, reject) => {
      const client = target.protocol === 'https:' ? https : http;
      const outgoing: Record<string, string> = {};
      headers.forEach((value, name) => {
        outgoing[name] = value;
      });
      if (body) outgoing['content-length'] = String(body.byteLength);
      const request = client.request(
        target,
        { method, headers: outgoing, lookup, timeout: timeoutMs },
        (response) => {
          const chunks: Buffer[] = [];
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > maxBytes) {
              // Reject first, then drop the socket quietly: the rest of the body is never read.
              reject(new GuardedFetchError(`response larger than ${maxBytes} bytes`, 'ETOOLARGE'));
              response.destroy();
              request.destroy();
              return;
            }
            chunks.push(chunk);
          });
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              statusText: response.statusMessage ?? '',
              headers: headersOf(response.rawHeaders),
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      const timeoutError = () =>
        new GuardedFetchError(`no complete response within ${timeoutMs} ms`, 'ETIMEDOUT');
      // One deadline for the whole exchange: a slow-drip body cannot hold an adapter forever.
      const deadline = setTimeout(() => request.destroy(timeoutError()), timeoutMs);
      const onAbort = () => request.destroy(signal?.reason ?? new DOMException('aborted', 'AbortError'));
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('close', () => {
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
      });
      request.on('timeout', () => request.destroy(timeoutError()));
      request.on('error', reject);
      request.end(body);
    });
  }

  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new GuardedFetchError(`not a URL: ${url}`, 'EURL');
    }
    let method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!headers.has('user-agent')) headers.set('user-agent', userAgent);
    let body: Buffer | undefined;
    if (typeof init.body === 'string') body = Buffer.from(init.body);
    else if (init.body instanceof Uint8Array) body = Buffer.from(init.body);
    else if (init.body != null) throw new GuardedFetchError('only string or byte bodies are sent', 'EBODY');
    const signal = init.signal ?? undefined;

    for (let hop = 0; ; hop++) {
      const answer = await once(target, method, headers, body, signal);
      const location = answer.headers.get('location');
      if (!REDIRECTS.has(answer.status) || !location || init.redirect === 'manual') {
        const response = new Response(
          method === 'HEAD' || [204, 304].includes(answer.status) ? null : answer.body,
          {
            status: answer.status,
            statusText: answer.statusText,
            headers: answer.headers,
          },
        );
        // Response.url is read-only and empty for constructed responses; adapters need the final URL.
        Object.defineProperty(response, 'url', { value: target.toString() });
        Object.defineProperty(response, 'redirected', { value: hop > 0 });
        return response;
      }
      if (init.redirect === 'error') throw new GuardedFetchError(`redirected to ${location}`, 'EREDIRECTS');
      if (hop >= maxRedirects)
        throw new GuardedFetchError(`more than ${maxRedirects} redirects`, 'EREDIRECTS');
      const next = new URL(location, target);
      // As browsers do: 303 (and 301/302 after a POST) continue as GET without a body.
      if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      // Credentials never follow a redirect to another origin.
      if (next.origin !== target.origin) {
        headers.delete('authorization');
        headers.delete('cookie');
      }
      target = next;
    }
  };
  return guarded as typeof fetch;
}
