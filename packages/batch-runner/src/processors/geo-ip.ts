import type { GeoLocationResult } from '@svc/core';
import type { Processor } from '../runner/processor.js';

/** The part of @svc/geo-resolver's GeoResolver this processor needs. */
export interface IpLocator {
  lookup(ip: string): Pick<GeoLocationResult, 'country' | 'latitude' | 'longitude'>;
}

/**
 * Whether a result says where the address is: a country, or coordinates. Anything less (every
 * field null because the data has no entry, or only an ASN / organisation, a continent or flags)
 * knows at most whose network it is, not where, so it is not counted as located.
 */
export function isLocated(result: Pick<GeoLocationResult, 'country' | 'latitude' | 'longitude'>): boolean {
  return result.country !== null || (result.latitude !== null && result.longitude !== null);
}

/**
 * `geo_ip`: each record is looked up; an invalid, private or reserved address becomes a
 * per-record error with the resolver's code (`invalid_ip`) and message. A result counts as
 * `located` when it has a country or coordinates, else as `not_located` (still an ok result,
 * with whatever fields the data had).
 */
export function createGeoIpProcessor(resolver: IpLocator): Processor {
  return {
    type: 'geo_ip',
    async process(records, { signal }) {
      signal.throwIfAborted();
      return records.map(({ index, input }) => {
        try {
          const result = resolver.lookup(input);
          return {
            index,
            ok: true as const,
            result,
            countKey: isLocated(result) ? 'located' : 'not_located',
          };
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          return {
            index,
            ok: false as const,
            error: {
              code: typeof code === 'string' ? code : 'lookup_failed',
              message: (error as Error).message,
            },
          };
        }
      });
    },
  };
}
