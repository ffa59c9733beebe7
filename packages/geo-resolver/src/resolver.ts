import type { GeoLocationResult } from '@svc/core';
import { normalizeIp } from '@svc/ip-address';
import { LRUCache } from 'lru-cache';
import type { GeoBackend, GeoDatabaseDescription, GeoField, NetworkType } from './backend.js';
import { loadDefaultTimezoneFinder, type TimezoneFinder } from './fill.js';
import { createResolve } from './resolve.js';

/** A geolocation result: the spec's fields plus extras and per-field provenance. */
export interface GeoResult extends GeoLocationResult {
  network: string | null;
  accuracy_radius_km: number | null;
  postal_code: string | null;
  isp: string | null;
  is_hosting: boolean | null;
  is_tor: boolean | null;
  is_relay: boolean | null;
  network_type: NetworkType | null;
  /** Which backend supplied each field (`derived` for fields computed offline). */
  sources: Partial<Record<GeoField, string>>;
}

/** Options of createGeoResolver. */
export interface GeoResolverOptions {
  /** Backends in priority order: for each field the first non-null value wins. */
  backends: GeoBackend[];
  /**
   * Results kept in the LRU (final, frozen results). 0 disables the cache.
   * @default 50000
   */
  cacheSize?: number;
  /**
   * Finds a zone from coordinates when the data has none; false disables.
   * @default @photostructure/tz-lookup, loaded when the resolver is created
   */
  timezoneFromCoordinates?: TimezoneFinder | false;
  /**
   * ASNs by network type: fills `network_type` (and `is_hosting`) from the address's AS where no
   * backend gave them, with `sources` naming `asn-network-types`. @default none
   */
  asnNetworkTypes?: ReadonlyMap<number, NetworkType>;
  /** Called when a backend throws during a lookup (its answer is skipped). @default no-op */
  onBackendError?: (backend: string, error: Error) => void;
}

/** Resolves IP addresses to locations through the configured backends. */
export interface GeoResolver {
  /** Looks up one address; throws ServiceError('invalid_ip') for invalid, private or reserved input. */
  lookup(ip: string): Readonly<GeoResult>;
  /** Reloads every reloadable backend (each checks its new data first) and clears the cache. */
  reload(): Promise<void>;
  /**
   * The databases serving now, in priority order: each backend's files with their type, build
   * date and source (re-read on every call, so a reload shows). Backends that cannot describe
   * their data are left out.
   */
  databases(): GeoDatabaseDescription[];
  close(): void;
}

/** Creates a resolver over the given backends. */
export async function createGeoResolver(options: GeoResolverOptions): Promise<GeoResolver> {
  if (!Array.isArray(options.backends) || options.backends.length === 0) {
    throw new TypeError('createGeoResolver needs at least one backend');
  }
  const ids = new Set(options.backends.map((backend) => backend.id));
  if (ids.size !== options.backends.length) throw new TypeError('backend ids must be unique');
  const cacheSize = options.cacheSize ?? 50_000;
  if (!Number.isInteger(cacheSize) || cacheSize < 0)
    throw new TypeError(`cacheSize must be an integer ≥ 0, got ${cacheSize}`);
  const timezoneFinder =
    options.timezoneFromCoordinates === false
      ? undefined
      : (options.timezoneFromCoordinates ?? (await loadDefaultTimezoneFinder()));
  const cache = cacheSize > 0 ? new LRUCache<string, Readonly<GeoResult>>({ max: cacheSize }) : undefined;
  const backends = [...options.backends];
  const generation = () => backends.reduce((sum, backend) => sum + (backend.generation ?? 0), 0);
  let cachedGeneration = generation();

  const resolve = createResolve(backends, timezoneFinder, options.onBackendError, options.asnNetworkTypes);

  return {
    lookup(input) {
      if (cache === undefined) return resolve(normalizeIp(input));
      // A watcher may have swapped a backend's data since the last call: drop answers from old data.
      const current = generation();
      if (current !== cachedGeneration) {
        cache?.clear();
        cachedGeneration = current;
      }
      // Cached by the raw input too, so repeated lookups skip parsing; misses parse strictly.
      const hit = cache.get(input);
      if (hit) return hit;
      const normalized = normalizeIp(input);
      const { ip } = normalized;
      const canonicalHit = ip === input ? undefined : cache.get(ip);
      const result = canonicalHit ?? resolve(normalized);
      cache.set(input, result);
      if (ip !== input) cache.set(ip, result);
      return result;
    },
    databases() {
      return backends.flatMap((backend) => backend.describe?.() ?? []);
    },
    async reload() {
      await Promise.all(backends.map((backend) => backend.reload?.()));
      cache?.clear();
    },
    close() {
      for (const backend of backends) backend.close?.();
      cache?.clear();
    },
  };
}
