// 10,000 company lookups through the website adapter (createWebsiteAdapter behind createEnricher,
// with the guarded fetch resolving every company host to the loopback site), each company its own
// host name, every page answering after 50 ms, at most 2 requests in flight per host. Prints
// companies/s against the floor those limits allow, and peak RSS.
import {
  createEnricher,
  createGuardedFetch,
  createMemoryCache,
  createWebsiteAdapter,
  createWebsiteCrawler,
} from '@svc/enricher';
import { type Measurement, printTable, trackPeakRss } from '../lib/measure.js';
import { generateHomepages } from './homepages.js';
import { startSiteChild } from './site-child.js';

const LOOKUPS = Number(process.env.ENRICH_LOOKUPS ?? 10_000);
const DELAY_MS = 50;
/** The crawler's per-host limit (its default, spelt out because the floor depends on it). */
const PER_HOST = 2;
/** Lookups in flight at once (the website adapter's concurrency). */
const CONCURRENCY = Number(process.env.ENRICH_CONCURRENCY ?? 100);
/** Pages besides the homepage that the homepage links to and the crawler reads (about, contact, imprint). */
const SUBPAGES = ['/about', '/contact', '/imprint'];

/**
 * The least time any polite crawler can take: per company robots.txt, then the homepage (which
 * names the subpages), then the subpages at most `perHost` at a time, each round trip `delayMs`;
 * `concurrency` companies at once.
 */
export function lookupFloor(options: {
  lookups: number;
  subpages: number;
  perHost: number;
  delayMs: number;
  concurrency: number;
}): { roundTrips: number; seconds: number; perSecond: number } {
  const roundTrips = 2 + Math.ceil(options.subpages / options.perHost);
  const seconds = (Math.ceil(options.lookups / options.concurrency) * roundTrips * options.delayMs) / 1000;
  return { roundTrips, seconds, perSecond: options.lookups / seconds };
}

/** Runs the lookups and prints the table. */
export async function runEnrichLookupBenchmark(): Promise<Measurement[]> {
  const [home] = generateHomepages(1, 7);
  const page = (title: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>Founded in 2004, 120 employees.</p></body></html>`;
  const routes: Record<string, string> = {
    '/robots.txt': 'User-agent: *\nDisallow: /private/\n',
    '/': home!.html,
    '/about': page('About us'),
    '/contact': page('Contact'),
    '/imprint': page('Imprint'),
  };
  const site = await startSiteChild({ routes, delayMs: DELAY_MS });
  try {
    const guarded = createGuardedFetch({
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      isAllowedAddress: (ip) => ip === '127.0.0.1',
    });
    // Requests in flight per host, counted until the answer's headers: the politeness limit as the
    // site sees it (the crawler reads each body right after, still inside its per-host slot).
    const inFlight = new Map<string, number>();
    let peakPerHost = 0;
    const countingFetch: typeof fetch = async (input, init) => {
      const host = new URL(input instanceof Request ? input.url : String(input)).host;
      const now = (inFlight.get(host) ?? 0) + 1;
      inFlight.set(host, now);
      peakPerHost = Math.max(peakPerHost, now);
      try {
        return await guarded(input, init);
      } finally {
        const left = (inFlight.get(host) ?? 1) - 1;
        if (left === 0) inFlight.delete(host);
        else inFlight.set(host, left);
      }
    };
    const crawler = createWebsiteCrawler({
      homepageUrls: (domain) => [`http://${domain}:${site.port}/`],
      perHostConcurrency: PER_HOST,
    });
    const enricher = createEnricher({
      adapters: [createWebsiteAdapter({ crawler, concurrency: CONCURRENCY })],
      cache: createMemoryCache(),
      fetch: countingFetch,
    });
    // Each company its own registrable domain (queries are normalised to one, so subdomains of one
    // domain would all be the same company); the guarded fetch's lookup answers 127.0.0.1 for every
    // name, so none of them is ever resolved or contacted on the internet.
    const domains = Array.from({ length: LOOKUPS }, (_, i) => `svc-bench-company-${i}.com`);

    const before = await site.stats();
    const rssBefore = process.memoryUsage().rss / 1e6;
    const peak = trackPeakRss();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let hits = 0;
    let next = 0;
    // The enricher holds excess calls behind the adapter's limit; CONCURRENCY callers keep it full
    // without queueing 10,000 promises at once.
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < domains.length) {
          const domain = domains[next++]!;
          const outcome = await enricher.enrichCompany({ domain });
          if (outcome.match) hits++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const peakRss = peak();
    const after = await site.stats();

    const floor = lookupFloor({
      lookups: LOOKUPS,
      subpages: SUBPAGES.length,
      perHost: PER_HOST,
      delayMs: DELAY_MS,
      concurrency: CONCURRENCY,
    });
    const requests = after.requests - before.requests;
    const rows: Measurement[] = [
      {
        name: 'floor',
        operations: LOOKUPS,
        seconds: floor.seconds,
        rssMb: 0,
        note: 'only the waits, no CPU (RSS n/a)',
      },
      {
        name: 'ours (website adapter)',
        operations: LOOKUPS,
        seconds,
        rssMb: peakRss,
        note: `RSS before ${rssBefore.toFixed(0)} MB, ${hits} hits, ${requests} requests, peak ${peakPerHost}/host, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (sites ${(after.cpuSeconds - before.cpuSeconds).toFixed(1)} s)`,
      },
    ];
    printTable(
      `Enrich: ${LOOKUPS.toLocaleString('en')} company lookups, pages answering in ${DELAY_MS} ms, ≤ ${PER_HOST} per host, ${CONCURRENCY} at once (companies/s; RSS = peak)`,
      rows,
      'floor',
    );
    console.log(
      `\nfloor = ceil(${LOOKUPS} lookups / ${CONCURRENCY} at once) × (robots.txt + homepage + ceil(${SUBPAGES.length} subpages / ${PER_HOST} per host) = ${floor.roundTrips} round trips) × ${DELAY_MS} ms = ${floor.seconds.toFixed(1)} s → ${Math.round(floor.perSecond)} companies/s`,
    );
    if (hits !== LOOKUPS) throw new Error(`expected every lookup to hit, got ${hits} of ${LOOKUPS}`);
    if (peakPerHost > PER_HOST) throw new Error(`the per-host limit was exceeded: ${peakPerHost} in flight`);
    return rows;
  } finally {
    await site.close();
  }
}
