import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { mintToken } from '../control-plane/accounts.js';
import { emptyBodyIsObject, TokenBody, TokenSchema, tokenView } from './account-schemas.js';
import { authOf } from './keys.js';

/**
 * POST /v2/tokens: exchanges a key for a short-lived `tok_…` (for browsers, which should never
 * hold a key). The auth hook has already refused tokens here (`tokens_create` needs a key);
 * mintToken checks the lifetime and the scopes.
 */
export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v2/tokens',
    {
      config: { endpoint: 'tokens_create' },
      preValidation: emptyBodyIsObject,
      schema: {
        operationId: 'createToken',
        tags: ['account'],
        summary: 'Exchange the API key for a short-lived token',
        description:
          'The token (`tok_…`) is accepted in `X-API-Key` like a key, in the same environment and on the same account (same rate limit and allowance). It cannot mint tokens, and manages keys and webhook secrets only when those endpoints are named in `scopes` (live keys only, 1 h at most); revoking its key ends it. The body is optional: without one the token lasts an hour with every scope except key management.',
        body: TokenBody,
        response: { 201: TokenSchema },
      },
    },
    async (request, reply) => {
      const { token, secret } = await mintToken(app.svc, authOf(request.auth), {
        ttlSeconds: request.body.ttl_seconds,
        scopes: request.body.scopes ?? null,
      });
      return reply.code(201).send(tokenView(token, secret));
    },
  );
};
