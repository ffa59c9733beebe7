import {
  createEnricher,
  createGuardedFetch,
  createWebsiteAdapter,
  createWebsiteCrawler,
  createWebsitePersonAdapter,
  type Enricher,
  type EnrichmentAdapter,
} from '@svc/enricher';

/**
 * The real enricher over the real website adapters (the company's facts and its people), reading
 * sites the test serves on 127.0.0.1: every name resolves to the loopback, the only address the
 * guarded fetch allows, and `homepage(domain)` is the URL of a domain's site. `extra` adapters
 * follow the website ones.
 */
export function loopbackWebsiteEnricher(
  homepage: (domain: string) => string,
  extra: EnrichmentAdapter[] = [],
): Enricher {
  const crawler = createWebsiteCrawler({ homepageUrls: (domain) => [homepage(domain)] });
  return createEnricher({
    adapters: [
      createWebsiteAdapter({ crawler }),
      createWebsitePersonAdapter({ crawler }),
      ...extra,
    ] as EnrichmentAdapter[],
    fetch: createGuardedFetch({
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      isAllowedAddress: (ip) => ip === '127.0.0.1',
    }),
  });
}
