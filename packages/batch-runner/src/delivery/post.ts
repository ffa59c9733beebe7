import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, type HostLookup, type ResolvedAddress, systemLookup } from '@svc/ip-address';

/** The outcome of one delivery attempt, as logged. */
export interface AttemptResult {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  latencyMs: number;
  /** Why the attempt failed before a response (timeout, refused, SSRF guard, …). */
  error: string | null;
  /** Retry-After header of the response, if any. */
  retryAfter: string | null;
  /** The first bytes of the response body, for the attempt log. */
  bodyExcerpt: string;
}

/**
 * Resolves a webhook host to every address it has. Injected for tests and for a custom resolver;
 * whatever it returns still goes through the SSRF guard.
 */
export type WebhookLookup = HostLookup;
export { type ResolvedAddress, systemLookup };

/** Options of one POST. */
export interface PostOptions {
  headers: Record<string, string>;
  /** @default 15000 */
  timeoutMs?: number;
  /** Most response bytes read; the rest is discarded. @default 4096 */
  maxResponseBytes?: number;
  /** Decides whether an address may be connected to (the SSRF guard); checked for literals and every DNS answer. */
  isAllowedAddress: (ip: string) => boolean;
  /** Resolves the URL's host name at connect time. @default systemLookup */
  lookup?: WebhookLookup;
}

/**
 * POSTs a webhook body once: no redirects followed (a 3xx is a failed attempt), a hard timeout,
 * at most a few KB of the response read, and the SSRF guard applied to IP literals and to every
 * DNS answer at connect time (so a name cannot rebind to an internal address after a check).
 */
export function postWebhook(url: string, body: string, options: PostOptions): Promise<AttemptResult> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxResponseBytes ?? 4096;
  const finish = (partial: Partial<AttemptResult>): AttemptResult => ({
    status: null,
    error: null,
    retryAfter: null,
    bodyExcerpt: '',
    ...partial,
    latencyMs: Math.round(performance.now() - started),
  });

  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(finish({ error: `not a URL: ${url}` }));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve(
      finish({ error: `only http and https URLs are delivered to, not ${target.protocol}` }),
    );
  }
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !options.isAllowedAddress(literal)) {
    return Promise.resolve(finish({ error: `${literal} is a private or reserved address` }));
  }

  return new Promise((resolve) => {
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(
          options.lookup ?? systemLookup,
          options.isAllowedAddress,
        ) as unknown as http.RequestOptions['lookup'],
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          if (received < maxBytes) chunks.push(chunk.subarray(0, maxBytes - received));
          received += chunk.length;
          // Stop reading a huge body: we only log its beginning.
          if (received >= maxBytes) response.destroy();
        });
        const done = () =>
          resolve(
            finish({
              status: response.statusCode ?? null,
              retryAfter: (response.headers['retry-after'] as string | undefined) ?? null,
              bodyExcerpt: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        response.on('end', done);
        response.on('close', done);
      },
    );
    // One deadline for the whole exchange, headers and body included.
    const deadline = setTimeout(
      () =>
        request.destroy(
          Object.assign(new Error(`no response within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }),
        ),
      timeoutMs,
    );
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () =>
      request.destroy(Object.assign(new Error(`no response within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
    );
    request.on('error', (error) => resolve(finish({ error: error.message })));
    request.end(body);
  });
}
