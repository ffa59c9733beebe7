import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { parseAddressRange } from '../address-range.js';
import { globalPlugin } from './global-plugin.js';

/** Where the client's address came from. */
export interface ClientAddress {
  /** The client's IP address (IPv4-mapped IPv6 peers are given as IPv4). */
  ip: string;
  /** `peer`: the TCP peer; `x-forwarded-for`: a trusted proxy said so. */
  source: 'peer' | 'x-forwarded-for';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The client's address, from the client-address plugin (worked out on first read). */
    clientAddress: ClientAddress;
    /** @internal `clientAddress` once worked out (null before its first read). */
    svcClientAddress?: ClientAddress | null;
  }
}

function unmap(ip: string): string {
  return ip.toLowerCase().startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/**
 * A matcher for the configured trusted proxies (addresses or CIDR ranges, IPv4 or IPv6, read by
 * `parseAddressRange`, the parser the config check uses). Throws a TypeError naming an entry
 * that is neither.
 */
export function trustedProxyMatcher(entries: readonly string[]): (ip: string) => boolean {
  // No proxy trusted (the default): every request would otherwise pay for a BlockList lookup.
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const range = parseAddressRange(entry.trim());
    if ('problem' in range)
      throw new TypeError(`trustedProxies: ${JSON.stringify(entry)} is not an IP address or CIDR range`);
    list.addSubnet(range.address, range.prefix, range.family === 4 ? 'ipv4' : 'ipv6');
  }
  return (ip) => {
    const family = isIP(ip);
    return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * The client of a request: the TCP peer, unless the peer is a trusted proxy, in which case
 * `X-Forwarded-For` is read from the right, skipping trusted proxies, and the first address that
 * is not one is the client. An untrusted peer's `X-Forwarded-For` is ignored (anyone can send it).
 */
export function clientAddressOf(request: FastifyRequest, isTrusted: (ip: string) => boolean): ClientAddress {
  const peer = unmap(request.raw.socket.remoteAddress ?? '');
  if (!isTrusted(peer)) return { ip: peer, source: 'peer' };
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => unmap(hop.trim()))
    .filter((hop) => hop !== '');
  let client: ClientAddress = { ip: peer, source: 'peer' };
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (isIP(hop) === 0) break; // a garbled entry: stop at the last address we could believe
    client = { ip: hop, source: 'x-forwarded-for' };
    if (!isTrusted(hop)) break;
  }
  return client;
}

/** Options of the client-address plugin. */
export interface ClientAddressPluginOptions {
  /** Defaults to `app.svc.options.trustedProxies`. */
  trustedProxies?: string[];
}

/**
 * Gives every request `request.clientAddress` (used by /geo/me and the per-client limit on failed
 * authentications) from the peer and, behind configured trusted proxies only, `X-Forwarded-For`.
 * It is worked out when first read, not for every request: most requests never read it.
 */
export const clientAddressPlugin = globalPlugin(
  'svc-client-address',
  async (app, options: ClientAddressPluginOptions) => {
    const isTrusted = trustedProxyMatcher(options.trustedProxies ?? app.svc.options.trustedProxies);
    // Declared, so every request has the property from the start (one shape for all of them).
    app.decorateRequest('svcClientAddress', null);
    app.decorateRequest('clientAddress', {
      getter(this: FastifyRequest) {
        this.svcClientAddress ??= clientAddressOf(this, isTrusted);
        return this.svcClientAddress;
      },
    });
  },
);
