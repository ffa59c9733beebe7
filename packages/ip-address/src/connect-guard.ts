import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; whatever it returns still passes the guard. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address of the name. */
export const systemLookup: HostLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** What node:net calls a socket's `lookup` with. */
type SocketLookup = (
  hostname: string,
  options: { family?: number | string; all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * The SSRF guard at connect time, as a socket's `lookup` (http.request's option): resolves the
 * host with `resolve` and refuses it (code `ESSRF`) when ANY answer is not allowed, so the check
 * and the connection use the same answers and a name cannot rebind after a check. Used by every
 * outbound request to a user-supplied URL (webhook delivery, enrichment fetches).
 */
export function guardedLookup(resolve: HostLookup, isAllowedAddress: (ip: string) => boolean): SocketLookup {
  return (hostname, options, callback) => {
    // A lookup that throws at once is a failure like one that rejects.
    Promise.resolve(hostname)
      .then(resolve)
      .then(
        (answers) => {
          const refused = answers.find((entry) => !isAllowedAddress(entry.address));
          if (refused) {
            const blocked = Object.assign(
              new Error(`${hostname} resolves to ${refused.address}, a private or reserved address`),
              { code: 'ESSRF' },
            );
            return callback(blocked, []);
          }
          // Honour a family the socket asked for (4 or 6), as dns.lookup would.
          const wanted = Number(options.family) || 0;
          const list = answers.filter((entry) => wanted === 0 || entry.family === wanted);
          const first = list[0];
          if (!first) {
            const none = Object.assign(new Error(`${hostname} has no IPv${wanted || ''} address`), {
              code: 'ENOTFOUND',
            });
            return callback(none, []);
          }
          if (options.all) return callback(null, list);
          callback(null, first.address, first.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
  };
}
