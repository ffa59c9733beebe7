import { createGuardedFetch } from '@svc/enricher';
import type { ListDownload } from '@svc/geo-resolver';

export interface GuardedDownloadOptions {
  /** Let private and loopback addresses through the SSRF guard (they are refused otherwise). */
  allowPrivate: boolean;
  timeoutMs: number;
  /** The most the guard reads of any answer; each download's own bound is checked as well. */
  maxBytes: number;
  /** Told each URL before it is fetched. */
  onFetch?: (url: string) => void;
}

/**
 * A download (of a geofeed or a network list) through the SSRF guard, five redirects at most: the
 * body, or an error naming the URL when the fetch fails, the answer is not 2xx or the body is over
 * the download's `maxBytes`.
 */
export function guardedDownload(options: GuardedDownloadOptions): ListDownload {
  const guarded = createGuardedFetch({
    ...(options.allowPrivate ? { isAllowedAddress: () => true } : {}),
    timeoutMs: options.timeoutMs,
    maxRedirects: 5,
    maxBytes: options.maxBytes,
  });
  return async (url, maxBytes) => {
    options.onFetch?.(url);
    let response: Response;
    try {
      response = await guarded(url);
    } catch (error) {
      throw new Error(`${url}: ${(error as Error).message}`);
    }
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length > maxBytes) throw new Error(`${url}: larger than ${maxBytes} bytes`);
    return body;
  };
}
