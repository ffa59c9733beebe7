import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBodySchema, ServiceError } from '@svc/core';
import type { AuthContext } from '../context.js';
import { createKey, isKeyInCharge, keysMadeWith, revokeKey, rotateKey } from '../control-plane/accounts.js';
import type { ControlPlaneStore } from '../control-plane/store.js';
import {
  CreateKeyBody,
  emptyBodyIsObject,
  KeyIdParams,
  KeyListSchema,
  keyView,
  NewKeySchema,
  RevokedKeySchema,
  RotateBody,
  RotatedKeySchema,
} from './account-schemas.js';

const NOT_FOUND = { ...ErrorBodySchema, description: '`not_found`: no such key on this account' };

/** Default grace period of a rotated key: a day to roll the new one out. */
export const DEFAULT_KEY_GRACE_SECONDS = 86_400;

/**
 * The account's own keys (spec §5: "keys can be rotated at any time", "a live key is shown only
 * once, at creation"). Only live keys reach these routes (`live_key` in ENDPOINTS): a test key
 * leaked from a front end cannot mint live keys.
 */
export const keyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v2/keys',
    {
      config: { endpoint: 'keys_list' },
      schema: {
        operationId: 'listKeys',
        tags: ['account'],
        summary: "List the account's keys (never their secrets)",
        response: { 200: KeyListSchema },
      },
    },
    async (request) => {
      const auth = authOf(request.auth);
      const now = app.svc.now();
      const keys = await app.svc.controlPlane.listKeys(auth.account.id);
      keys.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
      return { data: keys.map((key) => keyView(key, now)) };
    },
  );

  app.post(
    '/v2/keys',
    {
      config: { endpoint: 'keys_create' },
      schema: {
        operationId: 'createKey',
        tags: ['account'],
        summary: 'Create a key; its secret is in this response only',
        body: CreateKeyBody,
        response: { 201: NewKeySchema },
      },
    },
    async (request, reply) => {
      const auth = authOf(request.auth);
      const { key, secret } = await createKey(app.svc.controlPlane, {
        accountId: auth.account.id,
        environment: request.body.environment,
        name: request.body.name ?? null,
        createdBy: auth.key.id,
        now: app.svc.now(),
      });
      return reply.code(201).send({ ...keyView(key, app.svc.now()), secret });
    },
  );

  app.post(
    '/v2/keys/:id/rotate',
    {
      config: { endpoint: 'keys_rotate' },
      preValidation: emptyBodyIsObject,
      schema: {
        operationId: 'rotateKey',
        tags: ['account'],
        summary: 'Replace a key: a new secret now, the old one works for grace_seconds',
        description: 'The body is optional: without one the old key works for a day (86400 s).',
        params: KeyIdParams,
        body: RotateBody,
        response: { 201: RotatedKeySchema, 404: NOT_FOUND },
      },
    },
    async (request, reply) => {
      const auth = authOf(request.auth);
      const now = app.svc.now();
      const { key, secret, previous } = await rotateKey(app.svc.controlPlane, {
        accountId: auth.account.id,
        keyId: request.params.id,
        graceSeconds: request.body.grace_seconds ?? DEFAULT_KEY_GRACE_SECONDS,
        by: auth.key.id,
        now,
      });
      return reply.code(201).send({ ...keyView(key, now), secret, previous: keyView(previous, now) });
    },
  );

  app.delete(
    '/v2/keys/:id',
    {
      config: { endpoint: 'keys_revoke' },
      schema: {
        operationId: 'revokeKey',
        tags: ['account'],
        summary: 'Revoke a key now, with the keys made with it and every token they minted',
        description:
          'A key made over the API records the key that made it (`created_by`: the caller, or the key of the token used); revoking a key revokes those keys too, and the keys made with them, listed in `also_revoked`. Tokens end with their key. Refused (400 `invalid_request`) when it would leave the account no live key without an end date: a key in its rotation grace period calls the API but manages nothing, then stops.',
        params: KeyIdParams,
        response: { 200: RevokedKeySchema, 404: NOT_FOUND },
      },
    },
    async (request) => {
      const auth = authOf(request.auth);
      const now = app.svc.now();
      await refuseLockOut(app.svc.controlPlane, auth.account.id, request.params.id, now);
      const { key, alsoRevoked } = await revokeKey(app.svc.controlPlane, {
        accountId: auth.account.id,
        keyId: request.params.id,
        now,
      });
      return { ...keyView(key, now), also_revoked: alsoRevoked.map((other) => keyView(other, now)) };
    },
  );
};

/** The caller; the auth hook guarantees it on these endpoints, this only narrows the type. */
export function authOf(auth: AuthContext | null): AuthContext {
  if (!auth) throw new ServiceError('invalid_api_key', 'an API key is required');
  return auth;
}

/**
 * Only a live key with no end date manages keys (isKeyInCharge), so a revoke over the API that
 * ends the account's last such key (itself, or among the keys made with it) would lock the
 * account out of its own keys for good: only an operator could help. A key in its rotation grace
 * period does not count: it manages nothing, and soon stops. Refused: create another live key
 * first (or rotate this one).
 */
async function refuseLockOut(
  store: ControlPlaneStore,
  accountId: string,
  keyId: string,
  now: number,
): Promise<void> {
  const keys = await store.listKeys(accountId);
  // Not found: revokeKey says so.
  if (!keys.some((key) => key.id === keyId)) return;
  const ending = new Set([keyId, ...keysMadeWith(keys, keyId).map((key) => key.id)]);
  const inCharge = keys.filter((key) => isKeyInCharge(key, now));
  // A revoke that ends no key in charge (a test key, an expiring one) takes nothing away.
  if (!inCharge.some((key) => ending.has(key.id))) return;
  if (inCharge.some((key) => !ending.has(key.id))) return;
  const withMade = ending.size > 1 ? ` (with the ${ending.size - 1} key(s) made with it)` : '';
  throw new ServiceError(
    'invalid_request',
    `revoking ${keyId}${withMade} would leave the account no live key without an end date, and keys in a rotation's grace period manage nothing; create another live key (POST /v2/keys) or rotate this one (POST /v2/keys/${keyId}/rotate) before revoking it`,
  );
}
