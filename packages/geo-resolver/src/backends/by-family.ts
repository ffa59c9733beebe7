import type { GeoBackend } from '../backend.js';

/** One backend made of separate IPv4 and IPv6 files (ip-location-db ships them apart). */
export function byFamily(id: string, v4: GeoBackend, v6: GeoBackend): GeoBackend {
  const fast4 = v4.lookupAddress?.bind(v4);
  const fast6 = v6.lookupAddress?.bind(v6);
  return {
    id,
    provides: [...new Set([...v4.provides, ...v6.provides])],
    get generation() {
      return (v4.generation ?? 0) + (v6.generation ?? 0);
    },
    lookup: (ip, family) => (family === 4 ? v4 : v6).lookup(ip, family),
    // The fast path only when both halves have it; the resolver falls back to lookup otherwise.
    ...(fast4 && fast6
      ? { lookupAddress: (address, match) => (address.family === 4 ? fast4 : fast6)(address, match) }
      : {}),
    describe: () => [...(v4.describe?.() ?? []), ...(v6.describe?.() ?? [])],
    async reload() {
      await Promise.all([v4.reload?.(), v6.reload?.()]);
    },
    close() {
      v4.close?.();
      v6.close?.();
    },
  };
}
