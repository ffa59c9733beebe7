import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { ErrorBodySchema, GeoLocationResultSchema, ServiceError } from '@svc/core';
import type { FastifyRequest } from 'fastify';

/** Where /geo/me found the client's address, for its error message. */
function describeSource(request: FastifyRequest): string {
  return request.clientAddress?.source === 'x-forwarded-for'
    ? 'from X-Forwarded-For, set by a trusted proxy'
    : 'the TCP peer of this connection';
}

/**
 * GET /v2/geo/{ip} and GET /v2/geo/me. Both use the server's geo resolver for live and test keys
 * alike: the data is local, so a lookup never leaves the machine. An invalid, private or reserved
 * address is 400 `invalid_ip` naming the range and its RFC. `/geo/me` locates the client: the
 * peer address, or `X-Forwarded-For` when the peer is a configured trusted proxy (the
 * client-address plugin decides); a private client gets 400 `invalid_ip` saying why.
 */
export const geoRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v2/geo/me',
    {
      config: { endpoint: 'geo_me' },
      schema: {
        operationId: 'geolocateMe',
        tags: ['geolocation'],
        summary: 'Geolocate the calling client',
        description:
          'Looks up the address this request comes from: the TCP peer, or, when the peer is one of the configured trusted proxies, the client named in `X-Forwarded-For`. A private or reserved client address (a call from the same host or network, or through a proxy that is not configured as trusted) is 400 `invalid_ip` saying which address was seen and why.',
        response: { 200: GeoLocationResultSchema, 400: ErrorBodySchema },
      },
    },
    async (request) => {
      const ip = request.clientAddress?.ip ?? request.ip;
      try {
        return app.svc.geo.lookup(ip);
      } catch (error) {
        if (!ServiceError.is(error) || error.code !== 'invalid_ip') throw error;
        const hint =
          request.clientAddress?.source === 'x-forwarded-for'
            ? 'the proxy passed on a private address'
            : 'call from the internet, or list the reverse proxy in front of the server in trustedProxies (SVC_TRUSTED_PROXIES) so its X-Forwarded-For is used';
        throw new ServiceError(
          'invalid_ip',
          `/geo/me locates the address a request comes from, and this one came from ${ip} (${describeSource(request)}), which is not public: ${error.message}; ${hint}`,
          { cause: error },
        );
      }
    },
  );

  app.get(
    '/v2/geo/:ip',
    {
      config: { endpoint: 'geo_ip' },
      schema: {
        operationId: 'geolocateIp',
        tags: ['geolocation'],
        summary: 'Geolocate an IPv4 or IPv6 address',
        description:
          'City, region, country, continent, coordinates, time zone, ASN and organisation, proxy and VPN flags; fields the data cannot supply are null. An address that is not IPv4/IPv6, or is private or reserved, is 400 `invalid_ip`.',
        params: Type.Object({
          ip: Type.String({
            description: 'An IPv4 or IPv6 address',
            examples: ['8.8.8.8', '2001:4860:4860::8888'],
          }),
        }),
        response: { 200: GeoLocationResultSchema, 400: ErrorBodySchema },
      },
    },
    async (request) => app.svc.geo.lookup(request.params.ip),
  );
};
