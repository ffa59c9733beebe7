import { resolve } from 'node:path';
import { type GeoBackend, type GeofeedProblem, openGeofeedBackend } from '@svc/geo-resolver';
import { guardedDownload } from './guarded-download.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage-error.js';

/** Problems printed per feed; the rest are counted. */
const PRINTED_PROBLEMS = 20;
const MAX_FEED_BYTES = 20_000_000;

/**
 * The geofeed backend of `svc geo --geofeed`: paths (relative to the working directory) or http(s)
 * URLs, fetched through the SSRF guard (private and loopback addresses refused unless
 * allowPrivate). Bad rows are reported on stderr with their line numbers and are not fatal.
 */
export async function openCliGeofeed(
  io: CliIo,
  feeds: readonly string[],
  allowPrivate: boolean,
): Promise<GeoBackend> {
  const resolved = feeds.map((feed) => {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(feed)) {
      const url = new URL(feed);
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new UsageError(`--geofeed ${feed}: only paths and http(s) URLs`, 'geo');
      return url.href;
    }
    return resolve(io.cwd, feed);
  });
  return openGeofeedBackend({
    feeds: resolved,
    download: guardedDownload({ allowPrivate, timeoutMs: 60_000, maxBytes: MAX_FEED_BYTES }),
    maxBytes: MAX_FEED_BYTES,
    onProblems: (feed, problems) => printProblems(io, feed, problems),
  });
}

function printProblems(io: CliIo, feed: string, problems: readonly GeofeedProblem[]): void {
  for (const problem of problems.slice(0, PRINTED_PROBLEMS))
    io.stderr.write(`geofeed ${feed}${problem.line > 0 ? `:${problem.line}` : ''}: ${problem.message}\n`);
  if (problems.length > PRINTED_PROBLEMS)
    io.stderr.write(`geofeed ${feed}: ${problems.length - PRINTED_PROBLEMS} more problems\n`);
}
