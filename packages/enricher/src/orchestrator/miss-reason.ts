import type { AdapterReport } from '../enricher.js';

/**
 * Why a lookup found nothing, as the server's `X-Enrichment-Outcome` header and `svc enrich` say it:
 * - `suppressed`: the subject was erased earlier; nothing was looked up.
 * - `all_adapters_failed`: no adapter reached its source (each one errored, had its circuit
 *   open, or found no server to ask), so nothing was looked at: not a verdict (the server answers 503 and bills nothing).
 * - `site_unreachable`: the company's own site could not be read, while another source answered.
 * - `not_found_on_site`: the company's site was read and did not have the subject.
 * - `no_match`: the sources that answered did not know the subject (or not confidently enough).
 */
export type MissReason =
  | 'no_match'
  | 'not_found_on_site'
  | 'site_unreachable'
  | 'suppressed'
  | 'all_adapters_failed';

/** Every miss reason, in the order the documentation lists them. */
export const MISS_REASONS: readonly MissReason[] = [
  'no_match',
  'not_found_on_site',
  'site_unreachable',
  'suppressed',
  'all_adapters_failed',
];

/** Statuses meaning the adapter's source answered (now, earlier from the cache, or for another caller). */
const ANSWERED = new Set<AdapterReport['status']>(['hit', 'miss', 'cached_hit', 'cached_miss', 'shared']);
/** Statuses meaning the adapter tried, or would have, and could not reach its source. */
const FAILED = new Set<AdapterReport['status']>(['error', 'skipped_circuit_open']);

const answered = (report: AdapterReport) => ANSWERED.has(report.status) && !report.unreachable;
const failed = (report: AdapterReport) => FAILED.has(report.status) || report.unreachable === true;

/**
 * The reason for a miss, from the per-adapter reports of the call. `siteAdapters` are the ids of
 * the adapters that read the company's own website.
 */
export function missReason(
  reports: readonly AdapterReport[],
  suppressed: boolean,
  siteAdapters: ReadonlySet<string>,
): MissReason {
  if (suppressed) return 'suppressed';
  if (!reports.some(answered) && reports.some(failed)) return 'all_adapters_failed';
  const site = reports.filter((report) => siteAdapters.has(report.adapter));
  if (site.some(failed)) return 'site_unreachable';
  if (site.some(answered)) return 'not_found_on_site';
  return 'no_match';
}

/**
 * How each adapter answered, as one word each (`hit`, `miss`, `cached_miss`, `error:timeout`,
 * `miss:unreachable`, `skipped_circuit_open`, …): the server's request log and `svc enrich` show it.
 */
export function adapterOutcomes(reports: readonly AdapterReport[]): Record<string, string> {
  return Object.fromEntries(
    reports.map((report) => [
      report.adapter,
      report.error
        ? `${report.status}:${report.error}`
        : report.unreachable
          ? `${report.status}:unreachable`
          : report.status,
    ]),
  );
}
