import { createGuardedFetch } from '@svc/enricher';
import { type GeofeedBackend, type ListDownload, openGeofeedBackend } from '@svc/geo-resolver';

/** Bad rows logged per feed and load; the rest are counted. */
const LOGGED_PROBLEMS = 20;
const MAX_FEED_BYTES = 20_000_000;

/**
 * The geofeeds of `geo.geofeeds`: paths, or URLs fetched through the SSRF guard (public addresses
 * only unless `isAllowedAddress` says otherwise). Bad rows go to `report` with their line numbers;
 * a feed that cannot be read at all makes this throw (the server does not start on a broken
 * setting), while on a later reload the old data stays (GeofeedBackend.reload).
 */
export function openServerGeofeed(options: {
  feeds: readonly string[];
  report: (message: string) => void;
  isAllowedAddress?: (ip: string) => boolean;
}): Promise<GeofeedBackend> {
  const guarded = createGuardedFetch({
    ...(options.isAllowedAddress ? { isAllowedAddress: options.isAllowedAddress } : {}),
    timeoutMs: 60_000,
    maxRedirects: 5,
    maxBytes: MAX_FEED_BYTES,
  });
  const download: ListDownload = async (url, maxBytes) => {
    const response = await guarded(url);
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length > maxBytes) throw new Error(`${url}: larger than ${maxBytes} bytes`);
    return body;
  };
  return openGeofeedBackend({
    feeds: options.feeds,
    download,
    maxBytes: MAX_FEED_BYTES,
    onProblems: (feed, problems) => {
      for (const problem of problems.slice(0, LOGGED_PROBLEMS))
        options.report(`geofeed ${feed}${problem.line > 0 ? `:${problem.line}` : ''}: ${problem.message}`);
      if (problems.length > LOGGED_PROBLEMS)
        options.report(`geofeed ${feed}: ${problems.length - LOGGED_PROBLEMS} more problems`);
    },
  });
}
