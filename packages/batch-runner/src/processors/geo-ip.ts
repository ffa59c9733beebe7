import type { Processor } from '../runner/processor.js';

/** The part of @svc/geo-resolver's GeoResolver this processor needs. */
export interface IpLocator {
  lookup(ip: string): unknown;
}

/**
 * `geo_ip`: each record is looked up; an invalid, private or reserved address becomes a
 * per-record error with the resolver's code (`invalid_ip`) and message. Found results count as
 * `located`.
 */
export function createGeoIpProcessor(resolver: IpLocator): Processor {
  return {
    type: 'geo_ip',
    async process(records, { signal }) {
      signal.throwIfAborted();
      return records.map(({ index, input }) => {
        try {
          return { index, ok: true as const, result: resolver.lookup(input), countKey: 'located' };
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
