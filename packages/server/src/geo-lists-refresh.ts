import { createGuardedFetch } from '@svc/enricher';
import { type ListDownload, NETWORK_LIST_DATASETS, updateNetworkLists } from '@svc/geo-resolver';

/**
 * Fetches fresh network lists (Tor exits, cloud ranges, iCloud Private Relay) every
 * `intervalSeconds` into `<cacheDir>/lists/`, through the SSRF guard, each checked before it is
 * swapped in (updateNetworkLists); the geo reload triggers watch the compiled file, so a change is
 * served without a restart. A list that fails keeps its data and is reported through `report`.
 */
export function scheduleNetworkListRefresh(options: {
  cacheDir: string;
  intervalSeconds: number;
  report: (message: string, failed: boolean) => void;
  /** URLs by list id instead of the registry's (tests). */
  urls?: Readonly<Record<string, readonly string[]>>;
  /** Addresses the guard lets through. @default public addresses only */
  isAllowedAddress?: (ip: string) => boolean;
}): () => void {
  if (options.intervalSeconds <= 0) return () => {};
  const guarded = createGuardedFetch({
    ...(options.isAllowedAddress ? { isAllowedAddress: options.isAllowedAddress } : {}),
    timeoutMs: 120_000,
    maxRedirects: 5,
    maxBytes: Math.max(...NETWORK_LIST_DATASETS.map((dataset) => dataset.maxBytes)),
  });
  const download: ListDownload = async (url) => {
    const response = await guarded(url);
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  };
  let running = false;
  const refresh = async () => {
    if (running) return;
    running = true;
    try {
      const result = await updateNetworkLists({
        cacheDir: options.cacheDir,
        download,
        ...(options.urls ? { urls: options.urls, datasets: Object.keys(options.urls) } : {}),
      });
      for (const list of result.lists) {
        options.report(
          list.status === 'updated'
            ? `network list ${list.id} updated: ${list.networks} networks (was ${list.previous})`
            : `network list ${list.id} kept its ${list.networks} networks: ${list.error}`,
          list.status !== 'updated',
        );
      }
    } catch (error) {
      options.report(`network lists not refreshed: ${(error as Error).message}`, true);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void refresh(), options.intervalSeconds * 1000).unref();
  return () => clearInterval(timer);
}
